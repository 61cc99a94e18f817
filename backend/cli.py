"""`hub bench backend`: concurrent chats through `/api/chat` against an offline hub on ephemeral ports."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import shutil
import signal
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from ai_llm.common.a2a_client import RemoteAgent
from ai_llm.common.events import StatusEvent
from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.launcher import REPLICA_ALIASES, LaunchError, parse_replicas
from backend.api.state import CONNECT_TIMEOUT_S
from backend.chat_client import stream_chat
from backend.offline_hub import offline_hub, upload_and_wait

DEFAULT_EVAL_DATA = PROJECT_ROOT.parent / "shared" / "eval-data"
DEFAULT_PDF = "cdc_outpatient_infection_prevention_guide.pdf"
RAG_QA = PROJECT_ROOT / "benchmarks" / "data" / "rag_qa.jsonl"
INTENT_DEV = PROJECT_ROOT / "benchmarks" / "data" / "intent_dev.jsonl"


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


#: Concurrent chats sharing one HTTP client (connection pool) in the benchmark.
CHATS_PER_CLIENT = 20


async def backend_chat(http: httpx.AsyncClient, question: str, kind: str = "documents") -> dict[str, Any]:
    """One chat through the backend; times measured from sending the request."""
    started = time.perf_counter()
    result: dict[str, Any] = {"kind": kind, "answered": False, "first_status_ms": None, "planned_ms": None,
                              "steps_done_ms": None, "answer_ms": None, "error": None, "intent": None,
                              "steps": []}
    try:
        async for event in stream_chat(http, question, language="en"):
            elapsed = (time.perf_counter() - started) * 1000
            if event.event == "status":
                if result["first_status_ms"] is None:
                    result["first_status_ms"] = elapsed
                stage = event.data.get("stage")
                if stage == "planned" and result["planned_ms"] is None:
                    result["planned_ms"] = elapsed
                elif stage == "step_done":
                    result["steps_done_ms"] = elapsed
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
                    kill_after_s: float = 2.0) -> dict[str, Any]:
    """Run each level of concurrent chats; `kill`, when given, is called `kill_after_s` into the first level
    (a replica killed mid-run: every chat must still be answered)."""
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
                       "stages": stage_breakdown(runs), "cpu_s": cpu}
            if profiles:
                summary["profile"] = profiles
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


def hub_processes(hub: Any) -> dict[str, int]:
    """name -> pid of every hub process (the launcher's children; Postgres as its postmaster)."""
    return {child.name: child.proc.pid for child in hub.launcher.children}


def _proc_cpu(pid: int) -> float:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")  # utime + stime


def _children(pid: int) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1]) == pid:
                    out.append(int(entry.name))
            except (OSError, IndexError, ValueError):
                continue
    return out


def cpu_seconds(processes: dict[str, int]) -> dict[str, float]:
    """CPU seconds (user + system) used so far by each hub process; Postgres counts its backends too, and
    `bench_client` is this process (the chats' HTTP clients, the launcher)."""
    if not processes:
        return {}
    out = {}
    for name, pid in processes.items():
        total = _proc_cpu(pid)
        if name == "postgres":
            total += sum(_proc_cpu(child) for child in _children(pid))
        out[name] = total
    out["bench_client"] = _proc_cpu(os.getpid())
    return out


def start_profilers(processes: dict[str, int], folder: Path) -> list[tuple[str, subprocess.Popen[bytes], Path]]:
    """A py-spy sampler (`py-spy record --format raw`) on every Python hub process, when py-spy is installed."""
    exe = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
    if not Path(exe).exists():
        return []
    folder.mkdir(parents=True, exist_ok=True)
    spies = []
    for name, pid in processes.items():
        if name == "postgres":
            continue
        out = folder / f"{name}.txt"
        proc = subprocess.Popen([exe, "record", "--pid", str(pid), "--rate", "40", "--format", "raw",
                                 "--nonblocking", "-o", str(out)], stdout=subprocess.DEVNULL,
                                stderr=subprocess.DEVNULL)
        spies.append((name, proc, out))
    return spies


