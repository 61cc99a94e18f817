"""fetch_page: corpus pages by URL, trafilatura extraction, SSRF guard, limits and unreachable URLs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_llm.common.settings import Settings
from ai_llm.search_gateway.fetch import PageFetcher
from ai_llm.search_gateway.gateway import SearchGateway
from ai_llm.search_gateway.providers.local import LocalCorpusProvider
from tests.search_gateway.conftest import FakeAPI

ARTICLE = """<!doctype html><html><head><title>Ferry timetable | Harbour News</title>
<meta property="article:published_time" content="2026-10-05T09:00:00Z"></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a></nav>
<article><h1>New ferry timetable for the harbour</h1>
<p>The harbour authority published a new ferry timetable on Monday. Ferries to the island will leave every
forty minutes from the north pier, starting at six in the morning.</p>
<p>The last ferry of the day will depart at eleven at night, an hour later than before, because evening
demand grew strongly over the summer season.</p></article>
<footer>Copyright Harbour News</footer></body></html>"""


async def test_corpus_page_is_served_without_network(corpus: Path) -> None:
    fetcher = PageFetcher(LocalCorpusProvider(corpus))
    page = await fetcher.fetch("https://example.kr/ktx")
    assert page.error is None and page.source == "corpus"
    assert page.title == "고속철도 KTX" and "2004년" in page.text


async def test_loopback_is_refused_by_default(fake_api: FakeAPI) -> None:
    fake_api.raw_route("/article", ARTICLE)
    page = await PageFetcher().fetch(fake_api.url + "/article")
    assert page.error is not None and "refused" in page.error and "127.0.0.1" in page.error
    assert not page.text
    assert not fake_api.requests  # nothing was sent


async def test_allowed_private_fetch_extracts_main_text(fake_api: FakeAPI) -> None:
    fake_api.raw_route("/article", ARTICLE)
    page = await PageFetcher(allow_private=True).fetch(fake_api.url + "/article")
    assert page.error is None
    assert "forty minutes" in page.text and "eleven at night" in page.text
    assert "Copyright" not in page.text  # boilerplate removed
    assert page.title and "ferry" in page.title.lower()
    assert page.published_at == "2026-10-05"


@pytest.mark.parametrize("url,reason", [
    ("file:///etc/passwd", "only http and https"),
    ("ftp://example.org/x", "only http and https"),
    ("http://169.254.169.254/latest/meta-data/", "non-public"),
    ("http://10.0.0.1/", "non-public"),
    ("http://[::1]:8080/", "non-public"),
    ("http://localhost:1/", "non-public"),
])
async def test_ssrf_guard(url: str, reason: str) -> None:
    page = await PageFetcher().fetch(url)
    assert page.error is not None and reason in page.error


class RecordingResolver:
    """A DNS stand-in: `name -> addresses`, each answer used once in turn (a rebinding name changes its
    answer between lookups); records every lookup."""

    def __init__(self, answers: dict[str, list[list[str]]]) -> None:
        self.answers = answers
        self.lookups: list[str] = []

    async def __call__(self, host: str, port: int) -> list[str]:
        self.lookups.append(host)
        queue = self.answers[host]
        return queue.pop(0) if len(queue) > 1 else queue[0]


async def test_name_resolving_to_loopback_is_refused(fake_api: FakeAPI) -> None:
    fake_api.raw_route("/article", ARTICLE)
    port = fake_api.url.rsplit(":", 1)[1]
    resolve = RecordingResolver({"innocent.example.com": [["93.184.216.34", "127.0.0.1"]]})
    page = await PageFetcher(resolve=resolve).fetch(f"http://innocent.example.com:{port}/article")
    assert page.error is not None and "refused" in page.error and "127.0.0.1" in page.error
    assert not fake_api.requests


async def test_connection_goes_to_the_checked_address(fake_api: FakeAPI) -> None:
    """DNS rebinding needs a second lookup (public for the check, 127.0.0.1 for the connect). There is
    none: the fetcher looks the name up once and connects to that checked answer. Shown with private
    targets allowed (tests, intranets), on a name no system resolver knows: only the injected resolver's
    answer can have led the connection to the local server."""
    fake_api.raw_route("/article", ARTICLE)
    port = fake_api.url.rsplit(":", 1)[1]
    resolve = RecordingResolver({"intranet.test": [["127.0.0.1"], ["192.0.2.1"]]})
    page = await PageFetcher(allow_private=True, resolve=resolve).fetch(f"http://intranet.test:{port}/article")
    assert page.error is None and "forty minutes" in page.text
    assert resolve.lookups == ["intranet.test"]
    assert fake_api.last("/article").headers["host"] == f"intranet.test:{port}"  # the name, not the address


async def test_redirect_into_private_network_is_checked_per_hop(fake_api: FakeAPI) -> None:
    # Redirects are followed hop by hop, each hop going through the guard again (not httpx's auto-follow).
    fake_api.raw_route("/jump", "", status=302, headers={"location": "/article"})
    fake_api.raw_route("/article", ARTICLE)
    page = await PageFetcher(allow_private=True).fetch(fake_api.url + "/jump")
    assert page.error is None and page.url.endswith("/article") and "forty minutes" in page.text


async def test_size_limit_and_http_errors(fake_api: FakeAPI) -> None:
    fake_api.raw_route("/big", "<html><body><p>" + "x " * 50_000 + "</p></body></html>")
    fake_api.raw_route("/gone", "not here", status=404)
    fetcher = PageFetcher(allow_private=True, max_bytes=10_000)
    big = await fetcher.fetch(fake_api.url + "/big")
    assert big.error is not None and "larger than" in big.error
    gone = await fetcher.fetch(fake_api.url + "/gone")
    assert gone.error == "HTTP 404"


async def test_unreachable_and_empty_urls() -> None:
    fetcher = PageFetcher(allow_private=True, timeout_s=5)
    page = await fetcher.fetch("http://127.0.0.1:9/nothing")
    assert page.error is not None and page.error.startswith("unreachable")
    assert (await fetcher.fetch("   ")).error == "empty URL"


async def test_fetch_pages_reads_together_within_the_deadline_and_checks_its_arguments(
        fake_api: FakeAPI, corpus: Path) -> None:
    """The batch fetch (one MCP call per round of a deep read): pages in the order asked, a corpus page, an
    HTML page, a refused URL and a page still loading at the deadline each come back as what they are."""
    fake_api.raw_route("/article", ARTICLE)
    fake_api.json_route("/slow", {"too": "late"}, delay_s=4.0)
    gw = SearchGateway.create(Settings(_env_file=None, local_corpus=corpus))  # type: ignore[call-arg]
    gw.fetcher = PageFetcher(gw.local, allow_private=True)
    urls = [fake_api.url + "/slow", "https://example.kr/ktx", fake_api.url + "/article", "file:///etc/passwd"]
    pages = (await gw.fetch_pages(urls, timeout_s=1.0))["pages"]
    assert [p["url"] for p in pages] == urls
    slow, ktx, article, refused = pages
    assert slow["error"] == "not read within the 1s budget" and not slow["text"]
    assert ktx["error"] is None and "2004년" in ktx["text"]
    assert article["error"] is None and "forty minutes" in article["text"]
    assert "only http and https" in refused["error"]
    for bad, reason in [([], "1 to 20"), ([f"https://example.org/{i}" for i in range(21)], "1 to 20"),
                        (["https://example.org/a", "https://example.org/a"], "repeat")]:
        with pytest.raises(ValueError, match=reason):
            await gw.fetch_pages(bad)
    with pytest.raises(ValueError, match="timeout_s"):
        await gw.fetch_pages(["https://example.org/a"], timeout_s=0)
