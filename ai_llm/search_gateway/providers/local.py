"""`local` provider: BM25 over a JSONL corpus of pages `{url, title, content, published_at}`.

The offline default: with `LOCAL_CORPUS` set the gateway searches these pages and `fetch_page` serves
them by URL, so the web-research agent works (and is evaluated on HotpotQA) without internet.

Scores are normalised to 0–1 so that a caller can threshold them (the web agent drops results under 0.5):

    score = coverage ** 0.8 * (0.55 + 0.45 * bm25 / bm25_of_best_hit)

`coverage` is the IDF-weighted share of the query's distinct tokens that the page contains; a query token
that no page contains gets the largest IDF, so a nonsense query (or one whose key words are absent) stays
well under 0.5 even if a stray common word matches, while a page that contains all of the query's key
words scores near 1. The BM25 ratio only orders hits of similar coverage.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from ai_llm.common.store.jsonl import iter_jsonl
from ai_llm.common.text import split_sentences, tokenize
from ai_llm.search_gateway.models import ProviderError, SearchRequest, SearchResult, domain_of
from ai_llm.search_gateway.providers.base import parse_date, passes_filters, range_cutoff

K1 = 1.2
B = 0.75
TITLE_WEIGHT = 2  # title tokens count twice: a page about X usually names X in its title


class CorpusError(ValueError):
    """The corpus file is missing or malformed (message names the file and line)."""


@dataclass
class Page:
    url: str
    title: str
    content: str
    published_at: str | None = None
    _sentences: list[tuple[str, frozenset[str]]] | None = field(default=None, repr=False, compare=False)

    def sentences(self) -> list[tuple[str, frozenset[str]]]:
        """The content's sentences with their token sets, split and tokenised on first use and kept (a page is
        returned by many searches; tokenising its sentences again for each snippet was a third of a search)."""
        if self._sentences is None:
            self._sentences = [(s, frozenset(tokenize(s))) for s in split_sentences(self.content) or [self.content]]
        return self._sentences


def load_corpus(path: Path) -> list[Page]:
    """Read a JSONL corpus; raises `CorpusError` naming file and line on bad input."""
    pages: list[Page] = []
    seen: set[str] = set()
    for lineno, row in iter_jsonl(path, CorpusError, missing="local corpus {path} does not exist"):
        if not isinstance(row, dict) or not isinstance(row.get("url"), str) or not row["url"].strip():
            raise CorpusError(f"{path}:{lineno}: each line needs a string 'url'")
        content = row.get("content") or row.get("text") or ""
        if not isinstance(content, str):
            raise CorpusError(f"{path}:{lineno}: 'content' must be a string")
        url = row["url"].strip()
        if url in seen:
            continue  # first occurrence wins; duplicates would double-count in BM25
        seen.add(url)
        published = row.get("published_at")
        pages.append(Page(url=url, title=str(row.get("title") or url), content=content,
                          published_at=str(published) if published else None))
    return pages


class BM25Index:
    """In-memory BM25 (Okapi) over `ai_llm.common.text.tokenize` tokens (Korean bigram-aware)."""

    def __init__(self, pages: list[Page]) -> None:
        self.pages = pages
        self.doc_tf: list[Counter[str]] = []
        self.doc_len: list[int] = []
        postings: dict[str, list[int]] = {}
        for idx, page in enumerate(pages):
            tokens = tokenize(page.title) * TITLE_WEIGHT + tokenize(page.content)
            tf = Counter(tokens)
            self.doc_tf.append(tf)
            self.doc_len.append(len(tokens))
            for term in tf:
                postings.setdefault(term, []).append(idx)
        self.postings = postings
        self.n_docs = len(pages)
        self.avg_len = (sum(self.doc_len) / self.n_docs) if self.n_docs else 1.0

    def idf(self, term: str) -> float:
        df = len(self.postings.get(term, ()))
        return math.log(1 + (self.n_docs - df + 0.5) / (df + 0.5))

    def search(self, query: str, limit: int, allowed: set[int] | None = None) -> list[tuple[int, float]]:
        """Top pages as (index, normalised 0–1 score), best first."""
        terms = list(dict.fromkeys(tokenize(query)))
        if not terms or not self.n_docs:
            return []
        idf = {t: self.idf(t) for t in terms}
        total_idf = sum(idf.values()) or 1.0
        raw: dict[int, float] = {}
        covered: dict[int, float] = {}
        for term in terms:
            for idx in self.postings.get(term, ()):
                if allowed is not None and idx not in allowed:
                    continue
                tf = self.doc_tf[idx][term]
                norm = tf * (K1 + 1) / (tf + K1 * (1 - B + B * self.doc_len[idx] / self.avg_len))
                raw[idx] = raw.get(idx, 0.0) + idf[term] * norm
                covered[idx] = covered.get(idx, 0.0) + idf[term]
        if not raw:
            return []
        best = max(raw.values())
        scored = []
        for idx, value in raw.items():
            coverage = covered[idx] / total_idf
            scored.append((idx, coverage ** 0.8 * (0.55 + 0.45 * value / best), value))
        scored.sort(key=lambda item: (-item[1], -item[2]))
        return [(idx, score) for idx, score, _ in scored[:limit]]


def snippet_for(page: Page, query: str, max_chars: int = 320) -> str:
    """The page's sentences that share most tokens with the query, in page order, up to `max_chars`."""
    terms = set(tokenize(query))
    split = page.sentences()
    sentences = [sentence for sentence, _ in split]
    ranked = sorted(range(len(split)), key=lambda i: -len(terms & split[i][1]))
    chosen: list[int] = []
    length = 0
    for i in ranked:
        if length and length + len(sentences[i]) > max_chars:
            break
        chosen.append(i)
        length += len(sentences[i]) + 1
    text = " ".join(sentences[i] for i in sorted(chosen))
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= max_chars else text[: max_chars - 1].rstrip() + "…"


