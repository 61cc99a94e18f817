"""Where a load run's CPU goes: CPU seconds per hub process and py-spy samples summarised by kind of work."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

from ai_llm.evals.backend.hub import OfflineHub


def hub_processes(hub: OfflineHub) -> dict[str, int]:
    """name -> pid of every hub process (the launcher's children; Postgres as its postmaster)."""
    processes = {child.name: child.proc.pid for child in hub.launcher.children}
    if hub.launcher.postgres_pid is not None:
        processes["postgres"] = hub.launcher.postgres_pid
    return processes


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
