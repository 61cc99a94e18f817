"""The search gateway's core: clean the query, try the cache, run the provider chain, store, record.

Transport-free (the MCP server in `server.py` is a thin layer over `SearchGateway`), so benchmarks and
tests can also drive it in-process.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from ai_llm.common.a2a.events import gather_within
from ai_llm.common.embeddings import KNOWN_DIMENSIONS, Embeddings, make_embeddings
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database, migrate, resolve_database_url
from ai_llm.search_gateway import query_match
from ai_llm.search_gateway.cache import CacheHit, SearchCache
from ai_llm.search_gateway.config import (
    WORKLOAD_NAME,
    ConfigError,
    GatewayConfig,
    load_config,
    resolve_chain,
    resolve_workload_chain,
)
from ai_llm.search_gateway.fetch import PageFetcher, RedirectResolver
from ai_llm.search_gateway.models import (
    TIME_RANGES,
    Kind,
    ProviderError,
    RateLimited,
    SearchRequest,
    SearchResponse,
    SearchResult,
)
from ai_llm.search_gateway.providers.base import SearchProvider, filter_results
from ai_llm.search_gateway.providers.local import LocalCorpusProvider
from ai_llm.search_gateway.query import clean_query, normalize_domains, normalize_query
from ai_llm.search_gateway.reachability import Reachability
from ai_llm.search_gateway.telemetry import TelemetryRow, record

log = logging.getLogger(__name__)

MAX_RESULTS_LIMIT = 20
#: Results per search when neither the caller nor its workload says.
DEFAULT_MAX_RESULTS = 6
#: `fetch_pages`: pages per call, and its deadline (default and upper bound, seconds).
MAX_FETCH_BATCH = 20
DEFAULT_FETCH_BUDGET_S = 8.0
MAX_FETCH_BUDGET_S = 60.0
#: `search_many`: queries per call.
MAX_SEARCH_BATCH = 8
EMBED_COOLDOWN_S = 30.0


def build_provider(name: str, config: GatewayConfig, settings: Settings,
                   local: LocalCorpusProvider | None) -> tuple[SearchProvider | None, str | None]:
    """(provider, None) or (None, reason it is skipped: no key, no corpus)."""
    pconf = config.provider(name)
    options = pconf.options
    if name == "local":
        if local is None:
            return None, "no LOCAL_CORPUS configured"
        if pconf.cost_per_call is not None:
            local.cost_per_call = pconf.cost_per_call
        if options.get("delay_s"):
            local.delay_s = float(options["delay_s"])
        return local, None
    if name == "tavily":
        if not settings.tavily_api_key:
            return None, "no TAVILY_API_KEY"
        from ai_llm.search_gateway.providers.tavily import TavilyProvider

        return TavilyProvider(settings.tavily_api_key, base_url=options.get("base_url"),
                              cost_per_call=0.008 if pconf.cost_per_call is None else pconf.cost_per_call,
                              timeout_s=pconf.timeout_s), None
    if name == "duckduckgo":
        from ai_llm.search_gateway.providers.duckduckgo import DuckDuckGoProvider

        return DuckDuckGoProvider(cost_per_call=pconf.cost_per_call or 0.0, timeout_s=pconf.timeout_s), None
    if name in ("openai_web_search", "gemini_grounding"):
        return _native_provider(name, config, settings)
    spec = config.adapters[name]
    from ai_llm.search_gateway.providers.http_adapter import HttpAdapterProvider

    api_key = None
    if spec.api_key_setting:
        api_key = getattr(settings, spec.api_key_setting, None) or options.get("api_key")
        if not api_key:
            return None, f"no {spec.api_key_setting.upper()}"
    return HttpAdapterProvider(spec, api_key, options, pconf.cost_per_call, pconf.timeout_s), None


def check_workload(workload: Any) -> str | None:
    """A caller's workload name (None for none or an empty one); `ValueError` when it is not a valid name."""
    if workload is None or workload == "":
        return None
    if not isinstance(workload, str) or not WORKLOAD_NAME.match(workload):
        raise ValueError(f"workload must be lower-case letters, digits, '_' or '-' (at most 40), not {workload!r}")
    return workload


