"""The model vendors' own web search as providers (`openai_web_search`, `gemini_grounding`) against a local
HTTP server speaking each vendor's documented wire format (the real APIs are unreachable here): what the
adapter sends, how it turns the answer's citations into results, its cost from the token usage, and its
errors; then through the gateway: cost, cache, fallback and the provider left out without a key."""

from __future__ import annotations

import json
import time
import uuid
from pathlib import Path
from typing import Any

import pytest

from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.search_gateway.config import load_config
from ai_llm.search_gateway.fetch import RedirectResolver
from ai_llm.search_gateway.gateway import SearchGateway
from ai_llm.search_gateway.models import ProviderError, RateLimited, SearchRequest
from ai_llm.search_gateway.providers.gemini_grounding import GeminiGroundingProvider
from ai_llm.search_gateway.providers.native import TokenPrices
from ai_llm.search_gateway.providers.openai_web_search import OpenAIWebSearchProvider, cited_span
from ai_llm.search_gateway.server import create_server
from tests.search_gateway.conftest import FakeAPI, write_corpus

OPENAI_PATH = "/v1/responses"
GEMINI_PATH = "/v1beta/models/gemini-2.5-flash:generateContent"
PRICES = TokenPrices(per_call=0.01, input_per_mtok=0.4, output_per_mtok=1.6)

METRO = "https://www.seoulmetro.co.kr/en/stats?utm_source=openai"
LINE2 = "https://en.wikipedia.org/wiki/Seoul_Subway_Line_2?utm_source=openai"
OPENAI_TEXT = ("Seoul's subway carried 7.2 million riders a day in 2025 ([seoulmetro.co.kr](" + METRO + ")). "
               "Line 2 is the **busiest** line ([en.wikipedia.org](" + LINE2 + ")). "
               "Ridership recovered after 2022 ([seoulmetro.co.kr](" + METRO + ")).\n\n"
               "Let me know if you want more figures.")


def _citation(text: str, url: str, title: str, site: str, nth: int = 0) -> dict[str, Any]:
    """A url_citation over the inline link `([site](url))` the model wrote into the text."""
    marker = f"([{site}]({url}))"
    start = -1
    for _ in range(nth + 1):
        start = text.index(marker, start + 1)
    return {"type": "url_citation", "url": url, "title": title, "start_index": start,
            "end_index": start + len(marker)}


def openai_reply(text: str = OPENAI_TEXT, annotations: list[dict[str, Any]] | None = None,
                 sources: list[str] | None = None) -> dict[str, Any]:
    """A Responses API reply with a web_search_call and a message (the documented shape)."""
    if annotations is None:
        annotations = [_citation(text, METRO, "Seoul Metro ridership", "seoulmetro.co.kr"),
                       _citation(text, LINE2, "Seoul Subway Line 2 - Wikipedia", "en.wikipedia.org"),
                       _citation(text, METRO, "seoulmetro.co.kr", "seoulmetro.co.kr", nth=1)]
    return {"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4.1-mini",
            "output": [
                {"type": "web_search_call", "id": "ws_1", "status": "completed",
                 "action": {"type": "search", "query": "seoul subway daily ridership",
                            "sources": [{"type": "url", "url": u} for u in (sources or [METRO, LINE2])]}},
                {"type": "message", "id": "msg_1", "status": "completed", "role": "assistant",
                 "content": [{"type": "output_text", "text": text, "annotations": annotations}]}],
            "usage": {"input_tokens": 1000, "output_tokens": 250, "total_tokens": 1250}}


GEMINI_TEXT = ("The Seoul subway carries over seven million passengers a day. Line 2 is the busiest line. "
               "Fares start at 1,400 won.")
REDIRECT = "https://vertexaisearch.cloud.google.com/grounding-api-redirect/"


