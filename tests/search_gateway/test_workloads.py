"""Routing per workload: the config's `workloads` (chain, depth, TTL class), the `workload` argument of the
tools, the cache shared across workloads, and spend per workload in the telemetry summary."""

from __future__ import annotations

import json
import uuid
from pathlib import Path
from typing import Any

import pytest

from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database
from ai_llm.search_gateway.cli import _stats_table
from ai_llm.search_gateway.config import ConfigError, load_config
from ai_llm.search_gateway.gateway import SearchGateway
from ai_llm.search_gateway.server import create_server
from ai_llm.search_gateway.telemetry import telemetry_summary
from tests.search_gateway.conftest import FakeAPI, write_corpus
from tests.search_gateway.test_native_providers import OPENAI_PATH, openai_reply

SERPER = {"organic": [{"title": f"Busan {i}", "link": f"https://busan{i}.example/", "snippet": "port"}
                      for i in range(5)]}


def _config(tmp_path: Path, text: str) -> Path:
    path = tmp_path / f"cfg-{uuid.uuid4().hex[:6]}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _gateway(tmp_path: Path, text: str, db: Database | None = None, pg_url: str | None = None,
             **settings: Any) -> SearchGateway:
    base = Settings(database_url=pg_url, data_dir=tmp_path / "data", _env_file=None,  # type: ignore[call-arg]
                    local_corpus=write_corpus(tmp_path / f"corpus-{uuid.uuid4().hex[:6]}.jsonl"), **settings)
    return SearchGateway.create(base, load_config(_config(tmp_path, text)), db=db)


def test_workloads_are_read_and_checked(tmp_path: Path) -> None:
    config = load_config(_config(tmp_path, "chain: [local]\nworkloads:\n"
                                           "  latest: {chain: [openai_web_search, default], ttl: fresh}\n"
                                           "  fact_check: {max_results: 10}\n  research:\n"))
    latest, fact_check, research = (config.workloads[n] for n in ("latest", "fact_check", "research"))
    assert (latest.chain, latest.max_results, latest.ttl) == (["openai_web_search", "default"], None, "fresh")
    assert (fact_check.chain, fact_check.max_results, research.chain) == (None, 10, None)
    assert load_config(None).workloads["latest"].chain == ["openai_web_search", "gemini_grounding", "default"]
    for text, message in [
        ("workloads: [latest]\n", "must be a mapping"),
        ("workloads:\n  Latest: {}\n", "lower-case"),
        ("workloads:\n  latest: {chain: [serper, bingo]}\n", r"cfg-\w+\.yaml:3: unknown provider 'bingo'"),
        ("workloads:\n  latest: {chain: auto}\n", "must list providers"),
        ("workloads:\n  latest: {max_results: 50}\n", "from 1 to 20"),
        ("workloads:\n  latest: {ttl: hourly}\n", "general or fresh"),
        ("workloads:\n  latest: {depth: 3}\n", "unknown setting 'depth'"),
    ]:
        with pytest.raises(ConfigError, match=message):
            load_config(_config(tmp_path, "chain: [local]\n" + text))


