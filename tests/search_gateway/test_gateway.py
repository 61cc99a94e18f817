"""SearchGateway in-process over the real Postgres and embedding server: fallback chain, exact and
semantic cache, TTLs, partitions, telemetry and the dashboard summary."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest

from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.search_gateway.config import load_config
from ai_llm.search_gateway.gateway import SearchGateway
from ai_llm.search_gateway.telemetry import telemetry_summary
from tests.search_gateway.conftest import PAGES, FakeAPI, write_corpus


def _gateway(tmp_path: Path, settings: Settings, db: Database, embeddings: OpenAIEmbeddings | None,
             config_text: str, pages: list[dict[str, object]] | None = None, **overrides: object) -> SearchGateway:
    corpus = write_corpus(tmp_path / f"corpus-{uuid.uuid4().hex[:6]}.jsonl", pages)
    path = tmp_path / f"cfg-{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(config_text, encoding="utf-8")
    local_settings = settings.model_copy(update={"local_corpus": corpus, "serper_api_key": "k", **overrides})
    return SearchGateway.create(local_settings, load_config(path), db=db, embeddings=embeddings)


async def _count(db: Database, sql: str, *args: object) -> int:
    async with db.connection() as conn:
        cur = await conn.execute(sql, args)  # type: ignore[arg-type]
        row = await cur.fetchone()
    return int(next(iter(row.values())))


async def test_exact_hit_skips_the_provider_and_is_recorded(tmp_path: Path, settings: Settings, db: Database,
                                                            embeddings: OpenAIEmbeddings) -> None:
    gw = _gateway(tmp_path, settings, db, embeddings, "chain: [local]\n")
    agent = f"tester-{uuid.uuid4().hex[:6]}"
    first = await gw.search("Seoul subway passengers", agent=agent)
    assert first["cache"] == "miss" and first["provider"] == "local" and first["branch"] == 0
    assert first["results"][0]["url"] == "https://example.org/seoul-subway"
    calls = gw.local.calls  # type: ignore[union-attr]
    again = await gw.search("  seoul SUBWAY passengers?? ", agent=agent)
    assert again["cache"] == "exact" and gw.local.calls == calls  # type: ignore[union-attr]
    assert again["results"] == first["results"] and again["cost_usd"] == 0
    other_params = await gw.search("Seoul subway passengers", max_results=2, agent=agent)
    assert other_params["cache"] == "miss" and len(other_params["results"]) <= 2
    await gw.flush()
    rows = await _count(db, "SELECT count(*) FROM search_telemetry WHERE agent = %s", agent)
    hits = await _count(db, "SELECT count(*) FROM search_telemetry WHERE agent = %s AND cache = 'exact'", agent)
    assert (rows, hits) == (3, 1)
    counted = await _count(db, "SELECT hits FROM search_cache WHERE partition = %s AND params_key LIKE %s",
                           gw.local.partition, "%n=6%")  # type: ignore[union-attr]
    assert counted == 1


async def test_background_writes_under_load_keep_every_row_and_every_hit(
        tmp_path: Path, settings: Settings, db: Database, embeddings: OpenAIEmbeddings) -> None:
    """Twenty concurrent hits on one cached query: every search gets its own telemetry row (its latency, its
    cache outcome) from the background writer, and the cache entry counts all twenty hits."""
    gw = _gateway(tmp_path, settings, db, embeddings, "chain: [local]\n")
    agent = f"tester-{uuid.uuid4().hex[:6]}"
    await gw.search("Seoul subway passengers", agent=agent)
    answers = await asyncio.gather(*(gw.search("seoul subway passengers" + "?" * i, agent=agent)
                                     for i in range(20)))
    assert all(a["cache"] == "exact" for a in answers)
    await gw.flush()
    rows = await db.fetch("SELECT cache, latency_ms FROM search_telemetry WHERE agent = %s ORDER BY id", (agent,))
    assert [r["cache"] for r in rows] == ["miss"] + ["exact"] * 20
    assert sorted(r["latency_ms"] for r in rows[1:]) == pytest.approx(sorted(a["latency_ms"] for a in answers),
                                                                      abs=0.006)  # answers round to 0.01 ms
    counted = await _count(db, "SELECT hits FROM search_cache WHERE partition = %s AND params_key LIKE %s",
                           gw.local.partition, "%n=6%")  # type: ignore[union-attr]
    assert counted == 20


async def test_search_many_answers_each_query_in_order_and_shares_the_cache_work(
        tmp_path: Path, settings: Settings, db: Database, embeddings: OpenAIEmbeddings) -> None:
    """A round of searches in one call: one answer per query in the order asked, each what its own `search`
    gives (cache included); a refused query is an error entry; the queries that miss the exact cache are embedded
    together, in one request."""
    gw = _gateway(tmp_path, settings, db, embeddings, "chain: [local]\ncache: {embed_timeout_s: 120}\n")
    agent = f"tester-{uuid.uuid4().hex[:6]}"
    cached = await gw.search("Seoul subway passengers", agent=agent)
    requests, searched = embeddings.calls, gw.local.calls  # type: ignore[union-attr]
    queries = ["  seoul SUBWAY passengers?? ", "Kimchi fermented napa cabbage", "   ", "Port of Busan container ships"]
    responses = (await gw.search_many(queries, agent=agent))["responses"]
    assert len(responses) == 4
    assert responses[0]["cache"] == "exact" and responses[0]["results"] == cached["results"]
    assert responses[1]["cache"] == "miss" and responses[1]["results"][0]["url"] == "https://example.org/kimchi"
    assert responses[2]["query"] == "   " and "empty" in responses[2]["error"] and "results" not in responses[2]
    assert responses[3]["cache"] == "miss" and responses[3]["results"][0]["url"] == "https://example.org/busan-port"
    assert embeddings.calls == requests + 1  # the two misses, one embedding request
    assert gw.local.calls == searched + 2  # type: ignore[union-attr]
    # Asked again, one by one: the round's answers were cached like any search's.
    again = await gw.search("Kimchi fermented napa cabbage", agent=agent)
    assert again["cache"] == "exact" and again["results"] == responses[1]["results"]
    await gw.flush()
    assert await _count(db, "SELECT count(*) FROM search_telemetry WHERE agent = %s", agent) == 5
    for bad in ([], [f"q{i}" for i in range(9)], "one query", ["ok", 3]):
        with pytest.raises(ValueError, match="1 to 8 strings"):
            await gw.search_many(bad)


async def test_semantic_hit_on_a_paraphrase_but_not_on_another_question(
        tmp_path: Path, settings: Settings, db: Database, embeddings: OpenAIEmbeddings) -> None:
    gw = _gateway(tmp_path, settings, db, embeddings, "chain: [local]\ncache: {semantic_threshold: 0.9, embed_timeout_s: 120}\n")
    await gw.search("How many passengers does the Seoul subway carry each day?")
    calls = gw.local.calls  # type: ignore[union-attr]
    para = await gw.search("How many passengers does the Seoul subway carry every day?")
    assert para["cache"] == "semantic" and gw.local.calls == calls  # type: ignore[union-attr]
    assert para["cached_query"] == "How many passengers does the Seoul subway carry each day?"
    assert "semantic cache hit" in para["notice"]
    different = await gw.search("What is the largest port in South Korea?")
    assert different["cache"] == "miss" and gw.local.calls == calls + 1  # type: ignore[union-attr]


GDP_FX_PAGES = [
    *PAGES,
    {"url": "https://example.org/korea-gdp", "title": "Korea GDP growth rate",
     "content": "Korea's GDP growth rate was 1.4 percent in 2023 and 2.0 percent in 2024."},
    {"url": "https://example.kr/fx", "title": "원달러 환율과 원엔 환율",
     "content": "오늘 원달러 환율은 1,380원, 원엔 환율은 100엔당 910원이다."},
]


async def test_semantic_cache_serves_a_paraphrase_but_not_a_near_miss(
        tmp_path: Path, settings: Settings, db: Database, embeddings: OpenAIEmbeddings) -> None:
    gw = _gateway(tmp_path, settings, db, embeddings,
                  "chain: [local]\ncache: {semantic_threshold: 0.85, embed_timeout_s: 120}\n", GDP_FX_PAGES)
    paraphrase = "What was the Korea GDP growth rate in 2023?"
    assert (await gw.search(paraphrase))["cache"] == "miss"
    calls = gw.local.calls  # type: ignore[union-attr]
    # cosine 0.90 to the cached paraphrase, another year: asked from the provider, then cached too
    near_miss = await gw.search("Korea GDP growth rate 2024")
    assert near_miss["cache"] == "miss" and gw.local.calls == calls + 1  # type: ignore[union-attr]
    # nearest cached query: the 2024 one (cosine 0.98), refused; the next candidate asks the same thing
    asked = await gw.search("Korea GDP growth rate 2023")
    assert asked["cache"] == "semantic" and asked["cached_query"] == paraphrase
    assert gw.local.calls == calls + 1  # type: ignore[union-attr]

    assert (await gw.search("원달러 환율 오늘"))["cache"] == "miss"
    other_currency = await gw.search("원엔 환율 오늘")  # cosine 0.92
    assert other_currency["cache"] == "miss"
    particles = await gw.search("오늘의 원달러 환율 좀 알려줘")
    assert particles["cache"] == "semantic" and particles["cached_query"] == "원달러 환율 오늘"


async def test_without_the_guard_cosine_alone_serves_the_near_miss(
        tmp_path: Path, settings: Settings, db: Database, embeddings: OpenAIEmbeddings) -> None:
    gw = _gateway(tmp_path, settings, db, embeddings, "chain: [local]\ncache: {semantic_threshold: 0.93, "
                  "semantic_guard: false, embed_timeout_s: 120}\n", GDP_FX_PAGES)
    await gw.search("Korea GDP growth rate 2023")
    wrong = await gw.search("Korea GDP growth rate 2024")
    assert wrong["cache"] == "semantic" and wrong["cached_query"] == "Korea GDP growth rate 2023"


async def test_fallback_on_error_rate_limit_timeout_and_empty(tmp_path: Path, settings: Settings, db: Database,
                                                             fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"error": "boom"}, status=500)
    config = f"chain: [serper, local]\ncache: {{enabled: false}}\nproviders:\n  serper: {{base_url: '{fake_api.url}'}}\n"
    gw = _gateway(tmp_path, settings, db, None, config)
    out = await gw.search("Port of Busan container cargo")
    assert out["provider"] == "local" and out["branch"] == 1
    assert out["errors"] and "HTTP 500" in out["errors"][0] and "fallback" in out["notice"]
    assert out["cost_usd"] == pytest.approx(0.001), out  # the failed serper call was still billed

    fake_api.json_route("/search", {"message": "quota"}, status=429)
    out = await gw.search("Port of Busan container cargo")
    assert out["provider"] == "local" and "rate limited" in out["errors"][0] and out["cost_usd"] == 0

    fake_api.json_route("/search", {"organic": []})
    out = await gw.search("Port of Busan container cargo")
    assert out["provider"] == "local" and out["errors"] == ["serper: no results"]

    fake_api.json_route("/search", {"organic": [{"title": "slow", "link": "https://slow.example/"}]}, delay_s=3)
    slow = config.replace("base_url", "timeout_s: 0.3, base_url")
    gw = _gateway(tmp_path, settings, db, None, slow)
    out = await gw.search("Port of Busan container cargo")
    assert out["provider"] == "local" and "timed out" in out["errors"][0]

    fake_api.json_route("/search", {"organic": [{"title": "Busan", "link": "https://busan.example/"}]})
    out = await gw.search("Port of Busan container cargo")
    assert out["provider"] == "serper" and out["branch"] == 0 and out["errors"] == []


async def test_every_provider_failing_gives_an_empty_answer_not_an_exception(
        tmp_path: Path, settings: Settings, db: Database) -> None:
    gw = _gateway(tmp_path, settings, db, None, "chain: [local]\ncache: {enabled: false}\n")
    out = await gw.search("zorblax quintessence")
    assert out["results"] == [] and out["provider"] is None and out["notice"] == "no provider returned results"
    assert out["outage"] is False  # the provider searched and found nothing: not an outage


async def test_every_provider_failing_is_an_outage_naming_each_provider(
        tmp_path: Path, settings: Settings, db: Database, fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"error": "boom"}, status=500)
    config = (f"chain: [serper, exa]\ncache: {{enabled: false}}\nproviders:\n  serper: {{base_url: '{fake_api.url}'}}\n"
              f"  exa: {{base_url: '{fake_api.url}'}}\n")
    gw = _gateway(tmp_path, settings, db, None, config, exa_api_key="k")
    out = await gw.search("Port of Busan container cargo", agent="outage-test")
    assert out["outage"] is True and out["results"] == [] and out["provider"] is None
    assert out["notice"].startswith("search unavailable: ") and "serper" in out["notice"] and "exa" in out["notice"]
    # Telemetry counts it as a failure (its error), not as a search that found nothing.
    await gw.flush()
    rows = await db.fetch("SELECT error FROM search_telemetry WHERE agent = 'outage-test'")
    assert rows and all(r["error"] and "serper" in r["error"] for r in rows)


async def test_partitions_never_overwrite_each_other(tmp_path: Path, settings: Settings, db: Database,
                                                     fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"organic": [{"title": "S", "link": "https://serper-result.example/"}]})
    query = f"kimchi fermented cabbage {uuid.uuid4().hex[:6]}"
    both = f"chain: [serper, local]\ncache: {{semantic: false}}\nproviders:\n  serper: {{base_url: '{fake_api.url}'}}\n"
    pages = [*PAGES, {"url": "https://example.org/q", "title": query, "content": query}]
    gw_serper = _gateway(tmp_path, settings, db, None, both, pages)
    assert (await gw_serper.search(query))["provider"] == "serper"
    gw_local = _gateway(tmp_path, settings, db, None, "chain: [local]\ncache: {semantic: false}\n", pages)
    local = await gw_local.search(query)
    assert local["cache"] == "miss" and local["provider"] == "local"  # serper's entry is not reused by local
    rows = await _count(db, "SELECT count(*) FROM search_cache WHERE query = %s", query)
    assert rows == 2
    again = await gw_serper.search(query)
    assert again["cache"] == "exact" and again["provider"] == "serper"


async def test_expired_entries_are_not_served(tmp_path: Path, settings: Settings, db: Database) -> None:
    gw = _gateway(tmp_path, settings, db, None, "chain: [local]\ncache: {semantic: false}\n")
    query = "Semiconductor exports November memory chip"
    await gw.search(query, kind="news")
    assert (await gw.search(query, kind="news"))["cache"] == "exact"
    ttl = await _count(db, "SELECT extract(epoch FROM expires_at - created_at)::int FROM search_cache "
                           "WHERE partition = %s AND kind = 'news'", gw.local.partition)  # type: ignore[union-attr]
    assert ttl == 3600  # news is the fresh class
    async with db.connection() as conn:
        await conn.execute("UPDATE search_cache SET expires_at = now() - interval '1 second' WHERE partition = %s",
                           (gw.local.partition,))  # type: ignore[union-attr]
    assert (await gw.search(query, kind="news"))["cache"] == "miss"


async def test_bad_input(tmp_path: Path, settings: Settings, db: Database) -> None:
    gw = _gateway(tmp_path, settings, db, None, "chain: [local]\ncache: {enabled: false}\n")
    for kwargs, message in [({"query": ""}, "empty"), ({"query": "x", "time_range": "decade"}, "time_range"),
                            ({"query": "x", "max_results": "many"}, "max_results"),
                            ({"query": "x", "max_results": 0}, "at least 1")]:
        with pytest.raises(ValueError, match=message):
            await gw.search(**kwargs)  # type: ignore[arg-type]
    long = "Seoul subway passengers " + " ".join(f"filler{i}" for i in range(120))
    out = await gw.search(long, max_results=50)
    assert "truncated" in out["notice"] and "capped" in out["notice"] and len(out["query"]) <= 400


async def test_telemetry_summary_shape_and_numbers(tmp_path: Path, settings: Settings, db: Database) -> None:
    gw = _gateway(tmp_path, settings, db, None, "chain: [local]\ncache: {semantic: false}\n"
                  "providers:\n  local: {cost_per_call: 0.01}\n")
    agent = f"dash-{uuid.uuid4().hex[:6]}"
    for _ in range(2):
        await gw.search("Kimchi napa cabbage radish", agent=agent)
    await gw.fetch_page("https://example.org/kimchi", agent=agent)
    await gw.flush()
    summary = await telemetry_summary(db, hours=1)
    local = next(p for p in summary["providers"] if p["provider"] == "local")
    assert set(local) >= {"provider", "requests", "spend_usd", "hit_rate", "p50_ms", "p95_ms"}
    assert local["requests"] >= 2 and 0 < local["hit_rate"] < 1 and local["spend_usd"] >= 0.01
    assert local["p95_ms"] >= local["p50_ms"] >= 0
    mine = [r for r in summary["recent"] if r["agent"] == agent]
    assert [r["cache"] for r in mine] == ["miss", "exact", "miss"]  # newest first: fetch, hit, miss
    assert mine[0]["tool"] == "fetch_page" and mine[1]["cost_usd"] == 0 and mine[2]["cost_usd"] == 0.01
    assert all(set(s) == {"bucket", "provider", "requests", "hits", "spend_usd", "p50_ms"} for s in summary["series"])
    assert sum(s["requests"] for s in summary["series"] if s["provider"] == "local") == local["requests"]
