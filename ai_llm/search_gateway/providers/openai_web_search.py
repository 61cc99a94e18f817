"""`openai_web_search`: OpenAI's own web search (the Responses API with the `web_search` tool) as a provider.

`POST {base}/v1/responses` with `{"model", "input", "tools": [{"type": "web_search"}],
"include": ["web_search_call.action.sources"]}`. The reply's `output` holds `web_search_call` items and a
`message` item whose `output_text` parts carry the answer `text` and its `url_citation` annotations
(`url`, `title`, `start_index`, `end_index`); `usage` gives `input_tokens` / `output_tokens`.

A result is one cited source: the citation's title and URL, and as snippet the answer's sentence(s) that
cite it. An annotation's range usually covers the inline citation link the model wrote after the sentence
("… ([site](url))"); then the sentence before it is the cited span. A range that covers plain prose is that
prose itself. The `message` items' whole text is the call's `answer` (the search's `provider_answer`).
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ai_llm.search_gateway.models import ProviderError, SearchRequest, SearchResult
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

DEFAULT_BASE_URL = "https://api.openai.com"
DEFAULT_MODEL = "gpt-4.1-mini"
#: USD: the web search tool per call, and gpt-4.1-mini's tokens per million (the vendor's price sheet).
DEFAULT_PRICES = TokenPrices(per_call=0.01, input_per_mtok=0.40, output_per_mtok=1.60)

_LINK = re.compile(r"\s*\(?\[[^\]]*\]\([^)]*\)\)?")
_BOUNDARY = re.compile(r"[.!?。]\s+|\n+")


def _is_marker(span: str) -> bool:
    return not span.strip() or "](" in span or "http://" in span or "https://" in span


def sentence_before(text: str, position: int) -> str:
    """The sentence that ends where an inline citation starts (other citation links left out)."""
    before = _LINK.sub("", text[:position]).rstrip(" (")
    cut = 0
    for boundary in _BOUNDARY.finditer(before):
        if boundary.end() < len(before):
            cut = boundary.end()
    return before[cut:]


def cited_span(text: str, start: Any, end: Any) -> str:
    """The answer text an annotation cites (empty when its range is not valid)."""
    if not isinstance(start, int) or not isinstance(end, int) or not 0 <= start <= end <= len(text):
        return ""
    span = text[start:end]
    return sentence_before(text, start) if _is_marker(span) else span


def strip_tracking(url: str) -> str:
    """The URL without the `utm_source=openai` parameter OpenAI appends to cited links."""
    parts = urlsplit(url)
    if "utm_source" not in parts.query:
        return url
    query = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True)
             if not (k == "utm_source" and v == "openai")]
    return urlunsplit((parts.scheme, parts.netloc, parts.path, urlencode(query), parts.fragment))


def parse_reply(data: dict[str, Any]) -> tuple[list[SearchResult], str | None]:
    """Cited sources of a Responses API reply and the answer's whole text (None without one); `ProviderError`
    when it is not the documented shape."""
    if data.get("error") or data.get("status") == "failed":
        error = data.get("error")
        message = error.get("message") if isinstance(error, dict) else error
        raise ProviderError(f"openai_web_search: the response failed: {message or 'no reason given'}")
    output = data.get("output")
    if not isinstance(output, list):
        raise ProviderError("openai_web_search: malformed response: no 'output' list")
    sources: dict[str, Source] = {}
    texts: list[str] = []
    for item in output:
        if not isinstance(item, dict) or item.get("type") != "message":
            continue
        content = item.get("content")
        if not isinstance(content, list):
            raise ProviderError("openai_web_search: malformed response: a message without a 'content' list")
        for part in content:
            if not isinstance(part, dict) or part.get("type") != "output_text":
                continue
            text = part.get("text")
            annotations = part.get("annotations") or []
            if not isinstance(text, str) or not isinstance(annotations, list):
                raise ProviderError("openai_web_search: malformed response: output_text without text")
            texts.append(text)
            for note in annotations:
                if not isinstance(note, dict) or note.get("type") != "url_citation":
                    continue
                url = note.get("url")
                if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                    continue
                url = strip_tracking(url)
                source = sources.setdefault(url, Source(title=str(note.get("title") or ""), url=url))
                source.cite(cited_span(text, note.get("start_index"), note.get("end_index")))
    return to_results(list(sources.values())), whole_answer(texts)


class OpenAIWebSearchProvider:
    """OpenAI Responses API with the `web_search` tool.

    Args:
        api_key: `OPENAI_WEB_SEARCH_API_KEY`.
        base_url: API base without `/v1` (`OPENAI_WEB_SEARCH_BASE_URL`; tests point it at a local server).
        model: the model that searches and answers.
        prices: the tool's price per call and the model's token prices.
    """

    name = "openai_web_search"

    def __init__(self, api_key: str, base_url: str | None = None, model: str = DEFAULT_MODEL,
                 prices: TokenPrices = DEFAULT_PRICES, timeout_s: float = 30.0) -> None:
        self.api_key = api_key
        base = (base_url or DEFAULT_BASE_URL).rstrip("/")
        self.endpoint_url = (base[:-3] if base.endswith("/v1") else base) + "/v1/responses"
        self.model = model
        self.prices = prices
        self.cost_per_call = prices.per_call  # what a failed or timed-out call is billed
        self.timeout_s = timeout_s
        self.partition = f"{self.name}:{model}"

    def request_body(self, request: SearchRequest) -> dict[str, Any]:
        tool: dict[str, Any] = {"type": "web_search"}
        if request.region and len(request.region) == 2 and request.region.isalpha():
            tool["user_location"] = {"type": "approximate", "country": request.region.upper()}
        return {"model": self.model, "input": request.query, "tools": [tool],
                "include": ["web_search_call.action.sources"]}

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        data = await post_json(self.name, self.endpoint_url,
                               {"Authorization": f"Bearer {self.api_key}", "Content-Type": "application/json"},
                               self.request_body(request), self.timeout_s)
        results, answer = parse_reply(data)
        usage = obj(data.get("usage"))
        input_tokens, output_tokens = tokens_of(usage.get("input_tokens")), tokens_of(usage.get("output_tokens"))
        return PricedResults(results, self.prices.cost(input_tokens, output_tokens), input_tokens + output_tokens,
                             answer)