class LocalCorpusProvider:
    """BM25 search over a local JSONL corpus.

    Args:
        path: the corpus file.
        delay_s: simulated network delay per call (benchmarks only).
        cost_per_call: simulated cost (benchmarks); 0 by default.
    """

    name = "local"

    def __init__(self, path: Path, delay_s: float = 0.0, cost_per_call: float = 0.0) -> None:
        self.path = Path(path)
        self.pages = load_corpus(self.path)
        self.by_url = {page.url: page for page in self.pages}
        self.index = BM25Index(self.pages)
        stat = self.path.stat()
        digest = hashlib.sha1(f"{self.path.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()
        self.partition = f"local:{digest[:10]}"
        self.delay_s = delay_s
        self.cost_per_call = cost_per_call
        self.calls = 0

    def page(self, url: str) -> Page | None:
        """The corpus page with exactly this URL (trailing slash tolerated)."""
        return self.by_url.get(url) or self.by_url.get(url.rstrip("/")) or self.by_url.get(url + "/")

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        self.calls += 1
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        if not self.pages:
            raise ProviderError(f"local corpus {self.path} is empty")
        cutoff = range_cutoff(request.time_range)
        allowed: set[int] | None = None
        if cutoff is not None:
            # Undated pages stay searchable; dated pages older than the range are dropped.
            allowed = set()
            for idx, page in enumerate(self.pages):
                published = parse_date(page.published_at)
                if published is None or published >= cutoff:
                    allowed.add(idx)
        # Over-fetch so that the domain filters still leave enough hits; a snippet (the costly part: a page's
        # sentences are split and tokenised on its first use) is made only for the hits kept.
        results: list[SearchResult] = []
        for idx, score in self.index.search(request.query, request.max_results * 3 + 10, allowed):
            page = self.pages[idx]
            if not passes_filters(page.url, domain_of(page.url), request):
                continue
            results.append(SearchResult(title=page.title, url=page.url, snippet=snippet_for(page, request.query),
                                        score=score, published_at=page.published_at))
            if len(results) == request.max_results:
                break
        return results
