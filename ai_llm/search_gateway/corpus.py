"""Build a local-provider corpus from the HotpotQA distractor file (a closed "web" of Wikipedia intros).

Every context paragraph becomes one page `{url, title, content, published_at}` whose URL is the
paragraph's Wikipedia address, so `fetch_page` can serve it offline and evaluations can map a result URL
back to its HotpotQA title (`title_for_url`).
"""

from __future__ import annotations

import html
import json
from pathlib import Path
from typing import Any
from urllib.parse import quote, unquote

WIKI = "https://en.wikipedia.org/wiki/"


def wiki_url(title: str) -> str:
    """Wikipedia URL of a HotpotQA paragraph title."""
    return WIKI + quote(html.unescape(title).replace(" ", "_"), safe="()_,'!-.:")


def title_for_url(url: str) -> str:
    """Inverse of `wiki_url` (HTML entities of the original title unescaped)."""
    return unquote(url.removeprefix(WIKI)).replace("_", " ")


def read_hotpotqa(path: Path) -> list[dict[str, Any]]:
    """Rows of a HotpotQA JSONL file (`question`, `answer`, `supporting_facts`, `context`, …)."""
    with Path(path).open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def hotpotqa_pages(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Unique pages (first occurrence of each title) of the rows' context paragraphs."""
    pages: dict[str, dict[str, Any]] = {}
    for row in rows:
        for title, sentences in row["context"]:
            url = wiki_url(title)
            if url not in pages:
                pages[url] = {"url": url, "title": html.unescape(title),
                              "content": "".join(sentences).strip(), "published_at": None}
    return list(pages.values())


def write_hotpotqa_corpus(source: Path, target: Path) -> int:
    """Write the corpus JSONL for `source` (a HotpotQA file) to `target`; returns the page count."""
    pages = hotpotqa_pages(read_hotpotqa(source))
    target.parent.mkdir(parents=True, exist_ok=True)
    with target.open("w", encoding="utf-8") as handle:
        for page in pages:
            handle.write(json.dumps(page, ensure_ascii=False) + "\n")
    return len(pages)
