"""Declarative HTTP providers: one YAML file describes endpoint, auth, request template, response mapping
and cost (see `serper.yaml`, `exa.yaml`, `brightdata.yaml`, `firecrawl.yaml` beside this module).

Template values: a string that is exactly one `{name}` keeps the variable's type (an int stays an int; a
missing value drops the key); other strings are formatted. Variables: `query`, `query_urlencoded`,
`max_results`, `region`, `time_range` (after `time_range_map`), `include_domains`, `exclude_domains`,
`api_key`, plus any option from the gateway config's provider section (e.g. `zone`).
Response mapping: `results` (and `news_results`) is a dotted path to the list; each field (`title`, `url`,
`snippet`, `published_at`, `score`) is a dotted path or a list of alternatives tried in order.
"""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import quote_plus, urlsplit, urlunsplit

from ai_llm.search_gateway.config import AdapterSpec
from ai_llm.search_gateway.models import ProviderError, SearchRequest, SearchResult
from ai_llm.search_gateway.providers.base import rank_score, request_json

_SINGLE = re.compile(r"^\{(\w+)\}$")


def render(template: Any, variables: dict[str, Any]) -> Any:
    """Fill a request template (dicts/lists recursively); keys whose value is missing are dropped."""
    if isinstance(template, dict):
        out = {}
        for key, value in template.items():
            rendered = render(value, variables)
            if rendered is not None and rendered != [] and rendered != "":
                out[str(key)] = rendered
        return out
    if isinstance(template, list):
        return [r for r in (render(v, variables) for v in template) if r is not None]
    if isinstance(template, str):
        single = _SINGLE.match(template)
        if single:
            value = variables.get(single.group(1))
            return list(value) if isinstance(value, tuple) else value
        return re.sub(r"\{(\w+)\}", lambda m: "" if variables.get(m.group(1)) is None
                      else str(variables[m.group(1)]), template)
    return template


def dig(data: Any, path: str | list[str] | None) -> Any:
    """Value at a dotted path (`data.web`, `results.0.title`); a list of paths returns the first found."""
    if path is None:
        return None
    if isinstance(path, list):
        for alternative in path:
            value = dig(data, alternative)
            if value not in (None, "", []):
                return value
        return None
    current = data
    for part in str(path).split("."):
        if isinstance(current, dict):
            current = current.get(part)
        elif isinstance(current, list) and part.isdigit() and int(part) < len(current):
            current = current[int(part)]
        else:
            return None
    return current


def _with_base(endpoint: str, base_url: str | None) -> str:
    """Replace scheme+host of `endpoint` by `base_url` (tests, proxies, self-hosted instances)."""
    if not base_url:
        return endpoint
    base = urlsplit(base_url)
    parts = urlsplit(endpoint)
    return urlunsplit((base.scheme, base.netloc, base.path.rstrip("/") + parts.path, parts.query, ""))


class HttpAdapterProvider:
    """A provider driven by an `AdapterSpec`.

    Args:
        spec: the parsed YAML adapter.
        api_key: the key named by `api_key_setting`.
        options: the gateway config's provider options (`base_url`, template extras such as `zone`).
        cost_per_call: overrides the adapter's default.
    """

    def __init__(self, spec: AdapterSpec, api_key: str | None, options: dict[str, Any] | None = None,
                 cost_per_call: float | None = None, timeout_s: float = 8.0) -> None:
        self.spec = spec
        self.name = spec.name
        self.partition = spec.name
        self.api_key = api_key
        self.options = dict(options or {})
        self.cost_per_call = spec.cost_per_call if cost_per_call is None else cost_per_call
        self.timeout_s = timeout_s

    @property
    def endpoint_url(self) -> str:
        """Where its searches go (the health probe connects there)."""
        return _with_base(self.spec.endpoint, self.options.get("base_url"))

    def build_request(self, request: SearchRequest) -> tuple[str, str, dict[str, Any], Any, Any]:
        """(method, url, headers, json body, query params) for a search."""
        time_range = None
        if request.time_range and request.time_range != "all":
            time_range = self.spec.time_range_map.get(request.time_range, request.time_range)
        variables: dict[str, Any] = {
            **{k: v for k, v in self.options.items() if k != "base_url"},
            "query": request.query, "query_urlencoded": quote_plus(request.query),
            "max_results": request.max_results, "region": request.region, "time_range": time_range,
            "include_domains": list(request.include_domains) or None,
            "exclude_domains": list(request.exclude_domains) or None, "api_key": self.api_key,
            "topic": request.kind,
        }
        endpoint = self.spec.news_endpoint if request.kind == "news" and self.spec.news_endpoint \
            else self.spec.endpoint
        url = _with_base(render(endpoint, variables), self.options.get("base_url"))
        headers = {str(k): str(v) for k, v in render(self.spec.headers, variables).items()}
        body = render(self.spec.body, variables) if self.spec.body is not None else None
        params = render(self.spec.params, variables) if self.spec.params is not None else None
        return self.spec.method, url, headers, body, params

    def parse(self, data: Any, kind: str) -> list[SearchResult]:
        """Map a provider response onto results; `ProviderError` when it is not the documented shape."""
        mapping = self.spec.response
        path = mapping.get("news_results") if kind == "news" and mapping.get("news_results") else mapping["results"]
        items = dig(data, path)
        if not isinstance(items, list):
            raise ProviderError(f"{self.name}: malformed response: no result list at {path!r}")
        out = []
        for rank, item in enumerate(items):
            if not isinstance(item, dict):
                continue
            url = dig(item, mapping["url"])
            if not isinstance(url, str) or not url.startswith(("http://", "https://")):
                continue
            raw_score = dig(item, mapping.get("score"))
            score = float(raw_score) if isinstance(raw_score, int | float) and 0 <= raw_score <= 1 \
                else rank_score(rank, len(items))
            published = dig(item, mapping.get("published_at"))
            out.append(SearchResult(title=str(dig(item, mapping.get("title")) or url), url=url,
                                    snippet=str(dig(item, mapping.get("snippet")) or "")[:600], score=score,
                                    published_at=str(published) if published else None))
        return out

    async def search(self, request: SearchRequest) -> list[SearchResult]:
        method, url, headers, body, params = self.build_request(request)
        data = await request_json(self.name, method, url, timeout_s=self.timeout_s, headers=headers, body=body,
                                  params=params)
        return self.parse(data, request.kind)
