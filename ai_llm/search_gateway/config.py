"""Gateway configuration: one YAML file (path in `SEARCH_CONFIG`; default `search_config.yaml` beside this
module) holding the provider chain, per-provider timeout / depth / cost / TTLs, cache and fetch limits,
plus the declarative HTTP adapters (`providers/*.yaml`, one file per provider).

Errors name the file and line: an unknown provider in the chain is refused at start-up, not at the first
query.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from ai_llm.common.settings import Settings

DEFAULT_CONFIG = Path(__file__).with_name("search_config.yaml")
ADAPTERS_DIR = Path(__file__).with_name("providers")
BUILTIN_PROVIDERS = ("tavily", "duckduckgo", "local", "openai_web_search", "gemini_grounding")
DAY = 86_400


class ConfigError(ValueError):
    """The gateway configuration is invalid; the message names file and line."""


class _LineStr(str):
    line: int = 0


class _LineLoader(yaml.SafeLoader):
    """SafeLoader whose strings remember their line, for error messages."""


def _construct_str(loader: yaml.SafeLoader, node: yaml.ScalarNode) -> _LineStr:
    value = _LineStr(loader.construct_scalar(node))
    value.line = node.start_mark.line + 1
    return value


_LineLoader.add_constructor("tag:yaml.org,2002:str", _construct_str)


def _where(path: Path, value: Any) -> str:
    line = getattr(value, "line", 0)
    return f"{path}:{line}" if line else str(path)


def load_yaml(path: Path) -> dict[str, Any]:
    """Parse a YAML mapping, with line-aware strings; `ConfigError` on syntax errors."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ConfigError(f"cannot read {path}: {exc.strerror}") from exc
    try:
        data = yaml.load(text, Loader=_LineLoader)  # a SafeLoader subclass
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise ConfigError(f"{path}{line}: invalid YAML: {getattr(exc, 'problem', exc)}") from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: expected a mapping at the top level")
    return data


@dataclass
class ProviderConfig:
    """Per-provider policy from the config file."""

    name: str
    timeout_s: float = 8.0
    max_results: int = 10
    cost_per_call: float | None = None  # None: the adapter's own default
    ttl_general_s: int = 7 * DAY
    ttl_fresh_s: int = 3600
    options: dict[str, Any] = field(default_factory=dict)  # base_url, delay_s, zone, …


@dataclass
class CacheConfig:
    enabled: bool = True
    semantic: bool = True
    semantic_threshold: float = 0.25
    embed_timeout_s: float = 5.0
    #: Serve a semantic hit only when `query_match.same_request` holds (False: cosine alone, the old policy).
    semantic_guard: bool = True
    #: How many nearest cached queries above the threshold are checked, nearest first.
    semantic_candidates: int = 10


@dataclass
class FetchConfig:
    timeout_s: float = 15.0
    max_bytes: int = 3 * 1024 * 1024
    #: Read where a provider's redirect URLs point (Gemini's grounding sources), one request each, not followed.
    resolve_redirects: bool = True
    #: The most a search waits for those requests, all together (seconds); a late one keeps its redirect.
    redirect_timeout_s: float = 3.0


@dataclass
class AdapterSpec:
    """A declarative HTTP provider (see `providers/serper.yaml` for the documented format)."""

    name: str
    path: Path
    endpoint: str
    news_endpoint: str | None = None
    method: str = "POST"
    api_key_setting: str | None = None
    headers: dict[str, Any] = field(default_factory=dict)
    body: dict[str, Any] | None = None
    params: dict[str, Any] | None = None
    time_range_map: dict[str, Any] = field(default_factory=dict)
    response: dict[str, Any] = field(default_factory=dict)
    cost_per_call: float = 0.0


#: A workload's name: what callers send (`research`, `fact_check`, `news`, `latest`, or one a team adds).
WORKLOAD_NAME = re.compile(r"^[a-z][a-z0-9_-]{0,39}$")
#: In a workload's chain, the search kind's own chain (`chain` or `news_chain`) at that place.
DEFAULT_CHAIN = "default"
TTL_CLASSES = ("general", "fresh")


@dataclass
class WorkloadConfig:
    """How one kind of caller is served: its provider chain (None = the kind's chain; `default` inside it
    stands for the kind's chain), its depth when the caller names none, and its cache TTL class."""

    name: str
    chain: list[str] | None = None
    max_results: int | None = None
    ttl: str | None = None  # general | fresh; None = by the request (fresh for news and time_range=day)


@dataclass
class GatewayConfig:
    path: Path
    chain: list[str] | None  # None = auto
    news_chain: list[str] | None
    providers: dict[str, ProviderConfig]
    adapters: dict[str, AdapterSpec]
    cache: CacheConfig
    fetch: FetchConfig
    workloads: dict[str, WorkloadConfig] = field(default_factory=dict)

    def provider(self, name: str) -> ProviderConfig:
        return self.providers.get(name) or ProviderConfig(name=name)


