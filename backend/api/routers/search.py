"""`GET /api/search/telemetry`: spend, cache hit rate and latency per search provider over time."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query
from pydantic import BaseModel, ConfigDict

from ai_llm.search_gateway.telemetry import telemetry_summary
from backend.api.deps import DbDep

router = APIRouter(prefix="/api/search", tags=["search"])


class ProviderSummary(BaseModel):
    model_config = ConfigDict(extra="allow")

    provider: str
    requests: int
    spend_usd: float
    hit_rate: float
    p50_ms: float | None
    p95_ms: float | None


class SeriesPoint(BaseModel):
    model_config = ConfigDict(extra="allow")

    bucket: str
    provider: str
    requests: int
    hits: int
    spend_usd: float
    p50_ms: float | None


class RecentQuery(BaseModel):
    model_config = ConfigDict(extra="allow")

    time: str
    agent: str | None
    query: str
    provider: str | None
    cache: str | None
    latency_ms: float | None
    cost_usd: float | None
    results: int | None


class Telemetry(BaseModel):
    model_config = ConfigDict(extra="allow")

    providers: list[ProviderSummary]
    series: list[SeriesPoint]
    recent: list[RecentQuery]


@router.get("/telemetry")
async def search_telemetry(db: DbDep, hours: Annotated[float, Query(gt=0, le=24 * 90)] = 24,
                           recent: Annotated[int, Query(ge=1, le=500)] = 50) -> Telemetry:
    """Per-provider totals, a time series and the most recent queries, from the gateway's telemetry."""
    return Telemetry.model_validate(await telemetry_summary(db, hours=hours, recent=recent))
