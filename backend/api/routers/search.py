"""`GET /api/search/telemetry`: spend, cache hit rate and latency per search provider over time."""

from __future__ import annotations

import importlib
import inspect
import logging
from typing import Annotated, Any

from fastapi import APIRouter, Query
from pydantic import BaseModel

from backend.api.deps import DbDep

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api/search", tags=["search"])


class ProviderSummary(BaseModel):
    provider: str
    requests: int
    spend_usd: float
    hit_rate: float
    p50_ms: float | None
    p95_ms: float | None


class SeriesPoint(BaseModel):
    bucket: str
    provider: str
    requests: int
    hits: int
    spend_usd: float
    p50_ms: float | None


class RecentQuery(BaseModel):
    time: str
    agent: str | None
    query: str
    provider: str | None
    cache: str | None
    latency_ms: float | None
    cost_usd: float | None
    results: int | None


class Telemetry(BaseModel):
    providers: list[ProviderSummary]
    series: list[SeriesPoint]
    recent: list[RecentQuery]


def _summary_function() -> Any:
    """The search gateway's `telemetry_summary(db, …)`, or None in a checkout without it."""
    try:
        module = importlib.import_module("ai_llm.search_gateway.telemetry")
    except ModuleNotFoundError:
        return None
    return getattr(module, "telemetry_summary", None)


@router.get("/telemetry")
async def search_telemetry(db: DbDep, hours: Annotated[int, Query(ge=1, le=24 * 90)] = 24,
                           recent: Annotated[int, Query(ge=1, le=500)] = 50) -> Telemetry:
    """Per-provider totals, a time series and the most recent queries, from the gateway's telemetry."""
    summarize = _summary_function()
    if summarize is None:
        return Telemetry(providers=[], series=[], recent=[])
    accepted = inspect.signature(summarize).parameters
    options = {k: v for k, v in {"hours": hours, "recent": recent, "recent_limit": recent}.items() if k in accepted}
    result = summarize(db, **options)
    if inspect.isawaitable(result):
        result = await result
    return Telemetry.model_validate(result)
