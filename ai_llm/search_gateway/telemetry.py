"""Per-request telemetry of the search gateway (`search_telemetry`, migrations 0003 and 0016: the caller's
workload and the model tokens a search billed) and its summaries: `hub search stats` and the gateway's
`GET /telemetry` (the backend's dashboard JSON) both call `telemetry_summary`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from ai_llm.common.store.db import ASYNC_COMMIT, Database

#: Largest time window (hours) and number of recent queries `GET /telemetry` serves.
MAX_HOURS = 24 * 90
MAX_RECENT = 500


@dataclass
class TelemetryRow:
    tool: str
    query: str
    agent: str | None
    provider: str | None
    cache: str
    branch: int
    depth: int
    latency_ms: float
    cost_usd: float
    results: int
    error: str | None = None
    time: datetime = field(default_factory=lambda: datetime.now(UTC))
    workload: str | None = None  # the caller's workload (`research`, `news`, …); None when it named none
    tokens: int = 0  # model tokens billed (native search providers)


async def record(db: Database, row: TelemetryRow) -> None:
    """Write one request's row."""
    # Telemetry is written off the response path; losing the last rows on a crash is acceptable.
    await db.execute(
        "INSERT INTO search_telemetry (created_at, agent, tool, query, provider, cache, branch, depth,"
        " latency_ms, cost_usd, results, error, workload, tokens)"
        " SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s"
        f" FROM {ASYNC_COMMIT}",
        (row.time, row.agent, row.tool, row.query[:1000], row.provider, row.cache, row.branch, row.depth,
         row.latency_ms, row.cost_usd, row.results, row.error, row.workload, row.tokens))


def _bucket_for(hours: float) -> str:
    return "minute" if hours <= 2 else "hour" if hours <= 72 else "day"


async def telemetry_summary(db: Database, hours: float = 24, recent: int = 50) -> dict[str, Any]:
    """Dashboard JSON for the last `hours`:

    `{"providers": [{"provider", "requests", "spend_usd", "hit_rate", "p50_ms", "p95_ms"}],
      "series": [{"bucket", "provider", "requests", "hits", "spend_usd", "p50_ms"}],
      "workloads": [{"workload", "requests", "hits", "hit_rate", "spend_usd", "tokens", "errors",
                     "providers": [{"provider", "requests", "hits", "spend_usd", "tokens"}]}],
      "recent": [{"time", "agent", "workload", "query", "provider", "cache", "latency_ms", "cost_usd", "results"}]}`

    `provider` is the provider that answered (for cache hits, the one whose entry was reused; `none` when
    every provider failed). `hit_rate` counts exact and semantic hits. `workload` is the one the caller
    named, `none` for searches that named none; each workload's providers are ordered by requests.
    """
    bucket = _bucket_for(hours)
    params = {"hours": float(hours)}
    providers = await db.fetch(
        "SELECT coalesce(provider, 'none') AS provider, count(*) AS requests,"
        " coalesce(sum(cost_usd), 0) AS spend_usd,"
        " avg(CASE WHEN cache <> 'miss' THEN 1.0 ELSE 0.0 END) AS hit_rate,"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50_ms,"
        " percentile_cont(0.95) WITHIN GROUP (ORDER BY latency_ms) AS p95_ms,"
        " count(*) FILTER (WHERE error IS NOT NULL) AS errors"
        " FROM search_telemetry WHERE created_at > now() - make_interval(secs => %(hours)s * 3600)"
        " AND tool <> 'fetch_page' GROUP BY 1 ORDER BY requests DESC", params)
    series = await db.fetch(
        f"SELECT date_trunc('{bucket}', created_at) AS bucket, coalesce(provider, 'none') AS provider,"
        " count(*) AS requests, count(*) FILTER (WHERE cache <> 'miss') AS hits,"
        " coalesce(sum(cost_usd), 0) AS spend_usd,"
        " percentile_cont(0.5) WITHIN GROUP (ORDER BY latency_ms) AS p50_ms"
        " FROM search_telemetry WHERE created_at > now() - make_interval(secs => %(hours)s * 3600)"
        " AND tool <> 'fetch_page' GROUP BY 1, 2 ORDER BY 1, 2", params)
    by_workload = await db.fetch(
        "SELECT coalesce(workload, 'none') AS workload, coalesce(provider, 'none') AS provider,"
        " count(*) AS requests, count(*) FILTER (WHERE cache <> 'miss') AS hits,"
        " coalesce(sum(cost_usd), 0) AS spend_usd, coalesce(sum(tokens), 0) AS tokens,"
        " count(*) FILTER (WHERE error IS NOT NULL) AS errors"
        " FROM search_telemetry WHERE created_at > now() - make_interval(secs => %(hours)s * 3600)"
        " AND tool <> 'fetch_page' GROUP BY 1, 2", params)
    recent_rows = await db.fetch(
        "SELECT created_at AS time, agent, workload, tool, query, provider, cache, latency_ms, cost_usd, results,"
        " error"
        " FROM search_telemetry ORDER BY created_at DESC, id DESC LIMIT %(n)s", {"n": recent})
    return {
        "hours": hours,
        "bucket": bucket,
        "providers": [
            {"provider": r["provider"], "requests": int(r["requests"]), "spend_usd": round(float(r["spend_usd"]), 6),
             "hit_rate": round(float(r["hit_rate"] or 0), 4), "p50_ms": round(float(r["p50_ms"] or 0), 2),
             "p95_ms": round(float(r["p95_ms"] or 0), 2), "errors": int(r["errors"])}
            for r in providers
        ],
        "series": [
            {"bucket": r["bucket"].isoformat(), "provider": r["provider"], "requests": int(r["requests"]),
             "hits": int(r["hits"]), "spend_usd": round(float(r["spend_usd"]), 6),
             "p50_ms": round(float(r["p50_ms"] or 0), 2)}
            for r in series
        ],
        "workloads": _workloads(by_workload),
        "recent": [
            {"time": r["time"].isoformat(), "agent": r["agent"], "workload": r["workload"], "tool": r["tool"], "query": r["query"], "provider": r["provider"],
             "cache": r["cache"], "latency_ms": round(float(r["latency_ms"]), 2),
             "cost_usd": round(float(r["cost_usd"]), 6), "results": int(r["results"]), "error": r["error"]}
            for r in recent_rows
        ],
    }


def _workloads(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per-(workload, provider) rows folded into one entry per workload, busiest first."""
    workloads: dict[str, dict[str, Any]] = {}
    for r in rows:
        entry = workloads.setdefault(r["workload"], {"workload": r["workload"], "requests": 0, "hits": 0,
                                                     "spend_usd": 0.0, "tokens": 0, "errors": 0, "providers": []})
        requests, hits, spend, tokens = int(r["requests"]), int(r["hits"]), float(r["spend_usd"]), int(r["tokens"])
        entry["requests"] += requests
        entry["hits"] += hits
        entry["spend_usd"] += spend
        entry["tokens"] += tokens
        entry["errors"] += int(r["errors"])
        entry["providers"].append({"provider": r["provider"], "requests": requests, "hits": hits,
                                   "spend_usd": round(spend, 6), "tokens": tokens})
    out = sorted(workloads.values(), key=lambda w: (-w["requests"], w["workload"]))
    for entry in out:
        entry["hit_rate"] = round(entry["hits"] / entry["requests"], 4) if entry["requests"] else 0.0
        entry["spend_usd"] = round(entry["spend_usd"], 6)
        entry["providers"].sort(key=lambda p: (-p["requests"], p["provider"]))
    return out
