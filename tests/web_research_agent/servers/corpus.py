"""A small scored page corpus shared by the test MCP servers (JSONL of {url, title, content, published_at}).

Scores are idf-weighted coverage of the query's tokens by the page (0–1), so a nonsense query scores ~0 and a
query naming a page's distinctive words scores near 1.
"""

from __future__ import annotations

import json
import math
import re
from pathlib import Path
from typing import Any

_WORD = re.compile(r"[0-9a-z\uac00-\ud7a3]+")
STOP = set("a an the of in on at to for and or is are was were what which who how when where does did do".split())


def tokens(text: str) -> set[str]:
    return {w for w in _WORD.findall(text.lower()) if w not in STOP}


class Corpus:
    def __init__(self, path: str | None) -> None:
        self.pages: list[dict[str, Any]] = []
        if path:
            for line in Path(path).read_text(encoding="utf-8").splitlines():
                if line.strip():
                    self.pages.append(json.loads(line))
        self.by_url = {p["url"]: p for p in self.pages}
        self.df: dict[str, int] = {}
        self.page_tokens = [tokens(p["title"] + " " + p["content"]) for p in self.pages]
        for toks in self.page_tokens:
            for t in toks:
                self.df[t] = self.df.get(t, 0) + 1

    def idf(self, token: str) -> float:
        return math.log((len(self.pages) + 1) / (self.df.get(token, 0) + 0.5))

    def search(self, query: str, k: int) -> list[tuple[float, dict[str, Any]]]:
        q = tokens(query)
        total = sum(self.idf(t) for t in q)
        if not q or total <= 0:
            return []
        scored = []
        for page, toks in zip(self.pages, self.page_tokens, strict=True):
            score = sum(self.idf(t) for t in q & toks) / total
            if score > 0:
                scored.append((round(score, 4), page))
        scored.sort(key=lambda item: item[0], reverse=True)
        return scored[:k]
