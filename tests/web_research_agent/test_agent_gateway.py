"""The web-research agent against the real search gateway process (local provider, test corpus)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import reader_client
from ai_llm.common.runtime import HubDeps
from ai_llm.hub.process import stop_child
from ai_llm.web_research_agent.agent import WebResearchAgent
from ai_llm.web_research_agent.deep_read import EMBED_CHARS, read_pages, read_sentences
from ai_llm.web_research_agent.search_tools.toolset import SearchToolset
from tests.web_research_agent.conftest import (
    INJECTION,
    LIGHTHOUSE_ANSWER,
    PageServer,
    make_deps,
    make_settings,
    redirecting_factory,
    start_gateway,
)

Build = Callable[..., tuple[WebResearchAgent, list[SearchToolset]]]
GLOWFISH_Q = "How many glowfish live in Lake Varn?"


async def _events() -> tuple[list[tuple[str, dict[str, Any]]], Any]:
    events: list[tuple[str, dict[str, Any]]] = []

    async def progress(message: str, **kw: Any) -> None:
        events.append((message, kw))

    return events, progress


async def test_answer_cites_sources_from_the_gateway(make_agent: Build) -> None:
    agent, opened = make_agent()
    events, progress = await _events()
    reply = await agent.research(GLOWFISH_Q, depth="pages", language="en", progress=progress)
    assert reply.data["status"] == "ok"
    urls = [s["url"] for s in reply.data["sources"]]
    assert "https://science.example.org/varn-glowfish" in urls
    assert "4,200" in reply.text
    assert all(s["score"] >= 0.5 for s in reply.data["sources"])
    assert reply.data["providers"] == ["local"]
    assert sum(reply.data["cache"].values()) == reply.data["searches"] == len(reply.data["queries"])
    # The sources are listed at the end with title and URL, and the answer names them.
    tail = reply.text.split("**Sources**")[-1]
    assert "[Glowfish of Lake Varn](https://science.example.org/varn-glowfish)" in tail
    assert "According to Glowfish of Lake Varn" in reply.text
    # One status line per round of searches and per round of page reads (each line is an event on three hops),
    # naming every query and page of its round, in that order.
    stages = [kw["stage"] for _, kw in events]
    searched = [q for _, kw in events if kw["stage"] == "search" for q in kw["data"]["queries"]]
    assert len(searched) == reply.data["searches"] > stages.count("search") >= 1
    read = [u for _, kw in events if kw["stage"] == "read" for u in kw["data"]["urls"]]
    assert set(reply.data["pages_read"]) <= set(read) and len(reply.data["pages_read"]) > stages.count("read") >= 1
    assert stages.index("search") < stages.index("read")
    assert stages.count("answer") <= 1  # "writing the answer" only when composing takes a while
    # The gateway offers `fetch_pages`: one MCP call per round of reads, not one per page.
    fetches = [c for c in opened[0].calls if c.operation.startswith("fetch")]
    assert [c.operation for c in fetches] == ["fetch_pages"] * stages.count("read")
    assert set(reply.data["pages_read"]) <= {u for c in fetches for u in c.args["urls"]}
    # The gateway offers `search_many`: one MCP call per round of searches, carrying every query of the round.
    sent = [c for c in opened[0].calls if c.operation in ("web_search", "search_many")]
    assert len(sent) == stages.count("search") and any(c.operation == "search_many" for c in sent)
    assert [q for c in sent for q in c.args.get("queries") or [c.args["query"]]] == searched
    assert all(c.args["agent"] == "web_research" and c.args["region"] == "wt-wt" for c in sent)
    assert all(c.args["workload"] == "research" for c in sent)  # the gateway routes and bills by it


async def test_nonsense_question_gives_no_result(make_agent: Build) -> None:
    agent, _ = make_agent()
    reply = await agent.research("Zorblax quuxification flibbertigibbet hyperwomble?", language="ko")
    assert reply.data["status"] == "no_result"
    assert reply.data["sources"] == []
    assert reply.data["max_score"] < 0.5
    assert reply.text.startswith("관련 정보를 찾을 수 없습니다")


async def test_threshold_boundary_is_inclusive(web_deps: HubDeps, gateway: Any, embedding_server: str) -> None:
    """A result scoring exactly the threshold is kept; a threshold a hair above it gives no_result."""
    open_agent = WebResearchAgent(dataclasses.replace(
        web_deps, settings=make_settings(gateway.url, embedding_server, relevance_threshold=0.0)))
    question = "how many glowfish live in the varn lake during the frozen winter?"  # "frozen winter": no page
    reply = await open_agent.research(question, depth="snippets", language="en")
    best = reply.data["max_score"]
    assert 0 < best < 0.99

    at = WebResearchAgent(make_deps(make_settings(gateway.url, embedding_server, relevance_threshold=best)))
    kept = await at.research(question, depth="snippets", language="en")
    assert kept.data["status"] == "ok"
    assert min(s["score"] for s in kept.data["sources"]) >= best

    above = WebResearchAgent(make_deps(make_settings(gateway.url, embedding_server,
                                                     relevance_threshold=best + 0.001)))
    dropped = await above.research(question, depth="snippets", language="en")
    assert dropped.data["status"] == "no_result"
    assert dropped.data["sources"] == []


async def test_deep_read_picks_the_paragraph_with_the_answer(web_settings: Any, web_deps: HubDeps,
                                                             make_agent: Build) -> None:
    question = "What was the range of the lamp of the Old Harbor Lighthouse of Pellmouth?"
    async with SearchToolset.open(web_settings) as tools:
        found = await tools.search("Old Harbor Lighthouse Pellmouth")
        lighthouse = [h for h in found.hits if "lighthouse" in h.url]
        read = await read_pages(lighthouse, question, tools.fetch_pages, web_deps.embeddings)
    assert read.pages_read == ["https://history.example.org/old-harbor-lighthouse"]
    assert len(read.chunks) >= 3  # the page was split, not read whole
    assert "22 nautical miles" in read.chunks[0].text
    assert all("22 nautical miles" not in c.text for c in read.chunks[1:] if LIGHTHOUSE_ANSWER not in c.text)

    agent, _ = make_agent()
    reply = await agent.research(question, depth="pages", language="en")
    assert reply.data["status"] == "ok"
    assert "22 nautical miles" in reply.data["summary"]


async def test_deep_read_embeds_the_head_of_each_chunk_and_keeps_it_whole(web_settings: Any,
                                                                           web_deps: HubDeps) -> None:
    """The embedding that ranks a chunk reads its title and first EMBED_CHARS characters; the chunk itself
    (what the answer is composed from, and what the lexical score reads) stays whole."""
    sent: list[str] = []
    real = web_deps.embeddings

    class Recording:
        async def embed(self, texts: list[str], kind: str = "passage") -> list[list[float]]:
            sent.extend(texts)
            return await real.embed(texts)

    question = "What was the range of the lamp of the Old Harbor Lighthouse of Pellmouth?"
    async with SearchToolset.open(web_settings) as tools:
        found = await tools.search("Old Harbor Lighthouse Pellmouth")
        lighthouse = [h for h in found.hits if "lighthouse" in h.url]
        read = await read_pages(lighthouse, question, tools.fetch_pages, Recording())  # type: ignore[arg-type]
    assert sent[0] == question and len(sent) > len(read.chunks)  # every chunk ranked, the best kept
    assert all(len(text) <= EMBED_CHARS for text in sent[1:])
    assert any(len(c.text) > EMBED_CHARS for c in read.chunks)  # a long chunk, kept whole
    assert "22 nautical miles" in read.chunks[0].text


async def test_the_reader_ranks_the_sentences_an_answer_quotes(web_settings: Any, web_deps: HubDeps,
                                                                 make_agent: Build) -> None:
    """With the reader's question encoder (served beside e5), every sentence of the passages read gets the
    reader's cosine and the answer quotes the best first: the lamp's range leads the summary, and the reply
    carries the best cosine. A model other than e5 has no reader."""
    reader = reader_client(web_deps.embeddings)
    assert reader is not None
    minilm = SimpleNamespace(model="all-MiniLM-L6-v2", with_model=web_deps.embeddings.with_model)  # type: ignore[attr-defined]
    assert reader_client(minilm) is None  # type: ignore[arg-type]
    question = "What was the range of the lamp of the Old Harbor Lighthouse of Pellmouth?"
    async with SearchToolset.open(web_settings) as tools:
        found = await tools.search("Old Harbor Lighthouse Pellmouth")
        lighthouse = [h for h in found.hits if "lighthouse" in h.url]
        read = await read_pages(lighthouse, question, tools.fetch_pages, web_deps.embeddings)
    scores = await read_sentences(question, [c.text for c in read.chunks], web_deps.embeddings, reader)
    assert len(scores) > len(read.chunks)  # sentences, not chunks
    assert all(any(sentence in c.text for c in read.chunks) for sentence in scores)
    assert "22 nautical miles" in max(scores, key=lambda sentence: scores[sentence])

    agent, _ = make_agent()
    assert agent.reader is not None  # WEB_READER is on by default
    reply = await agent.research(question, depth="pages", language="en")
    assert reply.data["status"] == "ok" and reply.data["summary"].startswith(LIGHTHOUSE_ANSWER[:40])
    assert reply.data["reader_best"] == pytest.approx(max(scores.values()), abs=0.02)


async def test_a_tool_error_is_a_clear_error_and_a_tool_call_keeps_its_result(web_settings: Any) -> None:
    """The toolset calls the MCP tools' coroutines directly (not LangChain's `ainvoke`): an MCP error answer
    (the gateway refuses an over-long page list) still comes back as a clear error, and the next call on the same
    session works."""
    async with SearchToolset.open(web_settings) as tools:
        with pytest.raises(RuntimeError, match=r"fetch_pages failed: .*1 to 20 pages"):
            await tools._call("fetch_pages", tools.bound["fetch_pages"],
                              {"urls": [f"https://example.org/{i}" for i in range(21)]})
        found = await tools.search("Old Harbor Lighthouse Pellmouth")
        # A round of searches is one `search_many` call; a query the gateway refuses fails the round, or with
        # `return_exceptions` is that query's item.
        with pytest.raises(RuntimeError, match="search_many failed for '   '"):
            await tools.search_many(["Lake Varn glowfish", "   "])
        both = await tools.search_many(["Lake Varn glowfish", "   "], return_exceptions=True)
    assert any("lighthouse" in h.url for h in found.hits)
    assert [c.operation for c in tools.calls] == ["fetch_pages", "web_search", "search_many", "search_many"]
    assert both[0].query == "Lake Varn glowfish" and both[0].hits and isinstance(both[1], RuntimeError)


async def test_failing_and_slow_pages_are_skipped(web_settings: Any, web_deps: HubDeps,
                                                  page_server: PageServer) -> None:
    page_server.routes["/slow"] = (200, "<html><body><p>too late</p></body></html>", 30.0)
    page_server.routes["/broken"] = (500, "internal error", 0.0)
    redirects = {"https://slow.example.org/varn-glowfish-diary": f"{page_server.url}/slow",
                 "https://broken.example.org/varn-glowfish-census": f"{page_server.url}/broken"}
    opened: list[SearchToolset] = []
    agent = WebResearchAgent(web_deps, redirecting_factory(web_settings, redirects, opened), read_budget_s=3.0,
                             max_pages=8, hops=0)
    reply = await agent.research("Lake Varn glowfish", depth="pages", language="en")
    assert reply.data["status"] == "ok"
    skipped = reply.data["skipped_pages"]
    assert "budget" in skipped["https://slow.example.org/varn-glowfish-diary"]
    assert "https://broken.example.org/varn-glowfish-census" in skipped
    assert "https://science.example.org/varn-glowfish" in reply.data["pages_read"]
    assert not set(skipped) & {s["url"] for s in reply.data["sources"]}
    assert "/slow" in page_server.requested  # it really was asked for, and not waited for


async def test_prompt_injection_page_has_no_effect(make_agent: Build) -> None:
    agent, opened = make_agent()
    question = "What do Lake Varn glowfish emit?"
    reply = await agent.research(question, depth="pages", language="en")
    assert reply.data["status"] == "ok"
    read = reply.data["pages_read"]
    assert "https://evil.example.net/varn-glowfish-facts" in read  # the page was read…
    calls = opened[0].calls
    # …but no tool call went where it asked, and the format is unchanged (summary, details, sources).
    assert not any("attacker" in str(c.args) for c in calls)
    assert {c.operation for c in calls} <= {"web_search", "search_many", "fetch_page", "fetch_pages"}
    assert "PWNED" not in reply.text.replace(INJECTION, "")
    assert reply.text.rstrip().splitlines()[-1].startswith(f"{len(reply.data['sources'])}. [")
    assert "**Sources**" in reply.text and "**Details**" in reply.text


async def test_news_question_uses_news_search_with_time_range_and_region(make_agent: Build) -> None:
    agent, opened = make_agent()
    reply = await agent.research("최신 반도체 수출 뉴스 알려줘", language="ko")
    sent = opened[0].calls
    # News: `news_search`, or for a round of several queries `search_many` of kind news.
    assert (sent[0].operation, sent[0].args.get("kind", "news")) in {("news_search", "news"), ("search_many", "news")}
    assert sent[0].args["time_range"] == "week" and sent[0].args["region"] == "kr-kr"
    assert sent[0].args["workload"] == "latest"  # news: the freshest route the gateway has
    assert reply.data["status"] == "ok"
    assert reply.data["sources"][0]["url"] == "https://news.example.kr/chip-exports"
    assert "에 따르면" in reply.text and "**출처**" in reply.text


async def test_unreachable_gateway_is_a_clear_error(embedding_server: str) -> None:
    from ai_llm.common.a2a.server import free_port

    dead = f"http://127.0.0.1:{free_port()}"
    agent = WebResearchAgent(make_deps(make_settings(dead, embedding_server)))
    reply = await agent.research(GLOWFISH_Q, language="en")
    assert reply.data["status"] == "error"
    assert "unreachable" in reply.data["error"]
    assert reply.text.startswith("The search tools cannot be reached")


async def test_empty_question_and_bad_depth(make_agent: Build) -> None:
    agent, opened = make_agent()
    reply = await agent.research("   ", language="en")
    assert reply.data["status"] == "error" and not opened  # nothing was searched
    try:
        await agent.research(GLOWFISH_Q, depth="everything")  # type: ignore[arg-type]
    except ValueError as exc:
        assert "depth" in str(exc)
    else:
        raise AssertionError("a bad depth must be refused")


async def test_every_provider_failing_is_reported_as_an_outage(hub_env: dict[str, str], web_corpus: Path,
                                                               session_dir: Path, embedding_server: str) -> None:
    """A gateway whose only provider cannot be reached (connection refused, as with no network): the web agent
    says web search is unavailable and why in words ("연결 안 됨"), never "nothing relevant" and never the raw
    error, which the reply's data keeps (naming the provider)."""
    config = session_dir / "outage_search_config.yaml"
    config.write_text(f"chain: [serper]\ncache: {{enabled: false}}\nproviders:\n"
                      f"  serper: {{base_url: 'http://127.0.0.1:{free_port()}', timeout_s: 3}}\n", encoding="utf-8")
    gateway = start_gateway({**hub_env, "DATA_DIR": str(session_dir / "gw-outage"), "SEARCH_CONFIG": str(config),
                             "SERPER_API_KEY": "test-key"}, web_corpus, session_dir / "logs")
    try:
        agent = WebResearchAgent(make_deps(make_settings(gateway.url, embedding_server)))
        reply = await agent.research("latest Seoul subway ridership figures", language="ko")
    finally:
        stop_child(gateway.child)
    assert reply.data["status"] == "error" and reply.data["outage"] is True
    assert reply.text == "웹 검색을 사용할 수 없습니다 (연결 안 됨)" and reply.data["outage_kind"] == "unreachable"
    assert "serper" in reply.data["error"]
    assert "관련 정보를 찾을 수 없습니다" not in reply.text