def _number(path: Path, key: Any, value: Any, kind: type = float, where: Any = None) -> Any:
    where = where if getattr(where, "line", 0) else value if getattr(value, "line", 0) else key
    try:
        number = kind(value)
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{_where(path, where)}: {key} must be a number, not {str(value)!r}") from exc
    if number < 0:
        raise ConfigError(f"{_where(path, where)}: {key} must not be negative")
    return number


def load_adapter(path: Path) -> AdapterSpec:
    """Read one declarative adapter file."""
    data = load_yaml(path)
    name = data.get("name") or path.stem
    for required in ("endpoint", "response"):
        if required not in data:
            raise ConfigError(f"{path}: adapter {name!r} lacks the required key {required!r}")
    response = data["response"]
    if not isinstance(response, dict) or "results" not in response or "url" not in response:
        raise ConfigError(f"{_where(path, data.get('response'))}: 'response' needs at least 'results' "
                          "(path of the result list) and 'url' (field of each result)")
    method = str(data.get("method", "POST")).upper()
    if method not in ("GET", "POST"):
        raise ConfigError(f"{_where(path, data.get('method'))}: method must be GET or POST")
    return AdapterSpec(
        name=str(name), path=path, endpoint=str(data["endpoint"]),
        news_endpoint=str(data["news_endpoint"]) if data.get("news_endpoint") else None, method=method,
        api_key_setting=str(data["api_key_setting"]) if data.get("api_key_setting") else None,
        headers=dict(data.get("headers") or {}), body=data.get("body"), params=data.get("params"),
        time_range_map=dict(data.get("time_range_map") or {}), response=dict(response),
        cost_per_call=_number(path, "cost_per_call", data.get("cost_per_call", 0.0)),
    )


def load_adapters(*dirs: Path) -> dict[str, AdapterSpec]:
    adapters: dict[str, AdapterSpec] = {}
    for directory in dirs:
        if directory.is_dir():
            for file in sorted(directory.glob("*.yaml")):
                spec = load_adapter(file)
                adapters[spec.name] = spec
    return adapters


def _chain(path: Path, data: dict[str, Any], key: str, known: set[str]) -> list[str] | None:
    value = data.get(key, "auto")
    if value is None or (isinstance(value, str) and value.strip() == "auto"):
        return None
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list) or not value:
        raise ConfigError(f"{_where(path, value)}: {key} must be 'auto' or a non-empty list of provider names")
    for name in value:
        if name not in known:
            raise ConfigError(f"{_where(path, name)}: unknown provider {str(name)!r} in {key}; "
                              f"known providers: {', '.join(sorted(known))}")
    return [str(name) for name in value]


def load_config(path: Path | None = None) -> GatewayConfig:
    """Load and validate the gateway configuration (defaults when `path` is None)."""
    path = Path(path) if path else DEFAULT_CONFIG
    data = load_yaml(path)
    adapter_dirs = [ADAPTERS_DIR]
    if data.get("adapters_dir"):
        adapter_dirs.append((path.parent / str(data["adapters_dir"])).resolve())
    adapters = load_adapters(*adapter_dirs)
    known = set(BUILTIN_PROVIDERS) | set(adapters)

    providers: dict[str, ProviderConfig] = {}
    raw_providers = data.get("providers") or {}
    if not isinstance(raw_providers, dict):
        raise ConfigError(f"{path}: 'providers' must be a mapping of provider name -> settings")
    for name, options in raw_providers.items():
        if name not in known:
            raise ConfigError(f"{_where(path, name)}: unknown provider {str(name)!r} under providers; "
                              f"known providers: {', '.join(sorted(known))}")
        if not isinstance(options, dict | None):
            raise ConfigError(f"{_where(path, name)}: settings of provider {str(name)!r} must be a mapping")
        options = dict(options or {})
        keys = {str(k): k for k in options}
        ttl = options.pop("ttl", {}) or {}
        if not isinstance(ttl, dict):
            raise ConfigError(f"{_where(path, keys.get('ttl'))}: ttl must be a mapping {{general, fresh}}")
        providers[str(name)] = ProviderConfig(
            name=str(name),
            timeout_s=_number(path, "timeout_s", options.pop("timeout_s", 8.0), where=keys.get("timeout_s")),
            max_results=_number(path, "max_results", options.pop("max_results", 10), int,
                                where=keys.get("max_results")),
            cost_per_call=(_number(path, "cost_per_call", options.pop("cost_per_call"),
                                   where=keys.get("cost_per_call")) if "cost_per_call" in options else None),
            ttl_general_s=_number(path, "general", ttl.get("general", 7 * DAY), int, where=keys.get("ttl")),
            ttl_fresh_s=_number(path, "fresh", ttl.get("fresh", 3600), int, where=keys.get("ttl")),
            options={str(k): v for k, v in options.items()},
        )

    raw_cache = data.get("cache") or {}
    threshold = float(raw_cache.get("semantic_threshold", 0.25))
    if not 0.0 < threshold <= 1.0:
        raise ConfigError(f"{_where(path, 'semantic_threshold')}: semantic_threshold must be in (0, 1]")
    candidates = _number(path, "semantic_candidates", raw_cache.get("semantic_candidates", 10), int)
    if candidates < 1:
        raise ConfigError(f"{_where(path, 'semantic_candidates')}: semantic_candidates must be at least 1")
    cache = CacheConfig(enabled=bool(raw_cache.get("enabled", True)), semantic=bool(raw_cache.get("semantic", True)),
                        semantic_threshold=threshold,
                        embed_timeout_s=float(raw_cache.get("embed_timeout_s", 5.0)),
                        semantic_guard=bool(raw_cache.get("semantic_guard", True)),
                        semantic_candidates=candidates)
    raw_fetch = data.get("fetch") or {}
    redirect_timeout = _number(path, "redirect_timeout_s", raw_fetch.get("redirect_timeout_s", 3.0))
    if not 0 < redirect_timeout <= 30:
        raise ConfigError(f"{_where(path, 'redirect_timeout_s')}: fetch.redirect_timeout_s must be in (0, 30]")
    fetch = FetchConfig(timeout_s=float(raw_fetch.get("timeout_s", 15.0)),
                        max_bytes=int(raw_fetch.get("max_bytes", 3 * 1024 * 1024)),
                        resolve_redirects=bool(raw_fetch.get("resolve_redirects", True)),
                        redirect_timeout_s=redirect_timeout)
    return GatewayConfig(path=path, chain=_chain(path, data, "chain", known),
                         news_chain=_chain(path, data, "news_chain", known), providers=providers,
                         adapters=adapters, cache=cache, fetch=fetch, workloads=_workloads(path, data, known))


