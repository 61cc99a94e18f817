"""The load run of `hub bench backend`: levels of concurrent chats through `/api/chat`, a direct-A2A baseline,
and their latency figures."""

from __future__ import annotations

import asyncio
import contextlib
import json
import ssl
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import typer

from ai_llm.common.a2a.client import RemoteAgent
from ai_llm.common.a2a.events import StatusEvent
from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.evals.backend.census import per_chat
from ai_llm.evals.backend.hub import upload_and_wait
from ai_llm.evals.backend.profile import cpu_seconds, start_profilers, stop_profilers
from ai_llm.orchestrator_agent.intent_model import TRAINING_DIR
from backend.api.state import CONNECT_TIMEOUT_S
from backend.chat_client import stream_chat

DEFAULT_EVAL_DATA = PROJECT_ROOT.parent / "shared" / "eval-data"
DEFAULT_PDF = "cdc_outpatient_infection_prevention_guide.pdf"
RAG_QA = PROJECT_ROOT / "benchmarks" / "data" / "rag_qa.jsonl"
INTENT_DEV = TRAINING_DIR / "intent_dev.jsonl"


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
    tokens = [r["first_token_ms"] for r in ok if r.get("first_token_ms") is not None]
    streamed = {}
    if tokens:  # a model wrote the answers (`--llm-url`): when its first piece arrived, against the whole answer
        token_p50, answer_p50 = percentile(tokens, 50), percentile(answer, 50)
        streamed = {"streamed_chats": len(tokens), "first_token_p50_ms": _round(token_p50),
                    "first_token_p95_ms": _round(percentile(tokens, 95)),
                    "first_token_to_answer_p50": round(token_p50 / answer_p50, 3) if token_p50 and answer_p50 else None,
                    "deltas_per_answer_p50": _round(percentile([float(r["deltas"]) for r in ok if r["deltas"]], 50))}
    return {
        "chats": len(runs), "completed": len(ok), "errors": len(runs) - len(ok),
        "error_messages": sorted({r["error"] for r in runs if r["error"]})[:5],
        "first_status_p50_ms": _round(percentile(first, 50)), "first_status_p95_ms": _round(percentile(first, 95)),
        "answer_p50_ms": _round(percentile(answer, 50)), "answer_p95_ms": _round(percentile(answer, 95)),
        **streamed,
    }


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


#: Concurrent chats sharing one HTTP client (connection pool) in the benchmark.
CHATS_PER_CLIENT = 20


async def backend_chat(http: httpx.AsyncClient, question: str, kind: str = "documents") -> dict[str, Any]:
    """One chat through the backend; times measured from sending the request."""
    started = time.perf_counter()
    result: dict[str, Any] = {"kind": kind, "answered": False, "first_status_ms": None, "planned_ms": None,
                              "steps_done_ms": None, "answer_ms": None, "error": None, "intent": None,
                              "steps": [], "status_events": 0, "first_token_ms": None, "deltas": 0}
    try:
        async for event in stream_chat(http, question, language="en"):
            elapsed = (time.perf_counter() - started) * 1000
            if event.event == "status":
                result["status_events"] += 1
                if result["first_status_ms"] is None:
                    result["first_status_ms"] = elapsed
                stage = event.data.get("stage")
                if stage == "planned" and result["planned_ms"] is None:
                    result["planned_ms"] = elapsed
                elif stage == "step_done":
                    result["steps_done_ms"] = elapsed
            elif event.event == "delta":  # a piece of the answer as a model writes it
                result["deltas"] += 1
                if result["first_token_ms"] is None:
                    result["first_token_ms"] = elapsed
            elif event.event == "answer":
                result.update(answered=True, answer_ms=elapsed, sources=len(event.data.get("sources") or []),
                              intent=event.data.get("intent"), steps=event.data.get("steps") or [])
            elif event.event == "error":
                result["error"] = str(event.data.get("message"))
    except httpx.HTTPError as exc:
        result["error"] = f"{type(exc).__name__}: {exc}"
    return result


async def direct_chat(orchestrator: RemoteAgent, question: str, kind: str = "documents") -> dict[str, Any]:
    """The baseline: the same question straight to the orchestrator over A2A (no backend in between)."""
    started = time.perf_counter()
    first: float | None = None
    result: dict[str, Any] = {"kind": kind, "answered": False, "first_status_ms": None, "answer_ms": None,
                              "error": None}
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


