"""The online research path: a LangChain `create_agent` ReAct loop over the run's relevance-filtered tools.

The model (temperature 0) searches and reads pages as it sees fit; the reply cites the pages of the results it
saw. Nothing relevant found → the `no_result` reply, whatever the model wrote. A model that keeps calling tools
until the recursion limit gets the extractive answer from the snippets its searches found.
"""

from __future__ import annotations

import json
from typing import Any

from ai_llm.common.a2a.events import STATUS_OK, AgentReply
from ai_llm.web_research_agent.answering import compose, no_result
from ai_llm.web_research_agent.prompts import system_prompt
from ai_llm.web_research_agent.state import ResearchRequest
from ai_llm.web_research_agent.tools import ResearchTools, plan_query

RECURSION_LIMIT = 16


async def run_react(model: Any, request: ResearchRequest, tools: ResearchTools) -> AgentReply:
    """Answer `request` with the ReAct loop of the LangChain chat `model` over `tools`."""
    from langchain.agents import create_agent
    from langgraph.errors import GraphRecursionError

    question, language, depth, state = request.question, request.language, request.depth, tools.state
    plan = plan_query(question, language)
    lc_tools = tools.langchain_tools(plan)
    if depth == "snippets":
        lc_tools = [t for t in lc_tools if t.name != "fetch_page"]
    graph = create_agent(model, lc_tools, system_prompt=system_prompt(language))
    hint = (f"(Suggested: news_search with time_range={plan.time_range}, region={plan.region})"
            if plan.news else f"(Suggested region: {plan.region})")
    try:
        result = await graph.ainvoke({"messages": [{"role": "user", "content": f"{question}\n\n{hint}"}]},
                                     config={"recursion_limit": RECURSION_LIMIT})
    except GraphRecursionError:
        # The model kept calling tools: answer from what its searches already found, not an error.
        if not state.seen:
            return no_result(state, language, depth, tools.threshold)
        return compose(question, [(h, h.snippet) for h in state.seen.values()], state, language, depth,
                       tools.threshold)
    final = result["messages"][-1]
    answer = final.content if isinstance(final.content, str) else json.dumps(final.content, ensure_ascii=False)
    if not state.seen:
        return no_result(state, language, depth, tools.threshold)
    used = [h for h in state.seen.values() if h.url in answer] or list(state.seen.values())[:5]
    return AgentReply(text=answer, data={"status": STATUS_OK, **state.data(used, depth)})