def _native_provider(name: str, config: GatewayConfig,
                     settings: Settings) -> tuple[SearchProvider | None, str | None]:
    """A model vendor's own web search: key and base URL from settings (`base_url` in the config wins), model
    and prices from the config (`model`, `cost_per_call`, `input_usd_per_mtok`, `output_usd_per_mtok`);
    Gemini's redirects resolved when the config's `fetch.resolve_redirects` allows (under the fetch guard)."""
    from ai_llm.search_gateway.providers import gemini_grounding, openai_web_search
    from ai_llm.search_gateway.providers.native import TokenPrices

    pconf = config.provider(name)
    options = pconf.options
    module: Any
    if name == "openai_web_search":
        module, key, base_url, needs = (openai_web_search, settings.openai_web_search_api_key,
                                        settings.openai_web_search_base_url, "OPENAI_WEB_SEARCH_API_KEY")
        make: Any = openai_web_search.OpenAIWebSearchProvider
    else:
        module, key, base_url, needs = (gemini_grounding, settings.gemini_api_key, settings.gemini_base_url,
                                        "GEMINI_API_KEY")
        make = gemini_grounding.GeminiGroundingProvider
    if not key:
        return None, f"no {needs}"
    default: TokenPrices = module.DEFAULT_PRICES
    prices = TokenPrices(per_call=default.per_call if pconf.cost_per_call is None else pconf.cost_per_call,
                         input_per_mtok=_price(config, name, "input_usd_per_mtok", default.input_per_mtok),
                         output_per_mtok=_price(config, name, "output_usd_per_mtok", default.output_per_mtok))
    extra: dict[str, Any] = {}
    if name == "gemini_grounding" and config.fetch.resolve_redirects:
        extra["resolver"] = RedirectResolver(allow_private=settings.fetch_allow_private,
                                             timeout_s=config.fetch.redirect_timeout_s)
    return make(key, base_url=options.get("base_url") or base_url, model=str(options.get("model") or module.DEFAULT_MODEL),
                prices=prices, timeout_s=pconf.timeout_s, **extra), None


def _price(config: GatewayConfig, name: str, key: str, default: float) -> float:
    value = config.provider(name).options.get(key, default)
    try:
        price = float(value)
    except (TypeError, ValueError):
        price = -1.0
    if price < 0:
        raise ConfigError(f"{config.path}: {key} of provider {name} must be a non-negative number, not {value!r}")
    return price


@dataclass
class _Known:
    """A request's cache lookup made ahead (`search_many`): its exact hit, and the query vector when it missed."""

    exact: CacheHit | None
    embedding: list[float] | None


