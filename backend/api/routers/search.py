"""`GET /api/search/telemetry`: spend, cache hit rate and latency per search provider over time, as the
search gateway's `GET /telemetry` reports them."""

from __future__ import annotations

from typing import Annotated

import httpx
from fastapi import APIRouter, HTTPException, Query
from pydantic import BaseModel, ConfigDict

from backend.api.deps import SearchGatewayDep

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


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:200] or response.reason_phrase
    return str(body.get("detail") or body.get("error") or body) if isinstance(body, dict) else str(body)


@router.get("/telemetry", responses={
    502: {"description": "the search gateway refused the call"},
    503: {"description": "the search gateway is unreachable or has no telemetry database"}})
async def search_telemetry(gateway: SearchGatewayDep, hours: Annotated[float, Query(gt=0, le=24 * 90)] = 24,
                           recent: Annotated[int, Query(ge=1, le=500)] = 50) -> Telemetry:
    """Per-provider totals, a time series and the most recent queries, from the gateway's telemetry."""
    try:
        response = await gateway.get("/telemetry", params={"hours": hours, "recent": recent})
    except httpx.HTTPError as exc:
        raise HTTPException(503, f"the search gateway is unreachable at {gateway.base_url} "
                                 f"({type(exc).__name__})") from exc
    if response.status_code != 200:
        status = 503 if response.status_code == 503 else 502
        raise HTTPException(status, f"search gateway: {_detail(response)}")
    return Telemetry.model_validate(response.json())
