"""Provider adapters against a local HTTP server returning each provider's documented response shape.

The real APIs (serper.dev, exa.ai, firecrawl.dev, brightdata.com, tavily.com) are unreachable here, so the
server below stands in for them on the wire: we check what the adapter sends (endpoint, auth header,
request fields) and how it maps the documented response.
"""

from __future__ import annotations

import pytest

from ai_llm.search_gateway.config import load_config
from ai_llm.search_gateway.models import ProviderError, RateLimited, SearchRequest
from ai_llm.search_gateway.providers.http_adapter import HttpAdapterProvider
from ai_llm.search_gateway.providers.tavily import TavilyProvider
from tests.search_gateway.conftest import FakeAPI

ADAPTERS = load_config(None).adapters


def _adapter(name: str, api: FakeAPI, prefix: str = "", **options: object) -> HttpAdapterProvider:
    return HttpAdapterProvider(ADAPTERS[name], "secret-key", {"base_url": api.url + prefix, **options})


async def test_serper_web_and_news(fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"searchParameters": {"q": "x"}, "organic": [
        {"title": "Seoul", "link": "https://en.wikipedia.org/wiki/Seoul", "snippet": "Capital of Korea",
         "position": 1},
        {"title": "Visit Seoul", "link": "https://english.visitseoul.net/", "snippet": "Travel", "position": 2}]})
    fake_api.json_route("/news", {"news": [{"title": "Chip exports", "link": "https://news.example.com/a",
                                            "snippet": "up 10%", "date": "2 hours ago"}]})
    provider = _adapter("serper", fake_api)
    results = await provider.search(SearchRequest(query="seoul", max_results=2, region="kr", time_range="week"))
    sent = fake_api.last("/search")
    assert sent.method == "POST" and sent.headers["x-api-key"] == "secret-key"
    assert sent.body == {"q": "seoul", "num": 2, "gl": "kr", "tbs": "qdr:w"}
    assert [r.url for r in results] == ["https://en.wikipedia.org/wiki/Seoul", "https://english.visitseoul.net/"]
    assert results[0].snippet == "Capital of Korea" and results[0].source == "en.wikipedia.org"
    assert 0 <= results[1].score < results[0].score <= 1  # rank-derived: serper has no score
    news = await provider.search(SearchRequest(query="chips", kind="news"))
    assert news[0].published_at == "2 hours ago" and fake_api.last("/news").body["q"] == "chips"


async def test_exa_uses_its_score_and_highlights(fake_api: FakeAPI) -> None:
    fake_api.json_route("/exa/search", {"requestId": "r1", "results": [
        {"id": "1", "title": "KTX", "url": "https://ktx.example/", "publishedDate": "2024-04-01T00:00:00.000Z",
         "score": 0.83, "highlights": ["KTX links Seoul and Busan"], "text": "long text"}]})
    provider = _adapter("exa", fake_api, "/exa")
    results = await provider.search(SearchRequest(query="ktx", include_domains=("ktx.example",)))
    sent = fake_api.last("/exa/search")
    assert sent.headers["x-api-key"] == "secret-key"
    assert sent.body["query"] == "ktx" and sent.body["numResults"] == 6
    assert sent.body["includeDomains"] == ["ktx.example"] and "excludeDomains" not in sent.body
    assert results[0].score == 0.83 and results[0].snippet == "KTX links Seoul and Busan"
    assert results[0].published_at == "2024-04-01T00:00:00.000Z"


async def test_firecrawl_bearer_auth(fake_api: FakeAPI) -> None:
    fake_api.json_route("/fc/v1/search", {"success": True, "data": [
        {"title": "Kimchi", "url": "https://kimchi.example/", "description": "Fermented cabbage"}]})
    results = await _adapter("firecrawl", fake_api, "/fc").search(SearchRequest(query="kimchi", max_results=3))
    sent = fake_api.last("/fc/v1/search")
    assert sent.headers["authorization"] == "Bearer secret-key" and sent.body == {"query": "kimchi", "limit": 3}
    assert results[0].snippet == "Fermented cabbage"


