"""`gemini_grounding`: Gemini's grounding with Google Search as a provider.

`POST {base}/v1beta/models/{model}:generateContent` with `{"contents": [...], "tools": [{"google_search": {}}]}`.
The candidate's `groundingMetadata` holds `webSearchQueries`, `groundingChunks: [{web: {uri, title}}]` and
`groundingSupports: [{segment: {startIndex, endIndex, text}, groundingChunkIndices, confidenceScores}]`;
`usageMetadata` gives the tokens.

A result is one cited chunk, titled with the site the chunk names (`title`, such as `wikipedia.org`). Its
URL: the chunk's `uri` is a Google redirect; with a `RedirectResolver` (the gateway config's
`fetch.resolve_redirects`) each result the search returns is resolved with one request that reads the
redirect's `Location` without following it, and the URL is that target (`source` its domain). Unresolved (no
resolver, an error, a refusal, not a redirect, or later than the resolver's budget) the redirect is kept as the
URL and `source` is the site the chunk names, so domain filters and the dashboard see the site, not the
redirect host; a result is never dropped for it. The snippet is the answer's segment(s) that cite the chunk;
the score the best confidence Gemini gave one of them, or one from the citation order when it gives none.
The candidate's whole text is the call's `answer` (the search's `provider_answer`).
"""

from __future__ import annotations

import logging
import re
from dataclasses import replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from ai_llm.search_gateway.models import ProviderError, SearchRequest, SearchResult, domain_of
from ai_llm.search_gateway.providers.native import (
    PricedResults,
    Source,
    TokenPrices,
    obj,
    post_json,
    to_results,
    tokens_of,
    whole_answer,
)

if TYPE_CHECKING:
    from ai_llm.search_gateway.fetch import RedirectResolver

log = logging.getLogger(__name__)

DEFAULT_BASE_URL = "https://generativelanguage.googleapis.com"
DEFAULT_MODEL = "gemini-2.5-flash"
#: USD: a grounded prompt, and gemini-2.5-flash's tokens per million (the vendor's price sheet).
DEFAULT_PRICES = TokenPrices(per_call=0.035, input_per_mtok=0.30, output_per_mtok=2.50)

_SITE = re.compile(r"^(?:[a-z0-9](?:[a-z0-9-]*[a-z0-9])?\.)+[a-z]{2,}$")


def _site(title: str) -> str | None:
    site = title.strip().lower()
    site = site[4:] if site.startswith("www.") else site
    return site if _SITE.match(site) else None


def _segment_text(segment: dict[str, Any], answer: bytes) -> str:
    """A support's text: its `text`, else the answer bytes between its indices (Gemini counts bytes)."""
    text = segment.get("text")
    if isinstance(text, str) and text.strip():
        return text
    start, end = segment.get("startIndex", 0), segment.get("endIndex")
    if isinstance(start, int) and isinstance(end, int) and 0 <= start < end <= len(answer):
        return answer[start:end].decode("utf-8", "replace")
    return ""


def _list(value: Any, what: str) -> list[Any]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise ProviderError(f"gemini_grounding: malformed response: {what} is not a list")
    return value