@dataclass
class SearchGateway:
    """Search policy over providers, cache and telemetry.

    Build with `SearchGateway.create(settings)`; tests inject providers, db and embeddings directly.
    """

    settings: Settings
    config: GatewayConfig
    providers: dict[str, SearchProvider]
    chains: dict[str, list[str]]
    skipped: dict[str, str] = field(default_factory=dict)
    local: LocalCorpusProvider | None = None
    db: Database | None = None
    embeddings: Embeddings | None = None
    fetcher: PageFetcher | None = None
    _embed_failed_at: float = -1e9
    _pg_server: Any = None
    _own_db: bool = False
    _writes: asyncio.Queue[Any] | None = None
    _writer: asyncio.Task[None] | None = None
    provider_calls: int = 0
    reachability: Reachability = field(default_factory=Reachability)
    #: Per configured workload, its chain per search kind (providers without a key left out).
    workload_chains: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    @classmethod
    def create(cls, settings: Settings, config: GatewayConfig | None = None, db: Database | None = None,
               embeddings: Embeddings | None = None) -> SearchGateway:
        """Providers and chains from configuration (raises `ConfigError`/`CorpusError` on bad input)."""
        config = config or load_config(settings.search_config)
        local = LocalCorpusProvider(settings.local_corpus) if settings.local_corpus else None
        providers: dict[str, SearchProvider] = {}
        skipped: dict[str, str] = {}
        chains: dict[str, list[str]] = {}

        def usable(names: list[str]) -> list[str]:
            """The providers of `names` that can search (built once each; those without a key skipped)."""
            chain = []
            for name in names:
                if name not in providers and name not in skipped:
                    provider, reason = build_provider(name, config, settings, local)
                    if provider is None:
                        skipped[name] = reason or "unavailable"
                        log.info("provider %s skipped: %s", name, reason)
                    else:
                        providers[name] = provider
                if name in providers:
                    chain.append(name)
            return chain

        for kind in ("web", "news"):
            chains[kind] = usable(resolve_chain(config, settings, kind))
        workload_chains = {name: {kind: usable(resolve_workload_chain(config, settings, workload, kind))
                                  for kind in ("web", "news")}
                           for name, workload in config.workloads.items()}
        fetcher = PageFetcher(local, allow_private=settings.fetch_allow_private, timeout_s=config.fetch.timeout_s,
                              max_bytes=config.fetch.max_bytes)
        return cls(settings=settings, config=config, providers=providers, chains=chains, skipped=skipped,
                   local=local, db=db, embeddings=embeddings, fetcher=fetcher, workload_chains=workload_chains)

    async def open(self) -> None:
        """Open the shared database (cache + telemetry) and the embeddings adapter; degrade, never fail."""
        if self.embeddings is None and self.config.cache.semantic:
            self.embeddings = make_embeddings(self.settings)
        if self.config.cache.semantic and self.config.cache.semantic_guard:
            # Load the Korean analyser of the same-request check now, not during the first Korean search.
            threading.Thread(target=self._warm_query_match, name="query-match-warm-up", daemon=True).start()
        if self.db is None and self.config.cache.enabled:
            try:
                url, self._pg_server = await asyncio.to_thread(resolve_database_url, self.settings)
                model = self.settings.embedding_model_name
                await migrate(url, model, KNOWN_DIMENSIONS.get(model, 384))
                self.db = await Database(url, max_size=4).open()
                self._own_db = True
            except Exception as exc:  # the gateway still answers searches without cache and telemetry
                log.warning("search cache and telemetry disabled: database unavailable (%s)", exc)
                self.db = None

    @staticmethod
    def _warm_query_match() -> None:
        try:
            query_match.warm_up()
        except Exception as exc:  # Korean queries then get no semantic hits (the check raises): log it once
            log.warning("Korean analyser unavailable, no semantic cache hits for Korean queries: %s", exc)

    # --- background writes (telemetry, hit counters): off the response path, in order ---------------------
    def _later(self, make: Any) -> None:
        """Queue `make()` (a coroutine factory) for the single background writer."""
        if self._writes is None:
            self._writes = asyncio.Queue()
        if self._writer is None or self._writer.done():
            self._writer = asyncio.create_task(self._drain(self._writes))
        self._writes.put_nowait(make)

    @staticmethod
    async def _drain(queue: asyncio.Queue[Any]) -> None:
        while True:
            make = await queue.get()
            try:
                await make()
            except Exception as exc:
                log.warning("background write failed: %s", exc)
            finally:
                queue.task_done()

    async def flush(self) -> None:
        """Wait until queued telemetry and counters are written."""
        if self._writes is not None:
            await self._writes.join()

    async def close(self) -> None:
        await self.flush()
        if self._writer is not None:
            self._writer.cancel()
        if self.db is not None and self._own_db:
            await self.db.close()
        close = getattr(self.embeddings, "close", None)
        if close is not None:
            await close()

    @property
    def cache(self) -> SearchCache | None:
        return SearchCache(self.db) if self.db is not None and self.config.cache.enabled else None

    def describe(self) -> dict[str, Any]:
        """What /healthz reports: chains, skipped providers, cache state, corpus size."""
        workloads = {name: {**self.workload_chains[name], "max_results": w.max_results, "ttl": w.ttl}
                     for name, w in self.config.workloads.items()}
        return {"chains": self.chains, "workloads": workloads, "skipped": self.skipped,
                "cache": self.cache is not None,
                "semantic_cache": bool(self.cache is not None and self.embeddings is not None
                                       and self.config.cache.semantic),
                "local_corpus_pages": len(self.local.pages) if self.local else 0,
                "config": str(self.config.path)}

    async def web_health(self) -> dict[str, Any]:
        """Whether web search can serve now (`reachability.py`): state, reason and the providers behind it."""
        return await self.reachability.web(self.chains.get("web", []), self.providers, self.skipped)

    # --- search -----------------------------------------------------------------------------------------
    def make_request(self, query: str, kind: Kind, max_results: Any, region: str | None, time_range: str | None,
                     include_domains: Any = None, exclude_domains: Any = None,
                     workload: str | None = None) -> tuple[SearchRequest, str | None]:
        """Validate and normalise tool arguments; `ValueError` with a clear message on bad input.

        `workload` (the caller's kind of work) picks the configured workload's chain, depth (when
        `max_results` is None) and TTL class; a workload the config does not name gets the kind's chain."""
        text, notice = clean_query(query)
        workload = check_workload(workload)
        route = self.config.workloads.get(workload) if workload else None
        default_depth = route.max_results if route is not None and route.max_results else DEFAULT_MAX_RESULTS
        try:
            count = int(max_results if max_results is not None else default_depth)
        except (TypeError, ValueError) as exc:
            raise ValueError(f"max_results must be an integer, not {max_results!r}") from exc
        if count < 1:
            raise ValueError("max_results must be at least 1")
        if count > MAX_RESULTS_LIMIT:
            notice = "; ".join(filter(None, [notice, f"max_results capped at {MAX_RESULTS_LIMIT}"]))
            count = MAX_RESULTS_LIMIT
        if time_range is not None and time_range not in TIME_RANGES:
            raise ValueError(f"time_range must be one of {', '.join(TIME_RANGES)}, not {time_range!r}")
        request = SearchRequest(query=text, kind=kind, max_results=count,
                                region=(region or None) and str(region).strip().lower() or None,
                                time_range=None if time_range in (None, "all") else time_range,
                                include_domains=normalize_domains(include_domains),
                                exclude_domains=normalize_domains(exclude_domains), workload=workload,
                                ttl_class=route.ttl if route is not None else None)
        return request, notice

    async def _embed(self, text: str) -> list[float] | None:
        return (await self._embed_many([text]))[0]

    async def _embed_many(self, texts: list[str]) -> list[list[float] | None]:
        """Query vectors for the semantic cache, in one embedding request (None each when it is off or down)."""
        if not texts or self.embeddings is None or not self.config.cache.semantic \
                or time.monotonic() - self._embed_failed_at < EMBED_COOLDOWN_S:
            return [None] * len(texts)
        try:
            vectors = await asyncio.wait_for(self.embeddings.embed(texts, kind="query"), self.config.cache.embed_timeout_s)
            return list(vectors)
        except Exception as exc:  # the semantic layer is an optimisation: skip it, keep answering
            self._embed_failed_at = time.monotonic()
            log.warning("semantic cache skipped for %.0fs: embeddings unavailable (%s: %s)", EMBED_COOLDOWN_S,
                        type(exc).__name__, exc)
            return [None] * len(texts)

    async def search(self, query: str, kind: Kind = "web", max_results: Any = None, region: str | None = None,
                     time_range: str | None = None, include_domains: Any = None, exclude_domains: Any = None,
                     agent: str | None = None, workload: str | None = None) -> dict[str, Any]:
        """Run one search; returns the contract's JSON envelope. Raises `ValueError` on bad input."""
        started = time.perf_counter()
        request, notice = self.make_request(query, kind, max_results, region, time_range, include_domains,
                                            exclude_domains, workload)
        return await self._answer(request, notice, kind, agent, started)

    async def search_many(self, queries: Any, kind: Kind = "web", max_results: Any = None, region: str | None = None,
                          time_range: str | None = None, include_domains: Any = None, exclude_domains: Any = None,
                          agent: str | None = None, workload: str | None = None) -> dict[str, Any]:
        """Run up to MAX_SEARCH_BATCH searches at once: `{"responses": [...]}`, one `search` envelope per query
        in the order asked, or `{"query", "error"}` for a query refused (`ValueError` when the list is not
        1 to MAX_SEARCH_BATCH strings).

        One MCP call for a round of searches instead of one each (an MCP call costs both sides more CPU than a
        local search), and the round shares its cache work: exact lookups run together and the queries that
        miss are embedded in one request for the semantic lookup.
        """
        if not isinstance(queries, list) or not 1 <= len(queries) <= MAX_SEARCH_BATCH \
                or not all(isinstance(q, str) for q in queries):
            raise ValueError(f"queries must list 1 to {MAX_SEARCH_BATCH} strings")
        workload = check_workload(workload)
        started = time.perf_counter()
        made: list[tuple[SearchRequest, str | None] | str] = []
        for query in queries:
            try:
                made.append(self.make_request(query, kind, max_results, region, time_range, include_domains,
                                              exclude_domains, workload))
            except ValueError as exc:
                made.append(str(exc))
        valid = [m for m in made if not isinstance(m, str)]
        known = await self._lookup_together([request for request, _ in valid])
        answers = iter(await asyncio.gather(*(self._answer(request, notice, kind, agent, started, known=k)
                                              for (request, notice), k in zip(valid, known, strict=True))))
        return {"responses": [{"query": query, "error": m} if isinstance(m, str) else next(answers)
                              for query, m in zip(queries, made, strict=True)]}

    async def _lookup_together(self, requests: list[SearchRequest]) -> list[_Known | None]:
        """The exact-cache hit of each request, and for the misses their query vectors (one embedding call);
        None for a request whose lookup failed (it then looks up on its own)."""
        cache = self.cache
        if cache is None or not requests:
            return [None] * len(requests)
        exact = await asyncio.gather(*(cache.get_exact(self._partitions(r), r, normalize_query(r.query),
                                                       self._max_ages(r))
                                       for r in requests), return_exceptions=True)
        misses = [i for i, hit in enumerate(exact) if hit is None]
        vectors = dict(zip(misses, await self._embed_many([requests[i].query for i in misses]), strict=True))
        return [None if isinstance(hit, BaseException) else _Known(hit, vectors.get(i))
                for i, hit in enumerate(exact)]

    def chain_for(self, request: SearchRequest) -> list[str]:
        """The providers that answer `request`: its workload's chain when the config has the workload, else
        the search kind's chain."""
        routes = self.workload_chains.get(request.workload or "")
        return routes[request.kind] if routes is not None else self.chains.get(request.kind, [])

    def _partitions(self, request: SearchRequest) -> list[str]:
        return [self.providers[name].partition for name in self.chain_for(request)]

    def _max_ages(self, request: SearchRequest) -> list[int] | None:
        """For a workload of the `fresh` TTL class, the oldest cached entry it takes from each partition (that
        provider's fresh TTL), whoever cached it; None for the others (any live entry)."""
        if request.ttl_class != "fresh":
            return None
        return [self.config.provider(name).ttl_fresh_s for name in self.chain_for(request)]

    async def _answer(self, request: SearchRequest, notice: str | None, kind: Kind, agent: str | None,
                      started: float, known: _Known | None = None) -> dict[str, Any]:
        response = await self._search(request, known)
        response.workload = request.workload
        response.latency_ms = (time.perf_counter() - started) * 1000
        response.notice = "; ".join(filter(None, [notice, response.notice])) or None
        if self.db is not None:
            db = self.db
            row = TelemetryRow(tool=f"{kind}_search", query=request.query, agent=agent, provider=response.provider,
                               cache=response.cache, branch=response.branch, depth=request.max_results,
                               latency_ms=response.latency_ms, cost_usd=response.cost_usd,
                               results=len(response.results), error="; ".join(response.errors) or None,
                               workload=request.workload, tokens=response.tokens)
            self._later(lambda: record(db, row))
        return response.to_dict()

    async def _search(self, request: SearchRequest, known: _Known | None = None) -> SearchResponse:
        """Answer from the cache (exact, then semantic) or the provider chain; `known`: the exact lookup and
        query vector already made for this request (`search_many`)."""
        chain = self.chain_for(request)
        partitions = self._partitions(request)
        query_norm = normalize_query(request.query)
        cache = self.cache
        embedding: list[float] | None = None
        if cache is not None:
            try:
                max_ages = self._max_ages(request)
                hit = known.exact if known is not None else await cache.get_exact(partitions, request, query_norm,
                                                                                  max_ages)
                kind = "exact"
                if hit is None:
                    embedding = known.embedding if known is not None else await self._embed(request.query)
                    if embedding is not None:
                        candidates = await cache.get_semantic(partitions, request, embedding,
                                                              self.config.cache.semantic_threshold,
                                                              self.config.cache.semantic_candidates, max_ages)
                        hit = self._pick_semantic(request.query, candidates)
                        kind = "semantic"
                if hit is not None:
                    found = hit
                    self._later(lambda: cache.count_hit(found, request))
                    return self._from_cache(request, hit, kind, partitions)
            except Exception as exc:
                log.warning("cache lookup failed, asking providers: %s", exc)
        response = await self._run_chain(request, chain)
        if cache is not None and response.results and response.provider:
            provider = self.providers[response.provider]
            pconf = self.config.provider(response.provider)
            ttl = pconf.ttl_fresh_s if request.fresh else pconf.ttl_general_s
            if ttl > 0:
                try:
                    entry: dict[str, Any] = {"results": [r.to_dict() for r in response.results]}
                    if response.provider_answer is not None:
                        entry["provider_answer"] = response.provider_answer
                    await cache.put(provider.partition, provider.name, request, query_norm, embedding, entry, ttl)
                except Exception as exc:
                    log.warning("cache store failed: %s", exc)
        return response

    def _pick_semantic(self, query: str, candidates: list[CacheHit]) -> CacheHit | None:
        """The nearest candidate that asks the same thing as `query` (any nearest one without the guard)."""
        if not self.config.cache.semantic_guard:
            return candidates[0] if candidates else None
        for candidate in candidates:
            match = query_match.compare(candidate.query, query)
            if match.same:
                return candidate
            log.debug("semantic candidate %r (similarity %.3f) refused for %r: %s", candidate.query,
                      candidate.similarity, query, match.reason)
        return None

    def _from_cache(self, request: SearchRequest, hit: Any, kind: str, partitions: list[str]) -> SearchResponse:
        results = [SearchResult(**r) for r in hit.response.get("results", [])][: request.max_results]
        notice = None
        if kind == "semantic":
            notice = f"semantic cache hit: results of the similar query {hit.query!r} (similarity {hit.similarity:.3f})"
        answer = hit.response.get("provider_answer")
        return SearchResponse(query=request.query, results=results, provider=hit.provider,
                              cache=kind,  # type: ignore[arg-type]
                              branch=partitions.index(hit.partition), notice=notice,
                              cached_query=hit.query, provider_answer=answer if isinstance(answer, str) else None)

    async def _run_chain(self, request: SearchRequest, chain: list[str]) -> SearchResponse:
        errors: list[str] = []
        cost = 0.0
        tokens = 0
        answered = False  # a provider ran the search (even with no results)
        if not chain:
            return SearchResponse(query=request.query, outage=True, notice="no search provider is configured: "
                                  + (", ".join(f"{n} ({r})" for n, r in self.skipped.items()) or "empty chain"))
        for branch, name in enumerate(chain):
            provider = self.providers[name]
            pconf = self.config.provider(name)
            sub = replace(request, max_results=min(request.max_results, max(1, pconf.max_results)))
            self.provider_calls += 1
            try:
                results = await asyncio.wait_for(provider.search(sub), pconf.timeout_s)
            except TimeoutError:
                errors.append(f"{name}: timed out after {pconf.timeout_s:g}s")
                self.reachability.record(name, False, errors[-1])
                cost += provider.cost_per_call
                continue
            except RateLimited as exc:
                errors.append(f"{name}: rate limited ({exc})")
                self.reachability.record(name, False, errors[-1])
                continue
            except ProviderError as exc:
                log.warning("provider %s failed: %s", name, exc)
                errors.append(str(exc) if str(exc).startswith(name) else f"{name}: {exc}")
                self.reachability.record(name, False, errors[-1])
                cost += provider.cost_per_call
                continue
            except Exception as exc:  # a buggy adapter must not take the gateway down
                log.exception("provider %s crashed", name)
                errors.append(f"{name}: {type(exc).__name__}: {exc}")
                self.reachability.record(name, False, errors[-1])
                continue
            self.reachability.record(name, True)
            priced = getattr(results, "cost_usd", None)  # a provider billed by tokens says what this call cost
            cost += provider.cost_per_call if priced is None else float(priced)
            tokens += int(getattr(results, "tokens", 0) or 0)
            answer = getattr(results, "answer", None)  # a model's whole answer (native search), kept apart
            answered = True
            results = filter_results(results, request)
            if not results:
                errors.append(f"{name}: no results")
                continue
            return SearchResponse(query=request.query, results=results, provider=name, cache="miss", branch=branch,
                                  cost_usd=cost, tokens=tokens, errors=errors,
                                  notice=f"answered by fallback provider {name}" if branch else None,
                                  provider_answer=answer if isinstance(answer, str) else None)
        if not answered:  # every provider failed: an outage, reported as such with each provider's reason
            return SearchResponse(query=request.query, provider=None, cache="miss", branch=len(chain),
                                  cost_usd=cost, tokens=tokens, errors=errors, outage=True,
                                  notice="search unavailable: " + "; ".join(errors))
        return SearchResponse(query=request.query, provider=None, cache="miss", branch=len(chain), cost_usd=cost,
                              tokens=tokens, errors=errors, notice="no provider returned results")

    # --- fetch ------------------------------------------------------------------------------------------
    async def fetch_pages(self, urls: list[str], timeout_s: float = DEFAULT_FETCH_BUDGET_S,
                          agent: str | None = None) -> dict[str, Any]:
        """Fetch up to MAX_FETCH_BATCH pages concurrently within `timeout_s` (0 < timeout_s <= 60):
        `{"pages": [fetch_page's shape, …]}` in the order asked; a page still loading at the deadline is an
        error page ("not read within the …s budget"). ValueError on an empty, oversized or duplicate list."""
        if not urls or len(urls) > MAX_FETCH_BATCH:
            raise ValueError(f"urls must list 1 to {MAX_FETCH_BATCH} pages, not {len(urls)}")
        if len(set(urls)) != len(urls):
            raise ValueError("urls must not repeat a page")
        if not 0 < timeout_s <= MAX_FETCH_BUDGET_S:
            raise ValueError(f"timeout_s must be in (0, {MAX_FETCH_BUDGET_S:.0f}], not {timeout_s}")
        fetched = await gather_within({url: self.fetch_page(url, agent) for url in urls}, timeout_s)
        pages = []
        for url, page in fetched.items():
            if isinstance(page, dict):
                pages.append(page)
            else:
                error = (f"not read within the {timeout_s:.0f}s budget" if page is None else f"fetch failed: {page}")
                pages.append({"url": url, "title": "", "text": "", "published_at": None, "error": error})
        return {"pages": pages}

    async def fetch_page(self, url: str, agent: str | None = None) -> dict[str, Any]:
        """Contract shape `{"url", "title", "text", "published_at", "error"}` (+ `source`: corpus|web)."""
        started = time.perf_counter()
        fetcher = self.fetcher or PageFetcher(self.local, self.settings.fetch_allow_private)
        page = await fetcher.fetch(url)
        if self.db is not None:
            db = self.db
            row = TelemetryRow(tool="fetch_page", query=url or "", agent=agent, provider=page.source, cache="miss",
                               branch=0, depth=0, latency_ms=(time.perf_counter() - started) * 1000, cost_usd=0.0,
                               results=1 if page.text else 0, error=page.error)
            self._later(lambda: record(db, row))
        return page.to_dict()