async def test_a_workload_picks_its_chain_and_depth(tmp_path: Path, fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", SERPER)
    fake_api.json_route("/news", {"news": SERPER["organic"]})
    gw = _gateway(tmp_path, "chain: [local]\ncache: {enabled: false}\n"
                            f"providers:\n  serper: {{base_url: '{fake_api.url}'}}\n"
                            "workloads:\n  port_news: {chain: [serper, default], max_results: 2}\n"
                            "  deep: {max_results: 9}\n", serper_api_key="k")
    assert gw.workload_chains["port_news"] == {"web": ["serper", "local"], "news": ["serper", "local"]}
    routed = await gw.search("Port of Busan container cargo", workload="port_news")
    assert routed["provider"] == "serper" and len(routed["results"]) == 2 and routed["workload"] == "port_news"
    assert fake_api.last("/search").body["num"] == 2
    asked = await gw.search("Port of Busan container cargo", max_results=4, workload="port_news")
    assert len(asked["results"]) == 4  # the caller's number wins over the workload's depth
    deep = await gw.search("Port of Busan", workload="deep")
    assert deep["provider"] == "local" and 0 < len(deep["results"]) <= 9
    assert (await gw.search("Port of Busan", kind="news", workload="port_news"))["provider"] == "serper"
    for workload in (None, "research"):  # no workload, or one the config does not have: the usual chain
        plain = await gw.search("Port of Busan container cargo", workload=workload)
        assert plain["provider"] == "local" and plain["workload"] == workload
    with pytest.raises(ValueError, match="workload"):
        await gw.search("Port of Busan", workload="Drop Table")
    with pytest.raises(ValueError, match="workload"):
        await gw.search_many(["Port of Busan"], workload="x" * 41)
    many = await gw.search_many(["Port of Busan", "Kimchi cabbage"], workload="port_news")
    assert [r["provider"] for r in many["responses"]] == ["serper", "serper"]
    assert gw.describe()["workloads"]["port_news"] == {"web": ["serper", "local"], "news": ["serper", "local"],
                                                       "max_results": 2, "ttl": None}


async def test_latest_goes_to_native_search_first_and_falls_back(tmp_path: Path, fake_api: FakeAPI) -> None:
    gw = _gateway(tmp_path, "chain: [local]\ncache: {enabled: false}\nworkloads:\n"
                            "  latest: {chain: [openai_web_search, gemini_grounding, default], ttl: fresh}\n",
                  openai_web_search_api_key="sk", openai_web_search_base_url=fake_api.url)
    assert gw.workload_chains["latest"]["web"] == ["openai_web_search", "local"]  # no Gemini key: skipped
    fake_api.json_route(OPENAI_PATH, openai_reply())
    out = await gw.search("Seoul subway daily ridership", workload="latest")
    assert out["provider"] == "openai_web_search" and out["cost_usd"] > 0.01
    first = out["results"][0]
    assert (first["title"], first["url"]) == ("Seoul Metro ridership", "https://www.seoulmetro.co.kr/en/stats")
    assert first["snippet"].startswith("Seoul's subway carried 7.2 million riders a day")
    fake_api.json_route(OPENAI_PATH, {"error": {"message": "overloaded"}}, status=503)
    out = await gw.search("Seoul subway passengers", workload="latest")
    assert out["provider"] == "local" and out["branch"] == 1 and "HTTP 503" in out["errors"][0]
    # Without the workload the native provider is not asked at all.
    calls = len(fake_api.requests)
    assert (await gw.search("Seoul subway passengers"))["provider"] == "local" and len(fake_api.requests) == calls
    # Offline: no key at all, `latest` is the usual chain.
    offline = _gateway(tmp_path, "chain: [local]\ncache: {enabled: false}\n"
                                 "workloads:\n  latest: {chain: [openai_web_search, default]}\n")
    assert offline.workload_chains["latest"]["web"] == ["local"]


async def test_workloads_share_the_cache_and_fresh_ones_take_only_fresh_entries(
        tmp_path: Path, pg_url: str, db: Database) -> None:
    gw = _gateway(tmp_path, "chain: [local]\ncache: {semantic: false}\nproviders:\n"
                            "  local: {ttl: {general: 604800, fresh: 600}}\n"
                            "workloads:\n  research: {max_results: 6}\n  latest: {ttl: fresh}\n",
                  db=db, pg_url=pg_url)
    query = f"Kimchi napa cabbage radish {uuid.uuid4().hex[:6]}"
    assert (await gw.search(query, workload="research"))["cache"] == "miss"
    assert (await gw.search(query))["cache"] == "exact"  # one entry whichever workload asked
    assert (await gw.search(query, workload="latest"))["cache"] == "exact"
    async with db.connection() as conn:  # the entry is now 20 minutes old: too old for `latest` (fresh: 600 s)
        await conn.execute("UPDATE search_cache SET created_at = now() - interval '20 minutes' WHERE query = %s",
                           (query,))
    assert (await gw.search(query, workload="research"))["cache"] == "exact"
    assert (await gw.search(query, workload="latest"))["cache"] == "miss"
    ttl = await db.fetchone("SELECT extract(epoch FROM expires_at - created_at)::int AS ttl FROM search_cache"
                            " WHERE query = %s", (query,))
    assert ttl is not None and ttl["ttl"] == 600  # stored again by `latest`: the fresh TTL


async def test_telemetry_shows_spend_calls_and_hits_per_workload_and_provider(
        tmp_path: Path, pg_url: str, db: Database, fake_api: FakeAPI) -> None:
    fake_api.json_route(OPENAI_PATH, openai_reply())
    mine, other = f"w{uuid.uuid4().hex[:8]}", f"w{uuid.uuid4().hex[:8]}"
    gw = _gateway(tmp_path, "chain: [local]\ncache: {semantic: false}\nproviders:\n  local: {cost_per_call: 0.002}\n"
                            f"workloads:\n  {mine}: {{chain: [openai_web_search, default]}}\n",
                  db=db, pg_url=pg_url, openai_web_search_api_key="sk", openai_web_search_base_url=fake_api.url)
    tag = uuid.uuid4().hex[:6]
    await gw.search(f"Seoul subway ridership {tag}", workload=mine)
    await gw.search(f"Seoul subway ridership {tag}", workload=mine)  # exact hit
    await gw.search(f"Port of Busan {tag}", workload=other)  # not configured: the usual chain, still recorded
    await gw.flush()
    summary = await telemetry_summary(db, hours=1)
    by_name = {w["workload"]: w for w in summary["workloads"]}
    assert by_name[mine]["requests"] == 2 and by_name[mine]["hits"] == 1 and by_name[mine]["hit_rate"] == 0.5
    assert by_name[mine]["spend_usd"] == pytest.approx(0.0108) and by_name[mine]["tokens"] == 1250
    assert by_name[mine]["providers"] == [{"provider": "openai_web_search", "requests": 2, "hits": 1,
                                           "spend_usd": 0.0108, "tokens": 1250}]
    assert by_name[other]["providers"] == [{"provider": "local", "requests": 1, "hits": 0, "spend_usd": 0.002,
                                            "tokens": 0}]
    recent = [r for r in summary["recent"] if tag in r["query"]]
    assert [r["workload"] for r in recent] == [other, mine, mine]
    table = _stats_table(summary)
    assert "workload" in table and mine in table and "openai_web_search 2" in table


async def test_the_mcp_tools_take_a_workload(tmp_path: Path, offline_settings: Settings) -> None:
    path = _config(tmp_path, "chain: [local]\ncache: {enabled: false}\nworkloads:\n  research: {max_results: 2}\n")
    mcp = create_server(offline_settings.model_copy(update={"search_config": path}))
    tools = {tool.name: tool.inputSchema["properties"] for tool in await mcp.list_tools()}
    assert all("workload" in tools[name] for name in ("web_search", "news_search", "search_many"))
    content = await mcp.call_tool("web_search", {"query": "Seoul subway passengers", "workload": "research"})
    out = json.loads(list(content)[0].text)  # type: ignore[union-attr]
    assert out["workload"] == "research" and out["provider"] == "local" and len(out["results"]) <= 2
    content = await mcp.call_tool("search_many", {"queries": ["Seoul subway", "Kimchi"], "workload": "research"})
    responses = json.loads(list(content)[0].text)["responses"]  # type: ignore[union-attr]
    assert [r["workload"] for r in responses] == ["research", "research"]