def parse_reply(data: dict[str, Any]) -> tuple[list[SearchResult], str | None]:
    """Cited sources of a `generateContent` reply (URLs as given) and the answer's whole text (None without
    one); `ProviderError` when it is not the documented shape."""
    candidates = _list(data.get("candidates"), "candidates")
    if not candidates:  # a blocked prompt (`promptFeedback`) or nothing to say: no sources
        return [], None
    candidate = candidates[0]
    if not isinstance(candidate, dict):
        raise ProviderError("gemini_grounding: malformed response: a candidate is not an object")
    metadata = candidate.get("groundingMetadata") or {}
    if not isinstance(metadata, dict):
        raise ProviderError("gemini_grounding: malformed response: groundingMetadata is not an object")
    content = obj(candidate.get("content"))
    answer = "".join(str(p.get("text") or "") for p in content.get("parts") or [] if isinstance(p, dict))
    chunks: list[Source | None] = []
    for chunk in _list(metadata.get("groundingChunks"), "groundingChunks"):
        web = chunk.get("web") if isinstance(chunk, dict) else None
        uri = web.get("uri") if isinstance(web, dict) else None
        if not isinstance(uri, str) or not uri.startswith(("http://", "https://")):
            chunks.append(None)
            continue
        title = str(web.get("title") or "")  # type: ignore[union-attr]
        chunks.append(Source(title=title, url=uri, site=_site(title)))
    order: list[Source] = []
    encoded = answer.encode("utf-8")
    for support in _list(metadata.get("groundingSupports"), "groundingSupports"):
        if not isinstance(support, dict):
            continue
        segment = obj(support.get("segment"))
        span = _segment_text(segment, encoded)
        scores = _list(support.get("confidenceScores"), "confidenceScores")
        for k, index in enumerate(_list(support.get("groundingChunkIndices"), "groundingChunkIndices")):
            source = chunks[index] if isinstance(index, int) and 0 <= index < len(chunks) else None
            if source is None:
                continue
            score = scores[k] if k < len(scores) and isinstance(scores[k], int | float) else None
            if source not in order:
                order.append(source)
            source.cite(span, float(score) if score is not None else None)
    return to_results(order), whole_answer([answer])


class GeminiGroundingProvider:
    """Gemini `generateContent` with the `google_search` tool.

    Args:
        api_key: `GEMINI_API_KEY` (sent as `x-goog-api-key`).
        base_url: API base (`GEMINI_BASE_URL`; tests point it at a local server).
        model: the model that searches and answers.
        prices: the price of a grounded prompt and the model's token prices.
        resolver: reads where each returned source's redirect points (None: the redirects are kept).
    """

    name = "gemini_grounding"

    def __init__(self, api_key: str, base_url: str | None = None, model: str = DEFAULT_MODEL,
                 prices: TokenPrices = DEFAULT_PRICES, timeout_s: float = 30.0,
                 resolver: RedirectResolver | None = None) -> None:
        self.api_key = api_key
        self.resolver = resolver
        base = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.endpoint_url = f"{base}/v1beta/models/{quote(model, safe='.-_')}:generateContent"
        self.model = model
        self.prices = prices
        self.cost_per_call = prices.per_call  # what a failed or timed-out call is billed
        self.timeout_s = timeout_s
        self.partition = f"{self.name}:{model}"

    def request_body(self, request: SearchRequest) -> dict[str, Any]:
        return {"contents": [{"role": "user", "parts": [{"text": request.query}]}],
                "tools": [{"google_search": {}}]}

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        data = await post_json(self.name, self.endpoint_url,
                               {"x-goog-api-key": self.api_key, "Content-Type": "application/json"},
                               self.request_body(request), self.timeout_s)
        results, answer = parse_reply(data)
        if self.resolver is not None and results:
            results = await self.resolve(results[: request.max_results]) + results[request.max_results:]
        usage = obj(data.get("usageMetadata"))
        input_tokens = tokens_of(usage.get("promptTokenCount")) + tokens_of(usage.get("toolUsePromptTokenCount"))
        output_tokens = tokens_of(usage.get("candidatesTokenCount")) + tokens_of(usage.get("thoughtsTokenCount"))
        return PricedResults(results, self.prices.cost(input_tokens, output_tokens), input_tokens + output_tokens,
                             answer)

    async def resolve(self, results: list[SearchResult]) -> list[SearchResult]:
        """`results` with each redirect URL replaced by its target where the resolver read one (`source`: the
        target's domain); a later result resolving to an earlier one's URL is left out, none is lost else."""
        assert self.resolver is not None
        try:
            targets = await self.resolver.targets([r.url for r in results])
        except Exception as exc:  # resolving is a nicety: the results stand with their redirects
            log.warning("gemini_grounding: redirects not resolved: %s", exc)
            return results
        out: list[SearchResult] = []
        seen: set[str] = set()
        for result in results:
            target = targets.get(result.url)
            if target is not None:
                result = replace(result, url=target, source=domain_of(target))
            if result.url not in seen:
                seen.add(result.url)
                out.append(result)
        return out