def _workloads(path: Path, data: dict[str, Any], known: set[str]) -> dict[str, WorkloadConfig]:
    """`workloads: {name: {chain: [...], max_results: N, ttl: general|fresh}}`, each key optional."""
    raw = data.get("workloads") or {}
    if not isinstance(raw, dict):
        raise ConfigError(f"{path}: 'workloads' must be a mapping of workload name -> settings")
    workloads: dict[str, WorkloadConfig] = {}
    for name, options in raw.items():
        if not isinstance(name, str) or not WORKLOAD_NAME.match(name):
            raise ConfigError(f"{_where(path, name)}: workload name {str(name)!r} must be lower-case letters, "
                              "digits, '_' or '-' (at most 40, starting with a letter)")
        if not isinstance(options, dict | None):
            raise ConfigError(f"{_where(path, name)}: settings of workload {name!r} must be a mapping")
        options = dict(options or {})
        keys = {str(k): k for k in options}
        unknown = set(keys) - {"chain", "max_results", "ttl"}
        if unknown:
            raise ConfigError(f"{_where(path, keys[sorted(unknown)[0]])}: workload {name!r} has unknown setting "
                              f"{sorted(unknown)[0]!r} (known: chain, max_results, ttl)")
        chain = None
        if "chain" in options:
            chain = _chain(path, options, "chain", known | {DEFAULT_CHAIN})
            if chain is None:
                raise ConfigError(f"{_where(path, keys['chain'])}: chain of workload {name!r} must list providers "
                                  f"(or {DEFAULT_CHAIN!r} for the search kind's chain); leave it out for that alone")
        depth = None
        if options.get("max_results") is not None:
            depth = _number(path, "max_results", options["max_results"], int, where=keys["max_results"])
            if not 1 <= depth <= 20:
                raise ConfigError(f"{_where(path, keys['max_results'])}: max_results of workload {name!r} must be "
                                  "from 1 to 20")
        ttl = options.get("ttl")
        if ttl is not None and ttl not in TTL_CLASSES:
            raise ConfigError(f"{_where(path, ttl)}: ttl of workload {name!r} must be general or fresh, not {ttl!r}")
        workloads[name] = WorkloadConfig(name=name, chain=chain, max_results=depth,
                                         ttl=str(ttl) if ttl is not None else None)
    return workloads


def resolve_workload_chain(config: GatewayConfig, settings: Settings, workload: WorkloadConfig,
                           kind: str) -> list[str]:
    """Provider names a workload tries for a search kind: its chain with `default` replaced by the kind's
    chain (each provider once), or the kind's chain when the workload names none."""
    default = resolve_chain(config, settings, kind)
    if workload.chain is None:
        return default
    names: list[str] = []
    for name in workload.chain:
        for expanded in default if name == DEFAULT_CHAIN else [name]:
            if expanded not in names:
                names.append(expanded)
    return names


def resolve_chain(config: GatewayConfig, settings: Settings, kind: str) -> list[str]:
    """Provider names to try, in order. `auto`: the local corpus when configured (offline mode, no
    network at all), else Tavily when it has a key, then DuckDuckGo."""
    explicit = config.news_chain if kind == "news" and config.news_chain else config.chain
    if explicit is not None:
        return list(explicit)
    if settings.local_corpus:
        return ["local"]
    return (["tavily"] if settings.tavily_api_key else []) + ["duckduckgo"]
