"""`hub eval intent`: the planner's intent accuracy on a labelled JSONL set.

Lines are `{"message": "...", "intent": "INTERNAL_SEARCH|WEB_SEARCH|FILE_OPERATION|HYBRID|DIRECT"}`. The
planner is the one the orchestrator runs (`make_planner`: the LLM when configured, else the offline
classifier, which needs no service); by default it sees the catalog of the shared PDFs, indexed for the run
into a temporary database by the RAG evaluation's environment, and the probe of that index
(`orchestrator_agent.probe`) the orchestrator asks before planning.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ai_llm.common.degraded import collect_degraded
from ai_llm.common.identity import Viewer
from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.common.store.jsonl import iter_jsonl
from ai_llm.common.text import is_korean
from ai_llm.orchestrator_agent.plan import INTENTS
from ai_llm.orchestrator_agent.planner import Planner, make_planner
from ai_llm.orchestrator_agent.probe import DocumentProbe
from ai_llm.orchestrator_agent.registry import AgentInfo, build_registry


class IntentDataError(ValueError):
    """The evaluation file is missing or malformed (the message names the file and line)."""


def load_intent_set(path: Path) -> list[dict[str, str]]:
    """Read and check a labelled intent set; every problem is reported with its line number."""
    rows: list[dict[str, str]] = []
    for lineno, item in iter_jsonl(path, IntentDataError, missing="{path}: no such file"):
        if not isinstance(item, dict):
            raise IntentDataError(f"{path}:{lineno}: expected a JSON object with message and intent")
        message, intent = item.get("message"), item.get("intent")
        if not isinstance(message, str) or not message.strip():
            raise IntentDataError(f"{path}:{lineno}: 'message' must be a non-empty string")
        if intent not in INTENTS:
            raise IntentDataError(f"{path}:{lineno}: intent {intent!r} is not one of {', '.join(INTENTS)}")
        rows.append({"message": message, "intent": str(intent)})
    if not rows:
        raise IntentDataError(f"{path}: no labelled lines")
    return rows


#: The shared PDFs `hub eval intent` indexes for its catalog when `--docs` is not given.
DEFAULT_DOCS = PROJECT_ROOT.parent / "shared" / "eval-data" / "pdfs"


@asynccontextmanager
async def docs_index(settings: Settings, docs_dir: Path) -> AsyncIterator[tuple[list[dict[str, Any]], DocumentProbe]]:
    """The catalog of `docs_dir`'s documents (indexed into a temporary DB) and a probe of that index, both
    usable until the context ends."""
    from ai_llm.evals.rag.evaluation import index_directory, rag_environment
    from ai_llm.internal_rag_agent.catalog import DocumentCatalog

    async with rag_environment(settings) as env:
        await index_directory(env.agent, docs_dir)
        db = env.db

        async def open_db() -> Any:
            return db

        yield [entry.to_dict() for entry in await DocumentCatalog(db).entries()], DocumentProbe(open_db)


async def run_eval(settings: Settings, rows: Sequence[dict[str, str]],
                   catalog: Sequence[dict[str, Any]] = (), probe: DocumentProbe | None = None) -> dict[str, Any]:
    """The report of `evaluate` for the planner and the live agent cards the orchestrator would use."""
    infos = await build_registry(settings).infos()
    return await evaluate(rows, make_planner(settings), infos, catalog,
                          mode="llm" if settings.llm_online else "offline", probe=probe)


async def evaluate(rows: Sequence[dict[str, str]], planner: Planner, agents: dict[str, AgentInfo],
                   catalog: Sequence[dict[str, Any]] = (), *, mode: str,
                   probe: DocumentProbe | None = None) -> dict[str, Any]:
    """Accuracy, per-intent precision/recall, confusion matrix (gold -> predicted -> count), latency.

    Args:
        mode: how the planner plans (`llm` or `offline`), reported as is.
        probe: the probe of the indexed documents, asked before each plan as the orchestrator asks it (every
            document is readable: they are indexed as everyone's); its time is reported apart.
    """
    predictions: list[str] = []
    latencies: list[float] = []
    probe_ms: list[float] = []
    degraded: list[set[str]] = []
    for row in rows:
        with collect_degraded() as skipped:
            match = None
            if probe is not None:
                started = time.perf_counter()
                match = await probe.probe(row["message"], Viewer.all_documents())
                probe_ms.append((time.perf_counter() - started) * 1000)
            started = time.perf_counter()
            outcome = await planner.plan(row["message"], agents, (), catalog, probe=match)
        latencies.append((time.perf_counter() - started) * 1000)
        predictions.append(outcome.plan.intent)
        degraded.append(skipped)
    gold = [row["intent"] for row in rows]
    pairs = Counter(zip(gold, predictions, strict=True))
    matrix = {g: {p: pairs.get((g, p), 0) for p in INTENTS} for g in INTENTS}
    per_intent = {}
    for label in INTENTS:
        tp = pairs.get((label, label), 0)
        predicted = sum(1 for p in predictions if p == label)
        support = sum(1 for g in gold if g == label)
        per_intent[label] = {"precision": round(tp / predicted, 4) if predicted else None,
                             "recall": round(tp / support, 4) if support else None, "support": support}
    by_language: dict[str, dict[str, Any]] = {}
    for row, pred in zip(rows, predictions, strict=True):
        lang = "ko" if is_korean(row["message"]) else "en"
        entry = by_language.setdefault(lang, {"n": 0, "correct": 0})
        entry["n"] += 1
        entry["correct"] += int(pred == row["intent"])
    for entry in by_language.values():
        entry["accuracy"] = round(entry["correct"] / entry["n"], 4)
    correct = sum(1 for g, p in zip(gold, predictions, strict=True) if g == p)
    latencies.sort()
    return {
        "n": len(rows),
        "accuracy": round(correct / len(rows), 4),
        "mode": mode,
        "per_intent": per_intent,
        # Messages whose gold intent needs an agent but were planned DIRECT (answered without searching).
        "non_direct_as_direct": sum(1 for g, p in zip(gold, predictions, strict=True)
                                    if g != "DIRECT" and p == "DIRECT"),
        "catalog_used": bool(catalog),
        "catalog_documents": [str(d.get("file_name")) for d in catalog],
        "probe_used": probe is not None,
        "probe_mean_ms": round(sum(probe_ms) / len(probe_ms), 1) if probe_ms else None,
        "probe_p95_ms": round(sorted(probe_ms)[min(len(probe_ms) - 1, int(0.95 * len(probe_ms)))], 1)
        if probe_ms else None,
        "by_language": by_language,
        "confusion_matrix": matrix,
        "labels": list(INTENTS),
        "mean_latency_ms": round(sum(latencies) / len(latencies), 1),
        "p95_latency_ms": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 1),
        # Messages planned while something they needed was degraded (a fallback noted on the way).
        "degraded_items": sum(1 for d in degraded if d),
        "degraded": sorted(set().union(*degraded)) if degraded else [],
        "errors": [{"message": r["message"], "gold": r["intent"], "predicted": p}
                   for r, p in zip(rows, predictions, strict=True) if r["intent"] != p][:40],
    }