def load_questions(pdf_name: str, count: int) -> list[tuple[str, str]]:
    """`count` (kind, question) pairs, the kinds in turn, so every count has the same mix: documents (questions
    about the PDF, `rag_qa.jsonl`), web and hybrid (the English WEB_SEARCH and HYBRID requests of the intent
    dev split). Chat i is of kind i mod 3."""
    rows = [json.loads(line) for line in RAG_QA.read_text(encoding="utf-8").splitlines() if line.strip()]
    documents = [r["question"] for r in rows if r.get("file") == pdf_name] or [r["question"] for r in rows]
    requests = [json.loads(line) for line in INTENT_DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    web = [r["message"] for r in requests if r.get("intent") == "WEB_SEARCH" and r.get("lang") == "en"]
    hybrid = [r["message"] for r in requests if r.get("intent") == "HYBRID" and r.get("lang") == "en"]
    kinds = (("documents", documents), ("web", web or documents), ("hybrid", hybrid or documents))
    return [(kinds[i % 3][0], kinds[i % 3][1][(i // 3) % len(kinds[i % 3][1])]) for i in range(count)]


def stage_breakdown(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """Where a chat's time goes, from its own events: p50/p95 (ms) of each stage and of each agent's step."""
    ok = [r for r in runs if r["answered"]]

    def spans(a: str | None, b: str) -> list[float]:
        return [r[b] - (r[a] if a else 0.0) for r in ok if r.get(b) is not None and (a is None or r.get(a) is not None)]

    def pct(values: list[float]) -> dict[str, float | None]:
        return {"p50": _round(percentile(values, 50)), "p95": _round(percentile(values, 95)), "n": len(values)}

    out: dict[str, Any] = {
        "to_first_status": pct(spans(None, "first_status_ms")),
        "first_status_to_plan": pct(spans("first_status_ms", "planned_ms")),
        "plan_to_last_step_done": pct(spans("planned_ms", "steps_done_ms")),
        "last_step_done_to_answer": pct(spans("steps_done_ms", "answer_ms")),
    }
    agents: dict[str, list[float]] = {}
    for r in ok:
        for step in r.get("steps") or []:
            if isinstance(step, dict) and isinstance(step.get("elapsed_ms"), int | float):
                agents.setdefault(str(step.get("agent")), []).append(float(step["elapsed_ms"]))
    out["agent_steps"] = {name: pct(values) for name, values in sorted(agents.items())}
    out["answer_by_kind"] = {kind: pct([r["answer_ms"] for r in ok if r["kind"] == kind])
                             for kind in ("documents", "web", "hybrid")}
    intents: dict[str, int] = {}
    for r in ok:
        intents[str(r.get("intent"))] = intents.get(str(r.get("intent")), 0) + 1
    out["intents"] = dict(sorted(intents.items()))
    return out


async def run_bench(backend_url: str, orchestrator_url: str, pdf: Path, levels: list[int],
                    token: str | None, *, baseline_chats: int = 0,
                    processes: dict[str, int] | None = None, profile_dir: Path | None = None,
                    profile_chats: int = 0, kill: Callable[[], dict[str, Any]] | None = None,
                    kill_after_s: float = 2.0,
                    census: Callable[[], dict[str, float]] | None = None) -> dict[str, Any]:
    """Run each level of concurrent chats; `kill`, when given, is called `kill_after_s` into the first level
    (a replica killed mid-run: every chat must still be answered); `census`, when given, reads the hub's work
    counters (`census.read_counters`) before and after each level, and each level reports their growth per
    chat as `work_per_chat`."""
    timeout = httpx.Timeout(900.0, connect=30.0)
    headers = {"Authorization": f"Bearer {token}"} if token else {}  # the backend needs the token when set
    result: dict[str, Any] = {"pdf": pdf.name, "levels": []}
    # The chats are spread over several HTTP clients, CHATS_PER_CLIENT each (as browsers would be): one
    # client's connection pool is scanned on every request and response, so a single pool for 200 streams
    # costs the measuring side more than the backend (first status ×2–3 at 200 chats in a trial).
    tls = ssl.create_default_context()
    clients = [httpx.AsyncClient(base_url=backend_url, timeout=timeout, headers=headers, verify=tls,
                                 limits=httpx.Limits(max_connections=CHATS_PER_CLIENT + 5))
               for _ in range(max(1, -(-max(levels) // CHATS_PER_CLIENT)))]
    async with contextlib.AsyncExitStack() as stack:
        for client in clients:
            await stack.enter_async_context(client)
        http = clients[0]
        started = time.perf_counter()
        record = await upload_and_wait(http, pdf)
        result.update(chunks=record.get("chunks"), index_s=round(time.perf_counter() - started, 2))
        warm = load_questions(pdf.name, 3)  # one of each kind: warms every agent's path
        warmups = await asyncio.gather(*(backend_chat(http, q, kind) for kind, q in warm))
        result["warmup_answered"] = all(w["answered"] for w in warmups)
        counters = await asyncio.to_thread(census) if census is not None else None
        for n in levels:
            questions = load_questions(pdf.name, n)
            cpu_before = cpu_seconds(processes or {})
            spy = start_profilers(processes or {}, profile_dir / f"chats-{n}") \
                if profile_dir and n == profile_chats else []
            t0 = time.perf_counter()
            killer = asyncio.create_task(_kill_later(kill, kill_after_s)) \
                if kill is not None and not result["levels"] else None
            runs = await asyncio.gather(*(backend_chat(clients[i % len(clients)], q, kind)
                                          for i, (kind, q) in enumerate(questions)))
            wall = time.perf_counter() - t0
            if killer is not None:
                result["killed"] = await killer
            profiles = stop_profilers(spy)
            cpu = {name: round(cpu_seconds(processes or {}).get(name, 0.0) - before, 2)
                   for name, before in cpu_before.items()}
            summary = {**summarize(runs), "wall_s": round(wall, 2),
                       "chats_per_s": round(sum(1 for r in runs if r["answered"]) / wall, 2) if wall else None,
                       "with_sources": sum(1 for r in runs if r.get("sources")),
                       # each status line is an event on every hop (agent → orchestrator → backend → browser)
                       "status_events_per_chat": round(sum(r.get("status_events", 0) for r in runs)
                                                       / max(1, len(runs)), 2),
                       "stages": stage_breakdown(runs), "cpu_s": cpu}
            if profiles:
                summary["profile"] = profiles
            if census is not None and counters is not None:
                after = await asyncio.to_thread(census)
                summary["work_per_chat"] = per_chat(counters, after, n)
                counters = after
            result["levels"].append(summary)
        if baseline_chats:
            orchestrator = RemoteAgent(orchestrator_url, token=token, timeout_s=900.0,
                                       connect_timeout_s=CONNECT_TIMEOUT_S, name="orchestrator")
            questions = load_questions(pdf.name, baseline_chats)
            t0 = time.perf_counter()
            direct = await asyncio.gather(*(direct_chat(orchestrator, q, kind) for kind, q in questions))
            result["baseline_direct_a2a"] = {**summarize(direct), "wall_s": round(time.perf_counter() - t0, 2)}
            await orchestrator.aclose()
        result["api_ok_after_load"] = (await http.get("/api/files")).status_code == 200
    saturation = max((lv["chats_per_s"] or 0.0 for lv in result["levels"]), default=0.0)
    result["chats_per_s_at_saturation"] = saturation
    return result


async def _kill_later(kill: Callable[[], dict[str, Any]], delay_s: float) -> dict[str, Any]:
    await asyncio.sleep(delay_s)
    return {**kill(), "at_s": delay_s}


def parse_levels(text: str) -> list[int]:
    """`10,50,100` -> [10, 50, 100] (each 1–500)."""
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise typer.BadParameter(f"--chats takes numbers separated by commas, not {text!r}") from exc
    if not levels or any(not 1 <= n <= 500 for n in levels):
        raise typer.BadParameter("--chats: each number of concurrent chats must be 1–500")
    return levels


def text_report(result: dict[str, Any]) -> str:
    """One line per level, the saturation figure and the direct-A2A baseline, when measured."""
    lines = [f"{level['chats']:>4} concurrent chats: {level['completed']} answered, "
             f"{level['errors']} errors, {level['wall_s']} s, {level['chats_per_s']} chats/s | "
             f"first status p50 {level['first_status_p50_ms']} / p95 {level['first_status_p95_ms']} ms"
             f" | answer p50 {level['answer_p50_ms']} / p95 {level['answer_p95_ms']} ms"
             f" | {level['status_events_per_chat']} status events per chat"
             for level in result["levels"]]
    for level in result["levels"]:
        if level.get("work_per_chat"):
            lines.append(f"{level['chats']:>4} concurrent chats, work per chat: "
                         + ", ".join(f"{name} {value}" for name, value in level["work_per_chat"].items()))
    lines.append(f"chats/s at saturation: {result['chats_per_s_at_saturation']}")
    if "baseline_direct_a2a" in result:
        d = result["baseline_direct_a2a"]
        lines.append(f"baseline, {d['chats']} chats straight to the orchestrator: first status p50 "
                     f"{d['first_status_p50_ms']} / p95 {d['first_status_p95_ms']} ms | answer p50 "
                     f"{d['answer_p50_ms']} / p95 {d['answer_p95_ms']} ms")
    return "\n".join(lines)
