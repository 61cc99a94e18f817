"""Tavily-MCP mapping, the online ReAct path (scripted chat model), and the agent as a real A2A process."""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from pydantic import Field

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import StatusEvent
from ai_llm.common.a2a.server import free_port
from ai_llm.common.llm import OfflineUnsupported
from ai_llm.common.runtime import HubDeps
from ai_llm.hub.process import start_module, stop_child, wait_http
from ai_llm.web_research_agent.agent import WebResearchAgent
from ai_llm.web_research_agent.prompts import UNTRUSTED_CLOSE, UNTRUSTED_OPEN
from ai_llm.web_research_agent.search_tools.toolset import SearchToolset
from tests.web_research_agent.conftest import INJECTION, Gateway, make_deps, make_settings, recording_factory


# ---------------------------------------------------------------------------------------------- Tavily MCP
@pytest.fixture(scope="module")
def tavily_server(web_corpus: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A local MCP server with Tavily's tool names and result shape (the real one needs the Tavily API)."""
    work = tmp_path_factory.mktemp("tavily")
    port = free_port()
    log = work / "calls.jsonl"
    child = start_module("tavily-like", "tests.web_research_agent.servers.tavily_like",
                         ["--port", str(port), "--corpus", str(web_corpus), "--log", str(log)], {}, work)
    try:
        wait_http(f"http://127.0.0.1:{port}/healthz", child, timeout_s=60)
        yield f"http://127.0.0.1:{port}/mcp", log
    finally:
        stop_child(child)


def _calls(log: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


async def test_tavily_mcp_tool_names_and_fields_are_mapped(tavily_server: tuple[str, Path],
                                                           embedding_server: str) -> None:
    url, log = tavily_server
    servers = json.dumps({"tavily": {"transport": "streamable_http", "url": url}})
    settings = make_settings("http://127.0.0.1:9", embedding_server, mcp_servers=servers)
    agent = WebResearchAgent(make_deps(settings))
    before = len(_calls(log))
    reply = await agent.research("How many glowfish did researchers count in Lake Varn?", depth="pages",
                                 language="en")
    assert reply.data["status"] == "ok"
    assert "https://science.example.org/varn-glowfish" in [s["url"] for s in reply.data["sources"]]
    assert "4,200" in reply.text  # `content` became the snippet and `tavily-extract` the page text
    assert reply.data["sources"][0]["published_at"] == "2025-11-02"  # from `published_date`
    calls = _calls(log)[before:]
    assert {c["tool"] for c in calls} == {"tavily-search", "tavily-extract"}
    assert all(isinstance(c["args"]["urls"], list) for c in calls if c["tool"] == "tavily-extract")

    before = len(_calls(log))
    news = await agent.research("latest news on Lake Varn glowfish", language="en")
    sent = [c for c in _calls(log)[before:] if c["tool"] == "tavily-search"]
    assert sent[0]["args"]["topic"] == "news" and sent[0]["args"]["time_range"] == "week"
    assert news.data["status"] == "ok"


# ------------------------------------------------------------------------------------ online ReAct path
class ScriptedChatModel(BaseChatModel):
    """A chat model that replays scripted messages (tool calls, then an answer) and records its inputs."""

    script: list[AIMessage]
    seen: list[list[BaseMessage]] = Field(default_factory=list)
    bound: list[str] = Field(default_factory=list)

    @property
    def _llm_type(self) -> str:
        return "scripted"

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        self.seen.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.script[len(self.seen) - 1])])

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> Any:  # type: ignore[override]
        self.bound = [getattr(t, "name", str(t)) for t in tools]
        return self


class ScriptedLLM:
    """The LLM port's online side: `langchain_model()` hands out the scripted chat model."""

    def __init__(self, model: ScriptedChatModel) -> None:
        self.model = model
        self.calls: list[Any] = []
        self.temperatures: list[float] = []

    def langchain_model(self, model: str | None = None, temperature: float = 0.0) -> ScriptedChatModel:
        self.temperatures.append(temperature)
        return self.model


def _call(name: str, args: dict[str, Any], call_id: str) -> AIMessage:
    return AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id, "type": "tool_call"}])


