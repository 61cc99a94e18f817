"""What the model vendors' own web search providers share (`openai_web_search`, `gemini_grounding`).

Such a provider asks a model to answer the query with its built-in search and turns the reply into one
result per cited source: the source's title and URL, and as snippet the span(s) of the model's answer that
cite it. Prose that cites nothing is dropped from the results, and so is a source the answer never cites;
the model's whole answer is kept apart (`PricedResults.answer`, the search's `provider_answer`) for callers
that want it, never mixed into a snippet.

A call costs the tool's price per call plus the tokens the model read and wrote, at the prices in the
gateway config (`cost_per_call`, `input_usd_per_mtok`, `output_usd_per_mtok`). The provider returns its
results as `PricedResults`, a list that carries that cost, the token count and the answer, which the gateway
records instead of the flat `cost_per_call`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from ai_llm.search_gateway.models import ProviderError, SearchResult
from ai_llm.search_gateway.providers.base import rank_score, request_json

#: Longest snippet kept per source (the cited spans joined).
MAX_SNIPPET = 600
#: Longest answer kept as `provider_answer` (a grounded answer is a few thousand characters; this bounds the
#: cache entry and the tool reply should a model run on).
MAX_ANSWER = 32_000
_SPACE = re.compile(r"\s+")


class PricedResults(list[SearchResult]):
    """Results of one call together with what the call cost (USD), its tokens and the model's whole answer
    (None when the reply has no answer text)."""

    def __init__(self, results: list[SearchResult], cost_usd: float, tokens: int, answer: str | None = None) -> None:
        super().__init__(results)
        self.cost_usd = cost_usd
        self.tokens = tokens
        self.answer = answer


def whole_answer(parts: list[str]) -> str | None:
    """The answer's text parts as one text (None when there is none), cut at MAX_ANSWER characters."""
    text = "\n\n".join(part.strip() for part in parts if part.strip())
    if not text:
        return None
    return text if len(text) <= MAX_ANSWER else text[: MAX_ANSWER - 1].rstrip() + "…"


@dataclass
class TokenPrices:
    """Price of one call: the tool's per-call price plus tokens at USD per million."""

    per_call: float = 0.0
    input_per_mtok: float = 0.0
    output_per_mtok: float = 0.0

    def cost(self, input_tokens: int, output_tokens: int) -> float:
        return self.per_call + (input_tokens * self.input_per_mtok + output_tokens * self.output_per_mtok) / 1e6


def price_option(options: dict[str, Any], key: str, name: str) -> float:
    """A non-negative price from a provider's config options (0 when absent); `ProviderError`-free:
    a bad value is a `ValueError` naming the provider and key, raised when the gateway is built."""
    value = options.get(key, 0.0)
    try:
        number = float(value)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{name}: {key} must be a number, not {value!r}") from exc
    if number < 0:
        raise ValueError(f"{name}: {key} must not be negative")
    return number


def obj(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one (for optional parts of a reply)."""
    return value if isinstance(value, dict) else {}


def tokens_of(value: Any) -> int:
    """A token count from a usage field (0 when absent or not a number)."""
    return int(value) if isinstance(value, int | float) and value > 0 else 0


async def post_json(name: str, url: str, headers: dict[str, str], body: dict[str, Any],
                    timeout_s: float) -> dict[str, Any]:
    """POST `body`; the JSON object answered, or the gateway's usual provider errors (429 → `RateLimited`,
    other HTTP errors, transport failures and a reply that is not a JSON object → `ProviderError`)."""
    data = await request_json(name, "POST", url, timeout_s=timeout_s, headers=headers, body=body)
    if not isinstance(data, dict):
        raise ProviderError(f"{name}: malformed response: not a JSON object")
    return data


def clean_span(text: str) -> str:
    """A cited span as one line of prose (markdown emphasis and list bullets removed)."""
    text = re.sub(r"^[\s>*#-]+", "", text.replace("**", "").replace("__", ""))
    return _SPACE.sub(" ", text).strip()


@dataclass
class Source:
    """One cited source while a reply is read: its spans in order of first citation, and the best score the
    vendor gave one of them (None when it gives none)."""

    title: str
    url: str
    site: str | None = None
    spans: list[str] | None = None
    confidence: float | None = None

    def cite(self, span: str, confidence: float | None = None) -> None:
        span = clean_span(span)
        if self.spans is None:
            self.spans = []
        if span and span not in self.spans:
            self.spans.append(span)
        if confidence is not None:
            self.confidence = max(self.confidence or 0.0, confidence)


def to_results(sources: list[Source]) -> list[SearchResult]:
    """Cited sources (in order of first citation) as results; the vendor's confidence is the score where it
    gives one, else a score from the citation order."""
    cited = [s for s in sources if s.spans]
    out = []
    for rank, source in enumerate(cited):
        snippet = " … ".join(source.spans or [])
        if len(snippet) > MAX_SNIPPET:
            snippet = snippet[: MAX_SNIPPET - 1].rstrip() + "…"
        score = source.confidence if source.confidence is not None else rank_score(rank, len(cited))
        out.append(SearchResult(title=source.title or source.site or source.url, url=source.url, snippet=snippet,
                                source=source.site or "", score=score))
    return out
