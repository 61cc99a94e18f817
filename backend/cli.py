"""`hub bench backend`: concurrent chats through `/api/chat` against an offline hub on ephemeral ports."""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from ai_llm.common.a2a_client import RemoteAgent
from ai_llm.common.events import StatusEvent
from ai_llm.common.settings import PROJECT_ROOT
from backend.api.state import CONNECT_TIMEOUT_S
from backend.chat_client import stream_chat
from backend.offline_hub import offline_hub, upload_and_wait

DEFAULT_EVAL_DATA = PROJECT_ROOT.parent / "shared" / "eval-data"
DEFAULT_PDF = "cdc_outpatient_infection_prevention_guide.pdf"
RAG_QA = PROJECT_ROOT / "benchmarks" / "data" / "rag_qa.jsonl"


def percentile(values: list[float], q: float) -> float | None:
    """The q-th percentile (0–100) by linear interpolation; None for no values."""
    if not values:
        return None
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[max(0, min(98, round(q) - 1))]


def summarize(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """p50/p95 of time-to-first-status and time-to-answer (ms) over the runs that answered."""
    ok = [r for r in runs if r["answered"]]
    first = [r["first_status_ms"] for r in ok if r["first_status_ms"] is not None]
    answer = [r["answer_ms"] for r in ok]
    return {
        "chats": len(runs), "completed": len(ok), "errors": len(runs) - len(ok),
        "error_messages": sorted({r["error"] for r in runs if r["error"]})[:5],
        "first_status_p50_ms": _round(percentile(first, 50)), "first_status_p95_ms": _round(percentile(first, 95)),
        "answer_p50_ms": _round(percentile(answer, 50)), "answer_p95_ms": _round(percentile(answer, 95)),
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


async def backend_chat(http: httpx.AsyncClient, question: str) -> dict[str, Any]:
    """One chat through the backend; times measured from sending the request."""
    started = time.perf_counter()
    first: float | None = None
    result: dict[str, Any] = {"answered": False, "first_status_ms": None, "answer_ms": None, "error": None}
    try:
        async for event in stream_chat(http, question, language="en"):
            elapsed = (time.perf_counter() - started) * 1000
            if event.event == "status" and first is None:
                first = elapsed
            elif event.event == "answer":
                result.update(answered=True, answer_ms=elapsed, sources=len(event.data.get("sources") or []))
            elif event.event == "error":
                result["error"] = str(event.data.get("message"))
    except httpx.HTTPError as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["first_status_ms"] = first
    return result


async def direct_chat(orchestrator: RemoteAgent, question: str) -> dict[str, Any]:
    """The baseline: the same question straight to the orchestrator over A2A (no backend in between)."""
    started = time.perf_counter()
    first: float | None = None
    result: dict[str, Any] = {"answered": False, "first_status_ms": None, "answer_ms": None, "error": None}
    try:
        async for event in orchestrator.stream(question, data={"language": "en"}):
            elapsed = (time.perf_counter() - started) * 1000
            if isinstance(event, StatusEvent):
                first = elapsed if first is None else first
            elif event.state in ("completed", "input_required"):
                result.update(answered=True, answer_ms=elapsed)
            else:
                result["error"] = event.text[:200]
    except Exception as exc:  # a failed call is a counted error, not a crashed benchmark
        result["error"] = f"{type(exc).__name__}: {exc}"
    result["first_status_ms"] = first
    return result


def load_questions(pdf_name: str, count: int) -> list[str]:
    rows = [json.loads(line) for line in RAG_QA.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r["question"] for r in rows if r.get("file") == pdf_name] or [r["question"] for r in rows]
    return [questions[i % len(questions)] for i in range(count)]


async def run_bench(backend_url: str, orchestrator_url: str, pdf: Path, chats: int,
                    token: str | None) -> dict[str, Any]:
    timeout = httpx.Timeout(600.0, connect=10.0)
    limits = httpx.Limits(max_connections=chats + 10, max_keepalive_connections=chats + 10)
    headers = {"Authorization": f"Bearer {token}"} if token else {}  # the backend needs the token when set
    async with httpx.AsyncClient(base_url=backend_url, timeout=timeout, limits=limits, headers=headers) as http:
        started = time.perf_counter()
        record = await upload_and_wait(http, pdf)
        index_s = time.perf_counter() - started
        questions = load_questions(pdf.name, chats)
        warmup = await backend_chat(http, questions[0])  # first query warms the embedding model path
        orchestrator = RemoteAgent(orchestrator_url, token=token, timeout_s=600.0,
                                   connect_timeout_s=CONNECT_TIMEOUT_S, name="orchestrator")
        t0 = time.perf_counter()
        direct = await asyncio.gather(*(direct_chat(orchestrator, q) for q in questions))
        direct_wall = time.perf_counter() - t0
        t0 = time.perf_counter()
        through_backend = await asyncio.gather(*(backend_chat(http, q) for q in questions))
        backend_wall = time.perf_counter() - t0
        files_ok = (await http.get("/api/files")).status_code == 200
    backend_summary = {**summarize(through_backend), "wall_s": round(backend_wall, 2)}
    direct_summary = {**summarize(direct), "wall_s": round(direct_wall, 2)}

    def ratio(key: str) -> float | None:
        a, b = backend_summary.get(key), direct_summary.get(key)
        return round(a / b, 3) if a and b else None

    return {
        "pdf": pdf.name, "chunks": record.get("chunks"), "index_s": round(index_s, 2),
        "warmup_answered": warmup["answered"], "concurrency": chats,
        "backend": backend_summary, "baseline_direct_a2a": direct_summary,
        "ratio_vs_baseline": {"first_status_p50": ratio("first_status_p50_ms"),
                              "first_status_p95": ratio("first_status_p95_ms"),
                              "answer_p50": ratio("answer_p50_ms"), "answer_p95": ratio("answer_p95_ms")},
        "with_sources": sum(1 for r in through_backend if r.get("sources")),
        "api_ok_after_load": files_ok,
    }


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the backend's commands to the `hub` CLI."""

    @bench_app.command("backend")
    def bench_backend(
        chats: Annotated[int, typer.Option(min=1, max=500, help="concurrent chats")] = 50,
        eval_data: Annotated[Path, typer.Option(help="shared evaluation data folder")] = DEFAULT_EVAL_DATA,
        pdf: Annotated[str, typer.Option(help="PDF under <eval-data>/pdfs to index and ask about")] = DEFAULT_PDF,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Concurrent chats through /api/chat against an offline hub (baseline: the same chats straight
        to the orchestrator over A2A, measured in the same run)."""
        pdf_path = eval_data / "pdfs" / pdf
        if not pdf_path.exists():
            typer.echo(f"evaluation PDF {pdf_path} not found (give --eval-data / --pdf)", err=True)
            raise typer.Exit(2)
        with tempfile.TemporaryDirectory(prefix="hub-bench-backend-") as tmp, \
                offline_hub(Path(tmp), eval_data=eval_data) as hub:
            result = asyncio.run(run_bench(hub.backend_url, hub.urls["orchestrator"], pdf_path, chats,
                                           hub.launcher.settings.hub_token))
            result["startup_s"] = round(hub.startup_s, 2)
        if as_json:
            typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
            return
        b, d, r = result["backend"], result["baseline_direct_a2a"], result["ratio_vs_baseline"]
        typer.echo(f"{chats} concurrent chats: {b['completed']} answered, {b['errors']} errors "
                   f"(baseline direct A2A: {d['completed']} answered)")
        typer.echo(f"first status  p50 {b['first_status_p50_ms']} ms  p95 {b['first_status_p95_ms']} ms  "
                   f"(×{r['first_status_p50']} / ×{r['first_status_p95']} of direct A2A)")
        typer.echo(f"answer        p50 {b['answer_p50_ms']} ms  p95 {b['answer_p95_ms']} ms  "
                   f"(×{r['answer_p50']} / ×{r['answer_p95']} of direct A2A)")
        if b["errors"]:
            raise typer.Exit(1)