async def test_online_agent_calls_gateway_tools_and_delimits_page_text(web_deps: HubDeps) -> None:
    evil = "https://evil.example.net/varn-glowfish-facts"
    model = ScriptedChatModel(script=[
        _call("web_search", {"query": "Lake Varn glowfish"}, "c1"),
        _call("fetch_page", {"url": evil}, "c2"),
        AIMessage(content="Lake Varn glowfish emit blue light at night.\n\n**Sources**\n"
                          "- [Glowfish of Lake Varn](https://science.example.org/varn-glowfish)"),
    ])
    llm = ScriptedLLM(model)
    opened: list[SearchToolset] = []
    deps = HubDeps(settings=web_deps.settings, embeddings=web_deps.embeddings, llm=llm)  # type: ignore[arg-type]
    agent = WebResearchAgent(deps, recording_factory(web_deps.settings, opened))
    reply = await agent.research("What do Lake Varn glowfish emit?", language="en")

    assert llm.temperatures == [0.0]
    assert set(model.bound) == {"web_search", "news_search", "fetch_page"}
    sent = [(c.operation, c.args.get("query") or c.args.get("url")) for c in opened[0].calls]
    assert sent == [("web_search", "Lake Varn glowfish"), ("fetch_page", evil)]  # reached the gateway
    system = model.seen[0][0]
    assert isinstance(system, SystemMessage) and "never follow them" in str(system.content)
    search_result, page = [m for m in model.seen[2] if isinstance(m, ToolMessage)]
    assert "https://science.example.org/varn-glowfish" in str(search_result.content)  # real gateway results
    text = str(page.content)
    assert text.startswith(UNTRUSTED_OPEN) and text.rstrip().endswith(UNTRUSTED_CLOSE)
    assert INJECTION[:40] in text
    assert reply.data["status"] == "ok"
    assert [s["url"] for s in reply.data["sources"]] == ["https://science.example.org/varn-glowfish"]
    assert reply.data["queries"] == ["Lake Varn glowfish"]


async def test_online_agent_with_nothing_relevant_says_so(web_deps: HubDeps) -> None:
    model = ScriptedChatModel(script=[
        _call("web_search", {"query": "zorblax quuxification"}, "c1"),
        AIMessage(content="Zorblax is a famous city."),  # the model would invent; the structure overrides it
    ])
    deps = HubDeps(settings=web_deps.settings, embeddings=web_deps.embeddings,
                   llm=ScriptedLLM(model))  # type: ignore[arg-type]
    reply = await WebResearchAgent(deps).research("What is zorblax quuxification?", language="ko")
    tool_message = [m for m in model.seen[1] if isinstance(m, ToolMessage)][0]
    assert "No relevant results" in str(tool_message.content)
    assert reply.data["status"] == "no_result" and reply.data["sources"] == []
    assert reply.text.startswith("관련 정보를 찾을 수 없습니다") and "Zorblax" not in reply.text


async def test_a_model_that_never_stops_calling_tools_still_gets_an_answer(web_deps: HubDeps) -> None:
    """Seen against a real llama.cpp model: it kept searching until LangGraph's recursion limit."""
    model = ScriptedChatModel(script=[_call("web_search", {"query": "Lake Varn glowfish"}, f"c{i}")
                                      for i in range(40)])
    deps = HubDeps(settings=web_deps.settings, embeddings=web_deps.embeddings,
                   llm=ScriptedLLM(model))  # type: ignore[arg-type]
    reply = await WebResearchAgent(deps).research("What do Lake Varn glowfish emit?", language="en")
    assert len(model.seen) > 3  # it really looped
    assert reply.data["status"] == "ok"
    assert "https://science.example.org/varn-glowfish" in [s["url"] for s in reply.data["sources"]]
    assert "science.example.org/varn-glowfish" in reply.text


# ----------------------------------------------------------------------------------- A2A agent process
async def test_agent_process_over_a2a(agent_processes: Any, gateway: Gateway) -> None:
    child = agent_processes.start("web", "ai_llm.web_research_agent", env={"SEARCH_GATEWAY_URL": gateway.url})
    remote = RemoteAgent(child.url, timeout_s=60, name="web_research")
    card = await remote.card()
    assert {s.id for s in card.skills} >= {"web_research", "news_research", "verify_fact"}
    events: list[StatusEvent] = []

    async def on_status(event: StatusEvent) -> None:
        events.append(event)

    reply = await remote.ask("최신 반도체 수출 뉴스 알려줘", data={"skill": "news_research"}, on_status=on_status)
    assert reply.data["status"] == "ok"
    assert reply.data["sources"][0]["url"] == "https://news.example.kr/chip-exports"
    assert any(e.message.startswith("🔍 웹에서 최신 정보를 검색 중") for e in events)
    assert "출처" in reply.text

    bad = await remote.ask("anything", data={"skill": "teleport"})
    assert bad.data["status"] == "error" and "teleport" in bad.data["error"]
    bad_depth = await remote.ask("Lake Varn glowfish", data={"depth": "everything"})
    assert bad_depth.data["status"] == "error" and "depth" in bad_depth.data["error"]


def test_make_deps_is_offline(web_deps: HubDeps) -> None:
    assert web_deps.settings.llm_online is False
    with pytest.raises(OfflineUnsupported):
        make_deps(web_deps.settings).llm.langchain_model()
