"""`hub eval verify`: fact verification over a corpus of pages written for it, one case per outcome code.

The pages (a fictional country, "Varnland", so no real figure is implied) are indexed by the real search
gateway's local provider, and `fetch_page` reads them through the gateway from a local HTTP server as HTML
(the same text, except a page that was revised after it was indexed). Each case's outcome comes from the
data: which sites state which value, when, and whether the page still says it.
"""

from __future__ import annotations

import asyncio
import html
import json
import tempfile
import threading
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import date
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from ai_llm.common.a2a_server import free_port
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.llm import LocalEngine
from ai_llm.common.process import start_module, stop_child, wait_http
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import Settings
from ai_llm.web_research_agent.fact_verification import FactVerifier
from ai_llm.web_research_agent.mcp_tools import PageContent, SearchToolset

AS_OF = date(2026, 11, 30)
CB, STATS, EXCH = "https://www.varnland-centralbank.example", "https://stats.varnland-stats.example", \
    "https://www.varnland-exchange.example"
TIMES, HERALD, MARKETS = "https://www.varnland-times.example", "https://news.varnland-herald.example", \
    "https://www.varnland-markets.example"
BLOG, WIKI = "https://my.varnland-blog.example", "https://en.wikipedia.org/wiki"


def _page(url: str, title: str, text: str, published_at: str | None, live_text: str | None = None) -> dict[str, Any]:
    return {"url": url, "title": title, "content": text, "published_at": published_at,
            "live": live_text if live_text is not None else text}


#: Every page: `content` is what the search index holds, `live` what the site serves now.
PAGES: list[dict[str, Any]] = [
    # verified: three independent sources, one official, agreeing (3.50% vs 3.5%), same decision day
    _page(f"{CB}/policy/base-rate", "Bank of Varnland monetary policy decision",
          "The Monetary Policy Board met in the capital. The Bank of Varnland kept the Varnland base rate at "
          "3.50% on November 27, 2026. Inflation is close to target.", "2026-11-27"),
    _page(f"{TIMES}/economy/rate-hold", "Central bank holds rate",
          "Markets were calm. On November 27, 2026 the Varnland base rate was held at 3.5%, the central bank "
          "said.", "2026-11-27"),
    _page(f"{HERALD}/biz/base-rate", "Rate unchanged",
          "The Varnland base rate stays at 3.50% after the November 27, 2026 decision. Economists expected it.",
          "2026-11-27"),
    _page(f"{BLOG}/my-rate-guess", "My guess about rates",
          "Honestly I think the Varnland base rate is 3.75% already on November 28, 2026.", "2026-11-28"),
    # VALUE_MISMATCH: one source 5% off the others
    _page(f"{EXCH}/index/close", "Varnland exchange daily close",
          "The Varnland stock index closed at 2,650.3 points on November 28, 2026.", "2026-11-28"),
    _page(f"{TIMES}/markets/close", "Stocks close",
          "The Varnland stock index ended at 2,651.0 points on November 28, 2026.", "2026-11-28"),
    _page(f"{HERALD}/markets/close", "Stocks surge",
          "The Varnland stock index finished at 2,782.8 points on November 28, 2026.", "2026-11-28"),
    # STALE_DATA: agreeing sources, all two months old
    _page(f"{STATS}/labour/unemployment", "Labour force survey",
          "The Varnland unemployment rate was 2.9% on October 1, 2026.", "2026-10-01"),
    _page(f"{TIMES}/economy/jobs", "Jobs report",
          "The Varnland unemployment rate stood at 2.9% on October 1, 2026.", "2026-10-01"),
    _page(f"{HERALD}/economy/jobs", "Unemployment steady",
          "The Varnland unemployment rate held at 2.9% on October 1, 2026.", "2026-10-01"),
    # NO_PRIMARY_SOURCE: three agreeing sources, none official
    _page(f"{TIMES}/markets/gold", "Gold price", "The Varnland gold price was $2,410.50 on November 29, 2026.",
          "2026-11-29"),
    _page(f"{HERALD}/markets/gold", "Gold", "The Varnland gold price reached $2,411.00 on November 29, 2026.",
          "2026-11-29"),
    _page(f"{MARKETS}/commodities/gold", "Gold quote", "The Varnland gold price: $2,410.80 on November 29, 2026.",
          "2026-11-29"),
    # INSUFFICIENT_SOURCES: only two sources
    _page(f"{TIMES}/food/cod", "Fish market", "The Varnland cod price was 12,300 won on November 29, 2026.",
          "2026-11-29"),
    _page(f"{HERALD}/food/cod", "Cod", "The Varnland cod price stood at 12,300 won on November 29, 2026.",
          "2026-11-29"),
    # BLOCKED_SOURCE_ONLY: a blog and Wikipedia
    _page(f"{BLOG}/housing", "Housing rant", "The Varnland housing index is 104.2 points on November 29, 2026.",
          "2026-11-29"),
    _page(f"{WIKI}/Varnland_housing_index", "Varnland housing index",
          "The Varnland housing index was 104.2 points on November 29, 2026.", "2026-11-29"),
    # QUOTE_MISMATCH: the official page no longer states the value its search snippet shows
    _page(f"{STATS}/trade/exports", "Trade statistics",
          "The Varnland export total was 612.4억 달러 on November 29, 2026.", "2026-11-29",
          live_text="The Varnland export total for November 2026 is under revision and will be republished."),
    _page(f"{TIMES}/trade/exports", "Exports", "The Varnland export total was 612.4억 달러 on November 29, 2026.",
          "2026-11-29"),
    _page(f"{HERALD}/trade/exports", "Exports rise",
          "The Varnland export total reached 612.4억 달러 on November 29, 2026.", "2026-11-29"),
]