def stop_profilers(spies: list[tuple[str, subprocess.Popen[bytes], Path]]) -> dict[str, Any]:
    """Stop the samplers and summarise each process's CPU samples by kind of work."""
    for _, proc, _ in spies:
        proc.send_signal(signal.SIGINT)
    out: dict[str, Any] = {}
    for name, proc, path in spies:
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
        if path.exists():
            out[name] = {"file": str(path), **summarize_profile(path.read_text(encoding="utf-8", errors="replace"))}
    return out


#: Kinds of work, by the first matching frame of a sampled stack (most specific first).
PROFILE_KINDS = (
    ("waiting (epoll, locks: not CPU)", ("EpollSelector.select", "Condition.wait", "Event.wait", "_worker (concurrent")),
    ("embedding model", ("onnxruntime", "torch", "sentence_transformers", "transformers/")),
    ("tokenisation / text analysis", ("kiwipiepy", "text_analysis", "tokenizers", "analyze_query", "bm25")),
    ("pdf parsing", ("pypdf", "pdfminer", "fitz")),
    ("SQL (psycopg)", ("psycopg",)),
    ("intent model / planner", ("intent_model", "planner.py", "sklearn", "numpy")),
    ("A2A protocol (a2a-sdk, protobuf)", ("a2a/", "google/protobuf")),
    ("MCP (gateway calls)", ("mcp/",)),
    ("HTTP (httpx/httpcore/h11/uvicorn)", ("httpx", "httpcore", "h11", "uvicorn", "anyio")),
    ("ASGI/validation (starlette, fastapi, pydantic, sse)", ("starlette", "fastapi", "pydantic", "sse_starlette")),
    ("JSON", ("json/",)),
    ("asyncio event loop", ("asyncio/",)),
)


def summarize_profile(raw: str) -> dict[str, Any]:
    """Shares of the CPU samples of one process by kind of work, and its top leaf functions."""
    kinds: dict[str, int] = {}
    leaves: dict[str, int] = {}
    total = 0
    for line in raw.splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not stack or not count_text.isdigit():
            continue
        count = int(count_text)
        total += count
        frames = stack.split(";")
        kind = "other"
        for label, markers in PROFILE_KINDS:
            where = frames[-1:] if label.startswith("waiting") else frames  # a wait is the leaf frame
            if any(marker in frame for frame in where for marker in markers):
                kind = label
                break
        kinds[kind] = kinds.get(kind, 0) + count
        leaf = frames[-1]
        leaves[leaf] = leaves.get(leaf, 0) + count
    top = sorted(leaves.items(), key=lambda kv: kv[1], reverse=True)[:8]
    return {"samples": total,
            "by_kind": {k: round(v / total, 3) for k, v in sorted(kinds.items(), key=lambda kv: -kv[1])} if total else {},
            "top_leaves": [{"frame": f, "share": round(c / total, 3)} for f, c in top] if total else []}


