"""`hub eval verify`: fact verification over a corpus of pages written for it, every outcome code with near-misses.

The pages, their sites and the cases are in `verify_eval_fixture.yaml` (a fictional country, "Varnland", so no
real figure is implied); its site tiers and blocklist are added to the product's `fact_rules.yaml`, whose
thresholds the eval runs under. The pages are indexed by the real search gateway's local provider, and
`fetch_page` reads them through the gateway from a local HTTP server as HTML (the same text, except a page that
was revised after it was indexed). Each case's outcome comes from the data: which sites state which value, in
which unit, for which period, when, and whether the page still says it.
"""

from __future__ import annotations

import asyncio
import html
import json
import tempfile
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager, contextmanager
from datetime import date
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import yaml

from ai_llm.common.a2a.server import free_port
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.llm import LocalEngine
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import Settings
from ai_llm.evals.harness import local_http_server, module_process
from ai_llm.search_gateway.config import DEFAULT_CONFIG
from ai_llm.web_research_agent.fact_verification import ERROR_CODES, FactRules, FactVerifier
from ai_llm.web_research_agent.search_tools.toolset import SearchToolset
from ai_llm.web_research_agent.state import ToolsetFactory

FIXTURE_PATH = Path(__file__).with_name("verify_eval_fixture.yaml")


def load_fixture(path: Path = FIXTURE_PATH) -> dict[str, Any]:
    """The fixture YAML: `as_of`, `sites`, `rules` (a site overlay) and `cases`, each with its `pages`."""
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def _pages(fixture: dict[str, Any]) -> list[dict[str, Any]]:
    """Every page as `{url, title, content, published_at, live}`: `content` is what the search index holds,
    `live` what the site serves now."""
    pages = []
    for case in fixture["cases"]:
        for page in case["pages"]:
            published = page.get("published_at")
            pages.append({"url": fixture["sites"][page["site"]] + page["path"], "title": page["title"],
                          "content": page["text"], "published_at": str(published) if published else None,
                          "live": page.get("live", page["text"])})
    return pages


_FIXTURE = load_fixture()
AS_OF: date = _FIXTURE["as_of"]
PAGES: list[dict[str, Any]] = _pages(_FIXTURE)
#: (case, question, expected code — "VERIFIED" for success, expected value or None).
CASES: list[tuple[str, str, str, float | None]] = [
    (c["case"], c["question"], c["expected"], float(c["value"]) if c.get("value") is not None else None)
    for c in _FIXTURE["cases"]]


def eval_rules() -> FactRules:
    """The product's rules plus the fixture's sites (tiers and blocklist only)."""
    return FactRules.load().with_sites(_FIXTURE["rules"], str(FIXTURE_PATH))


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

    with local_http_server(Handler) as base:
        yield base, {p["url"]: f"{base}/p{i}" for i, p in enumerate(pages)}


def site_toolset_factory(settings: Settings, site_urls: dict[str, str]) -> ToolsetFactory:
    """Opens the real toolset, fetching the fixture's pages (through the gateway) from the local server."""

    @asynccontextmanager
    async def factory() -> AsyncIterator[SearchToolset]:
        async with SearchToolset.open(settings, fetch_from=site_urls) as toolset:
            yield toolset

    return factory


def write_corpus(path: Path, pages: list[dict[str, Any]]) -> Path:
    rows = [{k: p[k] for k in ("url", "title", "content", "published_at")} for p in pages]
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def no_semantic_cache_config(path: Path) -> Path:
    """The gateway's default config with the semantic cache off: distinct metrics with similar wording
    ("…base rate today" / "…unemployment rate today") must never share a cached answer."""
    data = yaml.safe_load(DEFAULT_CONFIG.read_text(encoding="utf-8"))
    data.setdefault("cache", {})["semantic"] = False
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def _same_value(got: Any, expected: float | None) -> bool:
    return expected is not None and isinstance(got, int | float) and abs(got - expected) <= 1e-9 * max(1.0, abs(expected))


async def run_cases(verifier: FactVerifier, cases: Sequence[tuple[str, str, str, float | None]] = ()
                    ) -> list[dict[str, Any]]:
    """Every case (default: all of `CASES`) through the verifier: expected and actual outcome, value, and whether a
    verified value is right."""
    out = []
    for case, question, expected, value in cases or CASES:
        result = (await verifier.verify(question, as_of=AS_OF)).result
        got = "VERIFIED" if result["verified"] else result["error"]["code"]
        right_value = not result["verified"] or _same_value(result["value"], value)
        out.append({"case": case, "question": question, "expected": expected, "got": got,
                    "passed": got == expected and right_value, "value": result.get("value"),
                    "expected_value": value, "period": result.get("period"),
                    "verified_correct": bool(result["verified"]) and expected == "VERIFIED" and right_value})
    return out


def summarise(cases: list[dict[str, Any]]) -> dict[str, Any]:
    """Cases, outcomes, counts per expected code, and precision / recall of `verified: true`.

    precision = verified with the right value where the case should verify / all verified;
    recall = the same / cases that should verify.
    """
    verified = [c for c in cases if c["got"] == "VERIFIED"]
    should = [c for c in cases if c["expected"] == "VERIFIED"]
    correct = sum(c["verified_correct"] for c in cases)
    per_code = {code: {"expected": sum(c["expected"] == code for c in cases),
                       "passed": sum(c["passed"] for c in cases if c["expected"] == code),
                       "got": sum(c["got"] == code for c in cases)}
                for code in ("VERIFIED", *ERROR_CODES)}
    return {"cases": cases, "count": len(cases), "passed": sum(c["passed"] for c in cases), "per_code": per_code,
            "verified_count": len(verified), "verified_correct": correct, "should_verify": len(should),
            "verified_precision": round(correct / len(verified), 4) if verified else None,
            "verified_recall": round(correct / len(should), 4) if should else None}


def run_verify_eval(limit: int = 0) -> dict[str, Any]:
    """Start the gateway over the case corpus, the page server, and run every case (or `limit` of them, every
    k-th, so the outcome codes stay mixed)."""
    from ai_llm.evals.rag.evaluation import spread

    with tempfile.TemporaryDirectory(prefix="hub-eval-verify-") as tmp, serve_pages(PAGES) as (_, site_urls):
        work = Path(tmp)
        corpus = write_corpus(work / "corpus.jsonl", PAGES)
        port = free_port()
        with module_process("search_gateway", "ai_llm.search_gateway", ["--port", str(port)],
                            {"LOCAL_CORPUS": str(corpus), "FETCH_ALLOW_PRIVATE": "true",
                             "SEARCH_CONFIG": str(no_semantic_cache_config(work / "search_config.yaml")),
                             "DATA_DIR": str(work / "data")}, work / "logs",
                            f"http://127.0.0.1:{port}/healthz", timeout_s=180):
            settings = Settings(search_gateway_url=f"http://127.0.0.1:{port}", fetch_allow_private=True,  # type: ignore[call-arg]
                                _env_file=None)
            embeddings = OpenAIEmbeddings(settings.embedding_base_url, settings.embedding_model_name)
            deps = HubDeps(settings=settings, embeddings=embeddings, llm=LocalEngine())
            verifier = FactVerifier(deps, site_toolset_factory(settings, site_urls), rules=eval_rules())
            cases = asyncio.run(run_cases(verifier, spread(list(CASES), limit)))
    return summarise(cases)