async def test_brightdata_serp_request_embeds_the_encoded_query(fake_api: FakeAPI) -> None:
    fake_api.json_route("/request", {"organic": [
        {"title": "Busan", "link": "https://busan.example/", "description": "Port city", "rank": 1}]})
    results = await _adapter("brightdata", fake_api, zone="serp_test").search(
        SearchRequest(query="busan port & ships", max_results=4))
    sent = fake_api.last("/request")
    assert sent.body["zone"] == "serp_test" and sent.body["format"] == "raw"
    assert "q=busan+port+%26+ships" in sent.body["url"] and "num=4" in sent.body["url"]
    assert results[0].url == "https://busan.example/"


async def test_tavily_client_against_tavily_wire_format(fake_api: FakeAPI) -> None:
    fake_api.json_route("/tavily/search", {"query": "q", "answer": None, "response_time": 0.5, "results": [
        {"title": "T", "url": "https://t.example/", "content": "tavily content", "score": 0.71,
         "published_date": "2026-11-01"}]})
    provider = TavilyProvider("tvly-test", base_url=fake_api.url + "/tavily")
    results = await provider.search(SearchRequest(query="semiconductors", kind="news", time_range="day",
                                                  exclude_domains=("spam.example",)))
    sent = fake_api.last("/tavily/search")
    assert sent.headers["authorization"] == "Bearer tvly-test"
    assert sent.body["query"] == "semiconductors" and sent.body["topic"] == "news"
    assert sent.body["time_range"] == "day" and sent.body["exclude_domains"] == ["spam.example"]
    assert results[0].score == 0.71 and results[0].published_at == "2026-11-01"


async def test_rate_limit_is_reported_as_such(fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"message": "Too many requests"}, status=429)
    with pytest.raises(RateLimited):
        await _adapter("serper", fake_api).search(SearchRequest(query="x"))


@pytest.mark.parametrize("body", [{"unexpected": []}, {"organic": "not a list"}, "<html>oops</html>"])
async def test_malformed_responses_raise_provider_error(fake_api: FakeAPI, body: object) -> None:
    if isinstance(body, str):
        fake_api.raw_route("/search", body)
    else:
        fake_api.json_route("/search", body)
    with pytest.raises(ProviderError, match="malformed"):
        await _adapter("serper", fake_api).search(SearchRequest(query="x"))


async def test_server_error_and_unreachable(fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"error": "boom"}, status=500)
    with pytest.raises(ProviderError, match="HTTP 500"):
        await _adapter("serper", fake_api).search(SearchRequest(query="x"))
    dead = HttpAdapterProvider(ADAPTERS["serper"], "k", {"base_url": "http://127.0.0.1:9"})
    with pytest.raises(ProviderError):
        await dead.search(SearchRequest(query="x"))


async def test_items_without_http_url_are_dropped(fake_api: FakeAPI) -> None:
    fake_api.json_route("/search", {"organic": [{"title": "a", "link": "javascript:alert(1)"}, {"title": "b"},
                                                {"title": "c", "link": "https://c.example/"}]})
    results = await _adapter("serper", fake_api).search(SearchRequest(query="x"))
    assert [r.url for r in results] == ["https://c.example/"]


def test_duckduckgo_rows_are_mapped() -> None:
    """ddgs scrapes several engines' HTML (no stable wire format to serve locally): the row mapping is tested."""
    from ai_llm.search_gateway.providers.duckduckgo import map_ddgs

    text_rows = [{"title": "A", "href": "https://a.example/", "body": "alpha"}, {"title": "no url"},
                 {"title": "B", "href": "https://www.b.example/x", "body": "beta"}]
    results = map_ddgs(text_rows, "web")
    assert [r.url for r in results] == ["https://a.example/", "https://www.b.example/x"]
    assert results[1].source == "b.example" and results[0].score > results[1].score
    news = map_ddgs([{"title": "N", "url": "https://n.example/", "body": "news", "date": "2026-11-29T01:00:00"}],
                    "news")
    assert news[0].published_at == "2026-11-29T01:00:00"
