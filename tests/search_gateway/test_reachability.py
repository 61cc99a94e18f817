"""Whether web search can serve, as the gateway's `/healthz?providers=1` reports it: never `ok` while no provider
can be reached or none is configured; `offline_corpus` when the local corpus serves; a failed search counts
over a probe that connects. Providers point at local servers (a live one, a closed port) through `base_url`."""

from __future__ import annotations

from pathlib import Path

import httpx
import yaml

from ai_llm.common.a2a.server import free_port
from ai_llm.common.settings import Settings
from ai_llm.search_gateway.config import load_config
from ai_llm.search_gateway.gateway import SearchGateway
from ai_llm.search_gateway.server import create_http_app, create_server
from tests.search_gateway.conftest import FakeAPI

TAVILY_REPLY = {"query": "q", "results": [{"title": "Seoul", "url": "https://example.org/seoul", "content": "Seoul.",
                                           "score": 0.9}]}


def gateway(tmp_path: Path, chain: list[str], providers: dict[str, dict[str, object]], **settings: object
            ) -> SearchGateway:
    path = tmp_path / "search_config.yaml"
    path.write_text(yaml.safe_dump({"chain": chain, "providers": providers, "cache": {"enabled": False}}),
                    encoding="utf-8")
    return SearchGateway.create(Settings(data_dir=tmp_path, _env_file=None, **settings),  # type: ignore[call-arg]
                                load_config(path))


def dead_url() -> str:
    return f"http://127.0.0.1:{free_port()}"


async def test_the_local_corpus_serving_is_offline_corpus(offline_settings: Settings) -> None:
    gw = SearchGateway.create(offline_settings)
    web = await gw.web_health()
    assert web["state"] == "offline_corpus" and web["serving"] == "local" and web["reason"] is None


async def test_no_reachable_provider_is_down_with_the_reason(tmp_path: Path) -> None:
    dead = dead_url()
    gw = gateway(tmp_path, ["tavily", "serper"], {"tavily": {"base_url": dead}, "serper": {"base_url": dead}},
                 tavily_api_key="tvly-test", serper_api_key="serper-test")
    web = await gw.web_health()
    assert web["state"] == "down" and web["serving"] is None
    assert set(web["unreachable"]) == {"tavily", "serper"}
    assert web["reason"].startswith("no web-search provider can be reached: tavily (") and "serper" in web["reason"]


async def test_no_configured_provider_is_down(tmp_path: Path) -> None:
    gw = gateway(tmp_path, ["tavily"], {}, tavily_api_key=None)
    web = await gw.web_health()
    assert web["state"] == "down" and web["unconfigured"] == {"tavily": "no TAVILY_API_KEY"}
    assert "no web-search provider is configured: tavily (no TAVILY_API_KEY)" == web["reason"]


async def test_a_reachable_provider_is_ok_and_one_of_two_is_degraded(tmp_path: Path, fake_api: FakeAPI) -> None:
    live = gateway(tmp_path, ["tavily"], {"tavily": {"base_url": fake_api.url}}, tavily_api_key="tvly-test")
    assert (await live.web_health())["state"] == "ok"
    mixed = gateway(tmp_path, ["serper", "tavily"], {"serper": {"base_url": dead_url()},
                                                     "tavily": {"base_url": fake_api.url}},
                    tavily_api_key="tvly-test", serper_api_key="serper-test")
    web = await mixed.web_health()
    assert web["state"] == "degraded" and web["serving"] == "tavily" and list(web["unreachable"]) == ["serper"]


async def test_a_failed_search_counts_over_a_probe_that_connects(tmp_path: Path, fake_api: FakeAPI) -> None:
    """The endpoint accepts connections but its searches fail: down; once a search is answered, ok again."""
    fake_api.json_route("/search", {"detail": "internal error"}, status=500)
    gw = gateway(tmp_path, ["tavily"], {"tavily": {"base_url": fake_api.url}}, tavily_api_key="tvly-test")
    failed = await gw.search("seoul subway")
    assert failed["results"] == []
    web = await gw.web_health()
    assert web["state"] == "down" and "tavily" in web["unreachable"], web
    fake_api.json_route("/search", TAVILY_REPLY)
    answered = await gw.search("seoul metro lines")
    assert answered["results"], answered
    assert (await gw.web_health())["state"] == "ok"


async def test_healthz_reports_web_only_when_asked(offline_settings: Settings) -> None:
    app = create_http_app(offline_settings, create_server(offline_settings))
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:10015") as http:
        plain = (await http.get("/healthz")).json()
        asked = (await http.get("/healthz", params={"providers": "1"})).json()
    assert "web" not in plain and plain["chains"]["web"] == ["local"]
    assert asked["web"]["state"] == "offline_corpus"