def gemini_reply(text: str = GEMINI_TEXT, chunks: list[dict[str, Any]] | None = None,
                 supports: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """A generateContent reply grounded in Google Search (the documented shape)."""
    first, second = "The Seoul subway carries over seven million passengers a day.", "Line 2 is the busiest line."
    if chunks is None:
        chunks = [{"web": {"uri": REDIRECT + "AAA", "title": "seoulmetro.co.kr"}},
                  {"web": {"uri": REDIRECT + "BBB", "title": "wikipedia.org"}},
                  {"web": {"uri": REDIRECT + "CCC", "title": "uncited.example"}}]
    if supports is None:
        supports = [
            {"segment": {"startIndex": 0, "endIndex": len(first), "text": first},
             "groundingChunkIndices": [0, 1], "confidenceScores": [0.92, 0.71]},
            {"segment": {"startIndex": len(first) + 1, "endIndex": len(first) + 1 + len(second), "text": second},
             "groundingChunkIndices": [1], "confidenceScores": [0.83]}]
    return {"candidates": [{"content": {"role": "model", "parts": [{"text": text}]}, "finishReason": "STOP",
                            "groundingMetadata": {"webSearchQueries": ["seoul subway passengers per day"],
                                                  "groundingChunks": chunks, "groundingSupports": supports}}],
            "usageMetadata": {"promptTokenCount": 12, "candidatesTokenCount": 40, "toolUsePromptTokenCount": 300,
                              "totalTokenCount": 352},
            "modelVersion": "gemini-2.5-flash"}


def _openai(api: FakeAPI) -> OpenAIWebSearchProvider:
    return OpenAIWebSearchProvider("sk-test", base_url=api.url, prices=PRICES)


def _gemini(api: FakeAPI) -> GeminiGroundingProvider:
    return GeminiGroundingProvider("g-test", base_url=api.url,
                                   prices=TokenPrices(per_call=0.035, input_per_mtok=0.3, output_per_mtok=2.5))


# --- openai_web_search -----------------------------------------------------------------------------------
async def test_openai_sends_the_documented_request_and_returns_one_result_per_cited_source(
        fake_api: FakeAPI) -> None:
    fake_api.json_route(OPENAI_PATH, openai_reply())
    results = await _openai(fake_api).search(SearchRequest(query="Seoul subway daily ridership", region="kr"))
    sent = fake_api.last(OPENAI_PATH)
    assert sent.method == "POST" and sent.headers["authorization"] == "Bearer sk-test"
    assert sent.body == {"model": "gpt-4.1-mini", "input": "Seoul subway daily ridership",
                         "tools": [{"type": "web_search", "user_location": {"type": "approximate", "country": "KR"}}],
                         "include": ["web_search_call.action.sources"]}
    assert [r.url for r in results] == ["https://www.seoulmetro.co.kr/en/stats",
                                        "https://en.wikipedia.org/wiki/Seoul_Subway_Line_2"]
    metro, line2 = results
    assert metro.title == "Seoul Metro ridership" and metro.source == "seoulmetro.co.kr"
    # Both sentences citing the page, without the citation links; the closing remark cites nothing: dropped.
    assert metro.snippet == "Seoul's subway carried 7.2 million riders a day in 2025 … Ridership recovered after 2022"
    assert line2.snippet == "Line 2 is the busiest line" and line2.title == "Seoul Subway Line 2 - Wikipedia"
    assert 0 < line2.score < metro.score <= 1
    assert results.cost_usd == pytest.approx(0.01 + (1000 * 0.4 + 250 * 1.6) / 1e6)  # type: ignore[attr-defined]
    assert results.tokens == 1250  # type: ignore[attr-defined]


def test_openai_citation_over_prose_is_that_prose() -> None:
    text = "Busan is the largest port in Korea. It handles most container cargo."
    start = text.index("It handles")
    assert cited_span(text, start, len(text)) == "It handles most container cargo."
    assert cited_span(text, 5, 1) == "" and cited_span(text, None, 3) == ""


async def test_openai_reply_without_sources_is_no_results_not_an_error(fake_api: FakeAPI) -> None:
    reply = openai_reply(text="I can't find anything on that.", annotations=[], sources=[])
    reply["output"] = [reply["output"][1]]  # no search made
    fake_api.json_route(OPENAI_PATH, reply)
    results = await _openai(fake_api).search(SearchRequest(query="zorblax quintessence"))
    assert results == [] and results.cost_usd > 0.01  # type: ignore[attr-defined]  # the call is still billed


@pytest.mark.parametrize(("status", "error"), [(429, RateLimited), (500, ProviderError)])
async def test_openai_http_errors(fake_api: FakeAPI, status: int, error: type[Exception]) -> None:
    fake_api.json_route(OPENAI_PATH, {"error": {"message": "nope", "type": "server_error"}}, status=status)
    with pytest.raises(error, match=f"openai_web_search: HTTP {status}"):
        await _openai(fake_api).search(SearchRequest(query="x"))


async def test_openai_malformed_replies(fake_api: FakeAPI) -> None:
    provider = _openai(fake_api)
    fake_api.raw_route(OPENAI_PATH, "{not json", content_type="application/json")
    with pytest.raises(ProviderError, match="not JSON"):
        await provider.search(SearchRequest(query="x"))
    fake_api.json_route(OPENAI_PATH, {"id": "resp_1", "output": "oops"})
    with pytest.raises(ProviderError, match="no 'output' list"):
        await provider.search(SearchRequest(query="x"))
    fake_api.json_route(OPENAI_PATH, {"status": "failed", "error": {"message": "model overloaded"}, "output": []})
    with pytest.raises(ProviderError, match="model overloaded"):
        await provider.search(SearchRequest(query="x"))


# --- gemini_grounding ------------------------------------------------------------------------------------
async def test_gemini_sends_the_documented_request_and_returns_one_result_per_cited_chunk(
        fake_api: FakeAPI) -> None:
    fake_api.json_route(GEMINI_PATH, gemini_reply())
    results = await _gemini(fake_api).search(SearchRequest(query="Seoul subway passengers per day"))
    sent = fake_api.last(GEMINI_PATH)
    assert sent.method == "POST" and sent.headers["x-goog-api-key"] == "g-test"
    assert sent.body == {"contents": [{"role": "user", "parts": [{"text": "Seoul subway passengers per day"}]}],
                         "tools": [{"google_search": {}}]}
    assert [(r.url, r.title, r.source) for r in results] == [
        (REDIRECT + "AAA", "seoulmetro.co.kr", "seoulmetro.co.kr"),  # the redirect is kept, beside the site
        (REDIRECT + "BBB", "wikipedia.org", "wikipedia.org")]  # the uncited chunk and the uncited prose: dropped
    assert results[0].snippet == "The Seoul subway carries over seven million passengers a day."
    assert results[1].snippet == ("The Seoul subway carries over seven million passengers a day. … "
                                  "Line 2 is the busiest line.")
    assert (results[0].score, results[1].score) == (0.92, 0.83)  # the best confidence of its supports
    assert results.cost_usd == pytest.approx(0.035 + (312 * 0.3 + 40 * 2.5) / 1e6)  # type: ignore[attr-defined]
    assert results.tokens == 352  # type: ignore[attr-defined]


async def test_gemini_segments_without_text_are_read_by_byte_offsets(fake_api: FakeAPI) -> None:
    text = "한글은 1443년에 창제되었다. 1446년에 반포되었다."
    first = "한글은 1443년에 창제되었다."
    supports = [{"segment": {"startIndex": 0, "endIndex": len(first.encode())}, "groundingChunkIndices": [0]}]
    chunks = [{"web": {"uri": REDIRECT + "KO", "title": "ko.wikipedia.org"}}]
    fake_api.json_route(GEMINI_PATH, gemini_reply(text=text, chunks=chunks, supports=supports))
    results = await _gemini(fake_api).search(SearchRequest(query="한글 창제 연도"))
    assert [r.snippet for r in results] == [first] and results[0].score == 0.9  # no confidence: by rank


async def test_gemini_reply_without_grounding_is_no_results_not_an_error(fake_api: FakeAPI) -> None:
    reply = gemini_reply()
    del reply["candidates"][0]["groundingMetadata"]
    fake_api.json_route(GEMINI_PATH, reply)
    assert await _gemini(fake_api).search(SearchRequest(query="hello")) == []
    fake_api.json_route(GEMINI_PATH, {"promptFeedback": {"blockReason": "SAFETY"}})  # a blocked prompt
    assert await _gemini(fake_api).search(SearchRequest(query="hello")) == []


@pytest.mark.parametrize(("status", "error"), [(429, RateLimited), (500, ProviderError)])
async def test_gemini_http_errors(fake_api: FakeAPI, status: int, error: type[Exception]) -> None:
    fake_api.json_route(GEMINI_PATH, {"error": {"code": status, "message": "nope"}}, status=status)
    with pytest.raises(error, match=f"gemini_grounding: HTTP {status}"):
        await _gemini(fake_api).search(SearchRequest(query="x"))


async def test_gemini_malformed_replies(fake_api: FakeAPI) -> None:
    provider = _gemini(fake_api)
    fake_api.raw_route(GEMINI_PATH, "<html>bad gateway</html>", content_type="application/json")
    with pytest.raises(ProviderError, match="not JSON"):
        await provider.search(SearchRequest(query="x"))
    fake_api.json_route(GEMINI_PATH, {"candidates": {"0": {}}})
    with pytest.raises(ProviderError, match="candidates is not a list"):
        await provider.search(SearchRequest(query="x"))
    fake_api.json_route(GEMINI_PATH, [1, 2])
    with pytest.raises(ProviderError, match="not a JSON object"):
        await provider.search(SearchRequest(query="x"))


# --- through the gateway ---------------------------------------------------------------------------------
def _gateway(tmp_path: Path, pg_url: str, db: Database | None, config_text: str,
             **keys: Any) -> SearchGateway:
    settings = Settings(database_url=pg_url, data_dir=tmp_path / "data", _env_file=None,  # type: ignore[call-arg]
                        local_corpus=write_corpus(tmp_path / f"corpus-{uuid.uuid4().hex[:6]}.jsonl"), **keys)
    path = tmp_path / f"cfg-{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(config_text, encoding="utf-8")
    return SearchGateway.create(settings, load_config(path), db=db)


async def test_gateway_costs_caches_and_falls_back_from_native_search(tmp_path: Path, pg_url: str, db: Database,
                                                                      fake_api: FakeAPI) -> None:
    config = ("chain: [openai_web_search, gemini_grounding, local]\ncache: {semantic: false}\n"
              "fetch: {resolve_redirects: false}\n"
              "providers:\n  openai_web_search: {cost_per_call: 0.01, input_usd_per_mtok: 0.4,"
              " output_usd_per_mtok: 1.6}\n")
    gw = _gateway(tmp_path, pg_url, db, config, openai_web_search_api_key="sk", openai_web_search_base_url=fake_api.url,
                  gemini_api_key="g", gemini_base_url=fake_api.url)
    assert gw.chains["web"] == ["openai_web_search", "gemini_grounding", "local"]
    fake_api.json_route(OPENAI_PATH, openai_reply())
    query = f"Seoul subway daily ridership {uuid.uuid4().hex[:6]}"
    agent = f"native-{uuid.uuid4().hex[:6]}"
    first = await gw.search(query, agent=agent)
    assert first["provider"] == "openai_web_search" and first["cache"] == "miss" and first["branch"] == 0
    assert first["results"][0]["url"] == "https://www.seoulmetro.co.kr/en/stats"
    assert first["cost_usd"] == pytest.approx(0.0108)
    again = await gw.search(query, agent=agent)
    assert again["cache"] == "exact" and again["cost_usd"] == 0 and again["results"] == first["results"]
    assert len([r for r in fake_api.requests if r.path == OPENAI_PATH]) == 1
    await gw.flush()
    rows = await db.fetch("SELECT provider, cache, cost_usd FROM search_telemetry WHERE agent = %s ORDER BY id",
                          (agent,))
    assert [(r["provider"], r["cache"]) for r in rows] == [("openai_web_search", "miss"),
                                                           ("openai_web_search", "exact")]
    assert rows[0]["cost_usd"] == pytest.approx(0.0108)

    # OpenAI fails: Gemini answers (branch 1), the failed call billed at the tool's price.
    fake_api.json_route(OPENAI_PATH, {"error": {"message": "boom"}}, status=500)
    fake_api.json_route(GEMINI_PATH, gemini_reply())
    out = await gw.search(f"Seoul subway passengers {uuid.uuid4().hex[:6]}")
    assert out["provider"] == "gemini_grounding" and out["branch"] == 1 and "HTTP 500" in out["errors"][0]
    assert out["results"][0]["source"] == "seoulmetro.co.kr"
    assert out["cost_usd"] == pytest.approx(0.01 + 0.035 + (312 * 0.3 + 40 * 2.5) / 1e6, abs=1e-6)

    # Both rate limited or malformed: the local corpus answers.
    fake_api.json_route(OPENAI_PATH, {"error": {"message": "slow down"}}, status=429)
    fake_api.raw_route(GEMINI_PATH, "{oops", content_type="application/json")
    out = await gw.search(f"Port of Busan container cargo {uuid.uuid4().hex[:6]}")
    assert out["provider"] == "local" and out["branch"] == 2
    assert "rate limited" in out["errors"][0] and "not JSON" in out["errors"][1]

    # A reply citing nothing is "no results": the next provider answers, nothing is an outage.
    fake_api.json_route(OPENAI_PATH, openai_reply(text="Nothing found.", annotations=[], sources=[]))
    fake_api.json_route(GEMINI_PATH, gemini_reply(chunks=[], supports=[]))
    out = await gw.search(f"Kimchi napa cabbage {uuid.uuid4().hex[:6]}")
    assert out["provider"] == "local" and out["errors"] == ["openai_web_search: no results",
                                                            "gemini_grounding: no results"]


async def test_native_providers_without_a_key_are_skipped(tmp_path: Path, pg_url: str) -> None:
    gw = _gateway(tmp_path, pg_url, None, "chain: [openai_web_search, gemini_grounding, local]\n"
                  "cache: {enabled: false}\n")
    assert gw.chains["web"] == ["local"]
    assert gw.skipped == {"openai_web_search": "no OPENAI_WEB_SEARCH_API_KEY", "gemini_grounding": "no GEMINI_API_KEY"}
    out = await gw.search("Seoul subway passengers")
    assert out["provider"] == "local" and out["branch"] == 0


# --- the model's whole answer, kept apart ------------------------------------------------------------------
async def test_the_whole_answer_is_kept_apart_from_the_cited_spans(fake_api: FakeAPI) -> None:
    fake_api.json_route(OPENAI_PATH, openai_reply())
    results = await _openai(fake_api).search(SearchRequest(query="Seoul subway daily ridership"))
    assert results.answer == OPENAI_TEXT  # type: ignore[attr-defined]
    # The closing remark cites nothing: in the answer, in no result.
    assert "Let me know" in results.answer and not any("Let me know" in r.snippet for r in results)  # type: ignore[attr-defined]
    fake_api.json_route(GEMINI_PATH, gemini_reply())
    results = await _gemini(fake_api).search(SearchRequest(query="Seoul subway passengers per day"))
    assert results.answer == GEMINI_TEXT  # type: ignore[attr-defined]
    assert "1,400 won" in results.answer and not any("won" in r.snippet for r in results)  # type: ignore[attr-defined]
    fake_api.json_route(GEMINI_PATH, {"promptFeedback": {"blockReason": "SAFETY"}})
    assert (await _gemini(fake_api).search(SearchRequest(query="x"))).answer is None  # type: ignore[attr-defined]


async def test_provider_answer_comes_with_a_native_search_only_and_is_cached(
        tmp_path: Path, pg_url: str, db: Database, fake_api: FakeAPI) -> None:
    gw = _gateway(tmp_path, pg_url, db, "chain: [openai_web_search, local]\ncache: {semantic: false}\n",
                  openai_web_search_api_key="sk", openai_web_search_base_url=fake_api.url)
    fake_api.json_route(OPENAI_PATH, openai_reply())
    query = f"Seoul subway daily ridership {uuid.uuid4().hex[:6]}"
    first = await gw.search(query)
    assert first["provider"] == "openai_web_search" and first["provider_answer"] == OPENAI_TEXT
    assert all("Let me know" not in r["snippet"] for r in first["results"])
    again = await gw.search(query)
    assert again["cache"] == "exact" and again["provider_answer"] == OPENAI_TEXT
    assert again["results"] == first["results"]
    # Another provider served: no provider_answer key at all.
    fake_api.json_route(OPENAI_PATH, {"error": {"message": "boom"}}, status=500)
    local = await gw.search(f"Port of Busan container cargo {uuid.uuid4().hex[:6]}")
    assert local["provider"] == "local" and "provider_answer" not in local
    # The MCP tool reply carries it as it is.
    fake_api.json_route(OPENAI_PATH, openai_reply())
    mcp = create_server(gw.settings, gateway=gw)
    content = await mcp.call_tool("web_search", {"query": f"Seoul subway riders {uuid.uuid4().hex[:6]}"})
    out = json.loads(list(content)[0].text)  # type: ignore[union-attr]
    assert out["provider"] == "openai_web_search" and out["provider_answer"] == OPENAI_TEXT
    await gw.flush()


# --- Gemini's redirects ----------------------------------------------------------------------------------
def _redirecting(fake_api: FakeAPI) -> list[dict[str, Any]]:
    """Chunks whose URIs are redirects on the local server: AAA and BBB answer 302 (one with a relative
    Location), CCC answers 404 (not a redirect)."""
    fake_api.raw_route("/grounding-api-redirect/AAA", "", status=302,
                       headers={"location": "https://www.seoulmetro.co.kr/en/stats"})
    fake_api.raw_route("/grounding-api-redirect/BBB", "", status=302, headers={"location": "/wiki/Line_2"})
    fake_api.raw_route("/grounding-api-redirect/CCC", "gone", status=404)
    base = fake_api.url + "/grounding-api-redirect/"
    return [{"web": {"uri": base + "AAA", "title": "seoulmetro.co.kr"}},
            {"web": {"uri": base + "BBB", "title": "wikipedia.org"}},
            {"web": {"uri": base + "CCC", "title": "korail.com"}}]


def _supports_all() -> list[dict[str, Any]]:
    first = "The Seoul subway carries over seven million passengers a day."
    return [{"segment": {"startIndex": 0, "endIndex": len(first), "text": first},
             "groundingChunkIndices": [0, 1, 2], "confidenceScores": [0.9, 0.8, 0.7]}]


async def test_gemini_redirects_are_resolved_with_one_request_each(fake_api: FakeAPI) -> None:
    chunks = _redirecting(fake_api)
    fake_api.json_route(GEMINI_PATH, gemini_reply(chunks=chunks, supports=_supports_all()))
    provider = GeminiGroundingProvider("g", base_url=fake_api.url, resolver=RedirectResolver(allow_private=True))
    results = await provider.search(SearchRequest(query="Seoul subway passengers per day"))
    assert [(r.url, r.title, r.source) for r in results] == [
        ("https://www.seoulmetro.co.kr/en/stats", "seoulmetro.co.kr", "seoulmetro.co.kr"),
        (fake_api.url + "/wiki/Line_2", "wikipedia.org", "127.0.0.1"),
        (chunks[2]["web"]["uri"], "korail.com", "korail.com")]  # not a redirect: kept beside the site title
    asked = [r.path for r in fake_api.requests if r.path.startswith(("/grounding", "/wiki"))]
    assert sorted(asked) == ["/grounding-api-redirect/AAA", "/grounding-api-redirect/BBB",
                             "/grounding-api-redirect/CCC"]  # one request each, never followed
    # Only the results the search returns are resolved.
    fake_api.requests.clear()
    results = await provider.search(SearchRequest(query="Seoul subway", max_results=1))
    assert results[0].url == "https://www.seoulmetro.co.kr/en/stats" and results[1].url == chunks[1]["web"]["uri"]
    assert [r.path for r in fake_api.requests if r.path.startswith("/grounding")] == ["/grounding-api-redirect/AAA"]


async def test_gemini_redirects_are_kept_when_resolution_fails(fake_api: FakeAPI) -> None:
    chunks = _redirecting(fake_api)
    fake_api.json_route(GEMINI_PATH, gemini_reply(chunks=chunks, supports=_supports_all()))
    uris = [c["web"]["uri"] for c in chunks]
    # The fetch guard refuses the loopback host: nothing is asked, every redirect kept.
    guarded = GeminiGroundingProvider("g", base_url=fake_api.url, resolver=RedirectResolver(allow_private=False))
    results = await guarded.search(SearchRequest(query="Seoul subway"))
    assert [r.url for r in results] == uris and [r.source for r in results] == [
        "seoulmetro.co.kr", "wikipedia.org", "korail.com"]
    assert not [r for r in fake_api.requests if r.path.startswith("/grounding")]

    # A redirect slower than the budget keeps its URL; the others are still resolved.
    def slow(_: Any) -> tuple[int, Any, str]:
        time.sleep(1.0)
        return 302, "", "text/plain"
    fake_api.routes["/grounding-api-redirect/BBB"] = slow
    budget = GeminiGroundingProvider("g", base_url=fake_api.url,
                                     resolver=RedirectResolver(allow_private=True, timeout_s=0.3))
    results = await budget.search(SearchRequest(query="Seoul subway"))
    assert [r.url for r in results] == ["https://www.seoulmetro.co.kr/en/stats", uris[1], uris[2]]


async def test_the_gateway_resolves_redirects_only_when_its_config_allows(tmp_path: Path, pg_url: str,
                                                                          fake_api: FakeAPI) -> None:
    chunks = _redirecting(fake_api)
    fake_api.json_route(GEMINI_PATH, gemini_reply(chunks=chunks, supports=_supports_all()))
    keys = {"gemini_api_key": "g", "gemini_base_url": fake_api.url, "fetch_allow_private": True}
    allowed = _gateway(tmp_path, pg_url, None, "chain: [gemini_grounding, local]\ncache: {enabled: false}\n"
                       "fetch: {redirect_timeout_s: 2}\n", **keys)
    out = await allowed.search("Seoul subway passengers per day")
    assert out["provider"] == "gemini_grounding" and out["provider_answer"] == GEMINI_TEXT
    assert out["results"][0]["url"] == "https://www.seoulmetro.co.kr/en/stats"
    fake_api.requests.clear()
    disabled = _gateway(tmp_path, pg_url, None, "chain: [gemini_grounding, local]\ncache: {enabled: false}\n"
                        "fetch: {resolve_redirects: false}\n", **keys)
    out = await disabled.search("Seoul subway passengers per day")
    assert [(r["url"], r["title"]) for r in out["results"]] == [(c["web"]["uri"], c["web"]["title"]) for c in chunks]
    assert [r.path for r in fake_api.requests] == [GEMINI_PATH]  # nothing but the search itself