def parse_levels(text: str) -> list[int]:
    """`10,50,100` -> [10, 50, 100] (each 1–500)."""
    try:
        levels = [int(part) for part in text.split(",") if part.strip()]
    except ValueError as exc:
        raise typer.BadParameter(f"--chats takes numbers separated by commas, not {text!r}") from exc
    if not levels or any(not 1 <= n <= 500 for n in levels):
        raise typer.BadParameter("--chats: each number of concurrent chats must be 1–500")
    return levels


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the backend's commands to the `hub` CLI."""

    @bench_app.command("backend")
    def bench_backend(
        chats: Annotated[str, typer.Option(help="concurrent chats; several levels separated by commas "
                                                "(10,50,100,200), run one after the other on one hub")] = "50",
        eval_data: Annotated[Path, typer.Option(help="shared evaluation data folder")] = DEFAULT_EVAL_DATA,
        pdf: Annotated[str, typer.Option(help="PDF under <eval-data>/pdfs to index and ask about")] = DEFAULT_PDF,
        baseline: Annotated[int, typer.Option(help="also send this many chats straight to the orchestrator "
                                                   "over A2A (the baseline without the backend); 0: none")] = 0,
        profile: Annotated[Path | None, typer.Option(help="sample every hub process with py-spy during the "
                                                          "--profile-chats level; raw stacks go here")] = None,
        profile_chats: Annotated[int, typer.Option(help="the level that --profile samples")] = 50,
        logs: Annotated[Path | None, typer.Option(help="copy every hub process's log here at the end")] = None,
        replicas: Annotated[str | None, typer.Option(help="replicas per agent, e.g. rag=2,web=2 (each on its own "
                                                          "loopback address)")] = None,
        kill_replica: Annotated[str | None, typer.Option(help="kill -9 the last replica of this agent (e.g. rag) "
                                                              "--kill-after seconds into the first level")] = None,
        kill_after: Annotated[float, typer.Option(help="seconds into the first level for --kill-replica")] = 2.0,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Concurrent chats through /api/chat against an offline hub: chats/s, first-status and answer
        percentiles for each level, per-stage timings, CPU seconds per process; the question mix is the same
        at every level (documents, web, hybrid in turn)."""
        levels = parse_levels(chats)
        pdf_path = eval_data / "pdfs" / pdf
        if not pdf_path.exists():
            typer.echo(f"evaluation PDF {pdf_path} not found (give --eval-data / --pdf)", err=True)
            raise typer.Exit(2)
        try:
            counts = parse_replicas(replicas)
        except LaunchError as exc:
            raise typer.BadParameter(str(exc)) from exc
        victim = (REPLICA_ALIASES.get(kill_replica) or kill_replica) if kill_replica else None
        if victim is not None and counts.get(victim, 1) < 2:
            raise typer.BadParameter(f"--kill-replica {kill_replica}: give it at least two --replicas")
        with tempfile.TemporaryDirectory(prefix="hub-bench-backend-") as tmp, \
                offline_hub(Path(tmp), eval_data=eval_data, replicas=counts) as hub:

            def kill() -> dict[str, Any]:
                assert victim is not None
                replica = counts[victim]
                return {"agent": victim, "replica": replica, "pid": hub.launcher.kill(victim, replica=replica)}

            result = asyncio.run(run_bench(hub.backend_url, hub.urls["orchestrator"], pdf_path, levels,
                                           hub.launcher.settings.hub_token,
                                           baseline_chats=baseline, processes=hub_processes(hub),
                                           profile_dir=profile, profile_chats=profile_chats,
                                           kill=kill if victim else None, kill_after_s=kill_after))
            result["startup_s"] = round(hub.startup_s, 2)
            result["replicas"] = counts
            if logs is not None:
                shutil.copytree(hub.launcher.settings.logs_dir, logs, dirs_exist_ok=True)
        if as_json:
            typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
        else:
            for level in result["levels"]:
                typer.echo(f"{level['chats']:>4} concurrent chats: {level['completed']} answered, "
                           f"{level['errors']} errors, {level['wall_s']} s, {level['chats_per_s']} chats/s | "
                           f"first status p50 {level['first_status_p50_ms']} / p95 {level['first_status_p95_ms']} ms"
                           f" | answer p50 {level['answer_p50_ms']} / p95 {level['answer_p95_ms']} ms")
            typer.echo(f"chats/s at saturation: {result['chats_per_s_at_saturation']}")
            if "baseline_direct_a2a" in result:
                d = result["baseline_direct_a2a"]
                typer.echo(f"baseline, {d['chats']} chats straight to the orchestrator: first status p50 "
                           f"{d['first_status_p50_ms']} / p95 {d['first_status_p95_ms']} ms | answer p50 "
                           f"{d['answer_p50_ms']} / p95 {d['answer_p95_ms']} ms")
        if any(level["errors"] for level in result["levels"]):
            raise typer.Exit(1)
