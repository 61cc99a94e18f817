"""Query clean-up and normalisation for cache keys.

`clean_query` is what the provider sees (NFKC, collapsed whitespace, truncated at a word boundary when too
long); `normalize_query` is the cache key form (also case-folded, punctuation removed), so that
"Seoul  weather?" and "seoul weather" share one exact-cache entry. Symbols that name another thing when they
follow a word — "Galaxy S25+", "C++", "C#" — are kept, so they never share an entry with the bare word.
"""

from __future__ import annotations

import re
import unicodedata

MAX_QUERY_CHARS = 400

_PUNCT = re.compile(r"[^\w\s]", re.UNICODE)
#: Punctuation of a cache key, except `+` and `#` that end a word (S25+, C++, C#; not seoul+weather, issue#12).
_KEY_PUNCT = re.compile(r"[^\w\s+#]|(?<![\w+#])[+#]+|[+#]+(?=\w)", re.UNICODE)


class BadQuery(ValueError):
    """The query cannot be searched (empty after clean-up)."""


def clean_query(query: str, max_chars: int = MAX_QUERY_CHARS) -> tuple[str, str | None]:
    """Return (query to search, notice or None). Raises `BadQuery` when nothing searchable is left."""
    if not isinstance(query, str):
        raise BadQuery("query must be a string")
    text = re.sub(r"\s+", " ", unicodedata.normalize("NFKC", query)).strip()
    if not text or not _PUNCT.sub("", text).strip():
        raise BadQuery("query is empty")
    if len(text) <= max_chars:
        return text, None
    cut = text[:max_chars]
    space = cut.rfind(" ")
    # Cut at the last word boundary unless that throws away most of the text (e.g. unspaced Korean).
    if space >= max_chars * 0.6:
        cut = cut[:space]
    cut = cut.rstrip()
    return cut, f"query truncated from {len(text)} to {len(cut)} characters (limit {max_chars})"


def normalize_query(query: str) -> str:
    """Cache-key form: NFKC, case-folded, punctuation dropped, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", query).casefold()
    text = _KEY_PUNCT.sub(" ", text)
    return re.sub(r"\s+", " ", text).strip()


def normalize_domains(domains: list[str] | tuple[str, ...] | str | None) -> tuple[str, ...]:
    """Domain filters as a sorted, de-duplicated tuple of bare lower-case hosts."""
    if not domains:
        return ()
    if isinstance(domains, str):
        domains = [d for d in re.split(r"[,\s]+", domains) if d]
    out = set()
    for domain in domains:
        d = domain.strip().lower()
        d = re.sub(r"^[a-z]+://", "", d).split("/")[0]
        if d.startswith("www."):
            d = d[4:]
        if d:
            out.add(d)
    return tuple(sorted(out))
