"""The web-research agent: search through MCP tools, filter by relevance, deep-read, answer with sources.

Two paths over the same tools (`ResearchTools` over a `SearchToolset`):

* the **ReAct graph** (`graph.py`) when the LLM port hands out a LangChain chat model: a tool-calling agent
  at temperature 0 whose tools filter results by relevance and quote page text inside untrusted-content
  delimiters;
* the **offline pipeline** (`pipeline.py`) when it raises `OfflineUnsupported` (no model configured): optimise
  the query, search, filter, deep-read the best pages (plus one follow-up hop), and answer with sentences
  quoted from the sources.

Both return an `AgentReply` whose data part carries `status`, `max_score`, `sources`, `queries`, `cache`,
`cost_usd`, `searches` and `depth`.
"""

from __future__ import annotations

from typing import Any

from ai_llm.common.a2a.events import STATUS_ERROR, AgentReply
from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import EmbeddingError, reader_client, reader_null_cosine
from ai_llm.common.llm import OfflineUnsupported
from ai_llm.common.messages import message
from ai_llm.common.runtime import HubDeps
from ai_llm.common.text import normalize
from ai_llm.web_research_agent.answering import READER_MARGIN, outage_reply
from ai_llm.web_research_agent.graph import run_react
from ai_llm.web_research_agent.pipeline import OfflinePipeline
from ai_llm.web_research_agent.search_tools.results import ToolsUnavailable
from ai_llm.web_research_agent.search_tools.toolset import SearchToolset
from ai_llm.web_research_agent.state import (
    Depth,
    ProgressFn,
    ResearchLimits,
    ResearchRequest,
    RunState,
    ToolsetFactory,
    silent,
)
from ai_llm.web_research_agent.tools import ResearchTools


class WebResearchAgent:
    """Answers questions from the web through the configured MCP search tools.

    Args:
        deps: settings, LLM (offline engine or OpenAI-compatible) and embeddings.
        toolset_factory: opens a `SearchToolset` per run (default: the servers in settings).
        max_pages: pages read in deep-read mode.
        max_sources: pages cited in an answer (the best-ranked chunks' pages).
        read_budget_s: time budget for reading pages; slower pages are skipped.
        max_results: results asked from each search.
        hops: follow-up searches for entities the best pages name.
        reader: rank the sentences of the pages read with the reader's question encoder (default: the
            `WEB_READER` setting; it needs the e5 embedding server, which serves the encoder).
    """

    def __init__(self, deps: HubDeps, toolset_factory: ToolsetFactory | None = None, *, max_pages: int = 8,
                 max_sources: int = 5,
                 read_budget_s: float = 8.0, max_results: int = 8, hops: int = 1, reader: bool | None = None
                 ) -> None:
        self.deps = deps
        self.settings = deps.settings
        use_reader = self.settings.web_reader if reader is None else reader
        self.reader = reader_client(deps.embeddings) if use_reader and deps.embeddings is not None else None
        self._reader_null: float | None = None
        self.toolset_factory = toolset_factory or (lambda: SearchToolset.open(self.settings))
        self.limits = ResearchLimits(max_pages=max_pages, max_sources=max_sources, read_budget_s=read_budget_s,
                                     max_results=max_results, hops=hops)

    async def reader_floor(self) -> float | None:
        """The reader's cosine under which its best sentence does not answer: its encoder's "none of them"
        cosine, as the embedding server lists it, plus `READER_MARGIN`; None without the reader or that cosine."""
        if self.reader is None:
            return None
        if self._reader_null is None:
            try:
                self._reader_null = await reader_null_cosine(self.reader)
            except EmbeddingError as exc:
                note_degraded("reader", exc)
        return None if self._reader_null is None else self._reader_null + READER_MARGIN

    @property
    def threshold(self) -> float:
        return self.settings.relevance_threshold

    def research_tools(self, toolset: SearchToolset, state: RunState, language: str,
                       progress: ProgressFn) -> ResearchTools:
        """The agent's relevance-filtered view of an open toolset for one run (recording into `state`)."""
        return ResearchTools(toolset, state, embeddings=self.deps.embeddings, threshold=self.threshold,
                             max_results=self.limits.max_results, language=language, progress=progress)

    async def research(self, question: str, *, depth: Depth = "auto", language: str | None = None,
                       progress: ProgressFn | None = None, news: bool | None = None) -> AgentReply:
        """Answer `question` (markdown text + structured data)."""
        language = language or self.settings.ui_language
        request = ResearchRequest(normalize(question), depth, language, news, progress or silent)
        if not request.question:
            return AgentReply(text=message("web.empty", language),
                              data={"status": STATUS_ERROR, "error": "empty question"})
        if depth not in ("auto", "snippets", "pages"):
            raise ValueError(f"depth must be auto, snippets or pages, not {depth!r}")
        model: Any = None
        try:
            model = self.deps.llm.langchain_model(temperature=0.0)
        except OfflineUnsupported:
            pass  # offline mode: the deterministic pipeline answers
        state = RunState()
        try:
            async with self.toolset_factory() as toolset:
                tools = self.research_tools(toolset, state, language, request.progress)
                if model is not None:
                    return await run_react(model, request, tools)
                return await OfflinePipeline(request, tools, self.deps.embeddings, self.limits, self.reader,
                                             await self.reader_floor()).run()
        except ToolsUnavailable as exc:
            return outage_reply("web.tools_down", str(exc), language, state.data([], depth))