#: (case, question, expected code — "VERIFIED" for success, expected value or None).
CASES: list[tuple[str, str, str, float | None]] = [
    ("base_rate", "Verify the Varnland base rate today", "VERIFIED", 3.5),
    ("stock_index", "Verify the Varnland stock index today", "VALUE_MISMATCH", None),
    ("unemployment", "Verify the current Varnland unemployment rate", "STALE_DATA", None),
    ("gold_price", "Verify the Varnland gold price", "NO_PRIMARY_SOURCE", None),
    ("cod_price", "Verify the Varnland cod price", "INSUFFICIENT_SOURCES", None),
    ("housing_index", "Verify the Varnland housing index", "BLOCKED_SOURCE_ONLY", None),
    ("export_total", "Verify the Varnland export total", "QUOTE_MISMATCH", None),
]


def page_html(page: dict[str, Any]) -> str:
    """The site's live page as HTML (dated with a meta tag, as news and statistics sites do)."""
    meta = f'<meta name="date" content="{page["published_at"]}">' if page.get("published_at") else ""
    return (f"<html><head><title>{html.escape(page['title'])}</title>{meta}</head><body><article>"
            f"<h1>{html.escape(page['title'])}</h1><p>{html.escape(page['live'])}</p></article></body></html>")


@contextmanager
def serve_pages(pages: list[dict[str, Any]]) -> Iterator[tuple[str, dict[str, str]]]:
    """A local HTTP server for the pages; yields its URL and corpus URL → local URL."""
    routes = {f"/p{i}": page_html(p) for i, p in enumerate(pages)}

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = routes.get(self.path)
            data = (body or "not found").encode("utf-8")
            self.send_response(200 if body else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            return None

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    base = f"http://127.0.0.1:{httpd.server_address[1]}"
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield base, {p["url"]: f"{base}/p{i}" for i, p in enumerate(pages)}
    finally:
        httpd.shutdown()


class SiteToolset(SearchToolset):
    """The real toolset; pages of the test sites are fetched (through the gateway) from the local server."""

    site_urls: dict[str, str] = {}

    async def fetch_page(self, url: str) -> PageContent:
        page = await super().fetch_page(self.site_urls.get(url, url))
        page.url = url
        return page


def site_toolset_factory(settings: Settings, site_urls: dict[str, str]) -> Any:
    @asynccontextmanager
    async def factory() -> AsyncIterator[SearchToolset]:
        async with SearchToolset.open(settings) as base:
            toolset = SiteToolset.__new__(SiteToolset)
            toolset.__dict__.update(base.__dict__)
            toolset.site_urls = site_urls
            yield toolset

    return factory


def write_corpus(path: Path, pages: list[dict[str, Any]]) -> Path:
    rows = [{k: p[k] for k in ("url", "title", "content", "published_at")} for p in pages]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def no_semantic_cache_config(path: Path) -> Path:
    """The gateway's default config with the semantic cache off: distinct metrics with similar wording
    ("…base rate today" / "…unemployment rate today") must never share a cached answer."""
    default = Path(__file__).resolve().parents[1] / "search_gateway" / "search_config.yaml"
    data = yaml.safe_load(default.read_text(encoding="utf-8"))
    data.setdefault("cache", {})["semantic"] = False
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


async def run_cases(verifier: FactVerifier) -> list[dict[str, Any]]:
    out = []
    for case, question, expected, value in CASES:
        result = (await verifier.verify(question, as_of=AS_OF)).result
        got = "VERIFIED" if result["verified"] else result["error"]["code"]
        correct_value = (not result["verified"]) or (value is not None and abs(result["value"] - value) < 1e-9)
        out.append({"case": case, "question": question, "expected": expected, "got": got,
                    "passed": got == expected and correct_value, "value": result.get("value"),
                    "verified_correct": result["verified"] and correct_value})
    return out


def summarise(cases: list[dict[str, Any]]) -> dict[str, Any]:
    verified = [c for c in cases if c["got"] == "VERIFIED"]
    precision = (sum(c["verified_correct"] for c in verified) / len(verified)) if verified else None
    codes: dict[str, str] = {c["expected"]: "pass" if c["passed"] else "fail" for c in cases}
    return {"cases": cases, "per_code": codes, "passed": sum(c["passed"] for c in cases),
            "verified_precision": precision, "verified_count": len(verified)}


def run_verify_eval() -> dict[str, Any]:
    """Start the gateway over the case corpus, the page server, and run every case."""
    with tempfile.TemporaryDirectory(prefix="hub-eval-verify-") as tmp, serve_pages(PAGES) as (_, site_urls):
        work = Path(tmp)
        corpus = write_corpus(work / "corpus.jsonl", PAGES)
        port = free_port()
        gateway = start_module("search_gateway", "ai_llm.search_gateway", ["--port", str(port)],
                               {"LOCAL_CORPUS": str(corpus), "FETCH_ALLOW_PRIVATE": "true",
                                "SEARCH_CONFIG": str(no_semantic_cache_config(work / "search_config.yaml")),
                                "DATA_DIR": str(work / "data")}, work / "logs")
        try:
            wait_http(f"http://127.0.0.1:{port}/healthz", gateway, timeout_s=180)
            settings = Settings(search_gateway_url=f"http://127.0.0.1:{port}", fetch_allow_private=True,  # type: ignore[call-arg]
                                _env_file=None)
            embeddings = OpenAIEmbeddings(settings.embedding_base_url, settings.embedding_model_name)
            deps = HubDeps(settings=settings, embeddings=embeddings, llm=LocalEngine(None))
            verifier = FactVerifier(deps, site_toolset_factory(settings, site_urls))
            cases = asyncio.run(run_cases(verifier))
        finally:
            stop_child(gateway)
    return summarise(cases)
