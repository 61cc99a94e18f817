"""`hub eval intent` / `hub classify`: the planner's intent accuracy on a labelled JSONL set.

Lines are `{"message": "...", "intent": "INTERNAL_SEARCH|WEB_SEARCH|FILE_OPERATION|HYBRID|DIRECT"}`. The
offline planner needs the hub's embedding server; when none answers at the configured URL one is started
for the run (and stopped after), so the command is self-contained.
"""

from __future__ import annotations

import json
import tempfile
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from ai_llm.common.a2a_server import free_port
from ai_llm.common.degraded import collect_degraded
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.jsonl import iter_jsonl
from ai_llm.common.llm import LocalEngine, make_llm
from ai_llm.common.process import start_module, stop_child, wait_http
from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.common.text import is_korean
from ai_llm.orchestrator_agent.plan import INTENTS
from ai_llm.orchestrator_agent.planner import OfflineClassifier, Planner, PlanOutcome
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


@contextmanager
def embedding_service(settings: Settings) -> Iterator[str]:
    """Base URL of a working embedding service: the configured one, or a local server started for the run."""
    base = settings.embedding_base_url
    if settings.embedding_provider == "openai":
        yield base
        return
    root = base[:-3] if base.endswith("/v1") else base
    try:
        if httpx.get(root + "/healthz", timeout=2.0).status_code == 200:
            yield base
            return
    except httpx.HTTPError:
        pass
    port = free_port()
    with tempfile.TemporaryDirectory(prefix="hub-intent-") as tmp:
        child = start_module("embedding_server", "ai_llm.embedding_server", ["--port", str(port)],
                             {"HUB_TOKEN": settings.hub_token or ""}, Path(tmp))
        try:
            wait_http(f"http://127.0.0.1:{port}/healthz", child, timeout_s=120)
            yield f"http://127.0.0.1:{port}/v1"
        finally:
            stop_child(child)


def make_planner(settings: Settings, embedding_url: str) -> tuple[Planner, OpenAIEmbeddings]:
    """The planner the orchestrator would use (LLM when configured, else offline) on the given embeddings."""
    token = settings.openai_api_key if settings.embedding_provider == "openai" else settings.hub_token
    embeddings = OpenAIEmbeddings(embedding_url, settings.embedding_model_name, api_key=token)
    llm = make_llm(settings, embeddings)
    engine = llm if isinstance(llm, LocalEngine) else LocalEngine(embeddings)
    return Planner(llm, OfflineClassifier(engine), model=settings.llm_model), embeddings


#: The shared PDFs `hub eval intent` indexes for its catalog when `--docs` is not given.
DEFAULT_DOCS = PROJECT_ROOT.parent / "shared" / "eval-data" / "pdfs"


async def docs_catalog(settings: Settings, docs_dir: Path) -> list[dict[str, Any]]:
    """The catalog the RAG agent would serve after indexing every PDF of `docs_dir` (into a temporary DB)."""
    from ai_llm.internal_rag_agent.catalog import DocumentCatalog
    from ai_llm.internal_rag_agent.evaluation import index_directory, rag_environment

    async with rag_environment(settings) as env:
        await index_directory(env.agent, docs_dir)
        return [entry.to_dict() for entry in await DocumentCatalog(env.db).entries()]


async def agent_infos(settings: Settings) -> dict[str, AgentInfo]:
    """Live cards of the configured agents (unreachable ones are listed as such)."""
    return await build_registry(settings).infos()


def outcome_json(message: str, outcome: PlanOutcome, elapsed_ms: float) -> dict[str, Any]:
    return {"message": message, "intent": outcome.plan.intent, "planner": outcome.planner,
            "plan": json.loads(outcome.plan.model_dump_json()), "notes": outcome.notes,
            "classification": outcome.decision.to_dict() if outcome.decision else None,
            "elapsed_ms": round(elapsed_ms, 1)}


async def evaluate(rows: Sequence[dict[str, str]], planner: Planner,
                   agents: dict[str, AgentInfo], catalog: Sequence[dict[str, Any]] = ()) -> dict[str, Any]:
    """Accuracy, per-intent precision/recall, confusion matrix (gold -> predicted -> count), latency."""
    predictions: list[str] = []
    latencies: list[float] = []
    degraded: list[set[str]] = []
    for row in rows:
        started = time.perf_counter()
        with collect_degraded() as skipped:
            outcome = await planner.plan(row["message"], agents, (), catalog)
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
        "mode": "llm" if getattr(planner.llm, "online", False) else "offline",
        "per_intent": per_intent,
        # Messages whose gold intent needs an agent but were planned DIRECT (answered without searching).
        "non_direct_as_direct": sum(1 for g, p in zip(gold, predictions, strict=True)
                                    if g != "DIRECT" and p == "DIRECT"),
        "catalog_used": bool(catalog),
        "catalog_documents": [str(d.get("file_name")) for d in catalog],
        "by_language": by_language,
        "confusion_matrix": matrix,
        "labels": list(INTENTS),
        "mean_latency_ms": round(sum(latencies) / len(latencies), 1),
        "p95_latency_ms": round(latencies[min(len(latencies) - 1, int(0.95 * len(latencies)))], 1),
        # Messages classified with a fallback (keywords only while the embedding server was down).
        "degraded_items": sum(1 for d in degraded if d),
        "degraded": sorted(set().union(*degraded)) if degraded else [],
        "errors": [{"message": r["message"], "gold": r["intent"], "predicted": p}
                   for r, p in zip(rows, predictions, strict=True) if r["intent"] != p][:40],
    }
