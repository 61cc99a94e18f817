"""`hub classify`, `hub eval intent` and `hub bench orchestrator`."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Annotated, Any

import typer


def _emit(payload: dict[str, Any], as_json: bool, text: str) -> None:
    from ai_llm.cli import emit

    emit(payload, as_json, text)


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the orchestrator's commands to the `hub` CLI."""

    @app.command("classify")
    def classify(
        message: Annotated[str, typer.Argument(help="the request to plan")],
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Plan one request (intent + steps) the way the orchestrator would, without running it."""
        from ai_llm.common.settings import get_settings
        from ai_llm.orchestrator_agent.evaluation import (
            agent_infos,
            embedding_service,
            make_planner,
            outcome_json,
        )

        if not message.strip():
            typer.echo("the message is empty", err=True)
            raise typer.Exit(2)
        settings = get_settings()

        async def run(url: str) -> dict[str, Any]:
            planner, embeddings = make_planner(settings, url)
            try:
                infos = await agent_infos(settings)
                started = time.perf_counter()
                outcome = await planner.plan(message, infos)
                return outcome_json(message, outcome, (time.perf_counter() - started) * 1000)
            finally:
                await embeddings.close()

        with embedding_service(settings) as url:
            payload = asyncio.run(run(url))
        steps = ", ".join(s["agent"] + (f"/{s['skill']}" if s.get("skill") else "") for s in payload["plan"]["steps"])
        _emit(payload, as_json, f"{payload['intent']}  [{payload['planner']}]  {steps or '(no agent)'}")

    @eval_app.command("intent")
    def eval_intent(
        input: Annotated[Path, typer.Option("--input", help='JSONL of {"message", "intent"} lines '
                                                           "(e.g. benchmarks/data/intent_eval.jsonl)")],
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
        docs: Annotated[Path | None, typer.Option(help="PDFs whose catalog the planner sees (indexed into a "
                                                       "temporary DB; default: ../shared/eval-data/pdfs)")] = None,
        no_catalog: Annotated[bool, typer.Option("--no-catalog", help="plan without a document catalog")] = False,
    ) -> None:
        """Intent accuracy and confusion matrix of the planner (offline, or the LLM when configured)."""
        from ai_llm.common.settings import get_settings
        from ai_llm.orchestrator_agent.evaluation import (
            DEFAULT_DOCS,
            IntentDataError,
            agent_infos,
            docs_catalog,
            embedding_service,
            evaluate,
            load_intent_set,
            make_planner,
        )

        try:
            rows = load_intent_set(input)
        except IntentDataError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        settings = get_settings()
        docs_dir = docs or DEFAULT_DOCS
        catalog: list[dict[str, Any]] = []
        if not no_catalog and docs_dir.is_dir():
            catalog = asyncio.run(docs_catalog(settings, docs_dir))

        async def run(url: str) -> dict[str, Any]:
            planner, embeddings = make_planner(settings, url)
            try:
                infos = await agent_infos(settings)
                report = await evaluate(rows, planner, infos, catalog)
            finally:
                await embeddings.close()
            report["input"] = str(input)
            return report

        with embedding_service(settings) as url:
            report = asyncio.run(run(url))
        lines = [f"intent accuracy ({report['mode']}): {report['accuracy']:.3f} on {report['n']} requests",
                 "gold \\ predicted: " + " ".join(f"{label[:8]:>8}" for label in report["labels"])]
        for gold, row in report["confusion_matrix"].items():
            lines.append(f"{gold:17}  " + " ".join(f"{row[p]:>8}" for p in report["labels"]))
        _emit(report, as_json, "\n".join(lines))

    @bench_app.command("orchestrator")
    def bench_orchestrator(
        ks: Annotated[str, typer.Option(help="comma-separated fan-out sizes")] = "2,4,8",
        delay: Annotated[float, typer.Option(help="seconds each benchmark agent sleeps")] = 0.5,
        repeats: Annotated[int, typer.Option(help="runs per fan-out size (median reported)")] = 3,
        hops: Annotated[int, typer.Option(help="round trips measured for the hop overhead")] = 50,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Fan-out ratio (wall / slowest step) for k parallel steps, and the A2A hop overhead p50/p95."""
        from ai_llm.orchestrator_agent.bench import run_bench

        try:
            sizes = sorted({int(k) for k in ks.split(",") if k.strip()})
        except ValueError as exc:
            typer.echo(f"--ks must be comma-separated integers, not {ks!r}", err=True)
            raise typer.Exit(2) from exc
        if not sizes or min(sizes) < 1 or max(sizes) > 32:
            typer.echo("--ks values must be between 1 and 32", err=True)
            raise typer.Exit(2)
        if delay <= 0 or repeats < 1 or hops < 1:
            typer.echo("--delay must be positive, --repeats and --hops at least 1", err=True)
            raise typer.Exit(2)
        report = asyncio.run(run_bench(sizes, delay, repeats, hops))
        lines = [f"k={v['k']}: wall/slowest = {v['ratio']:.3f} (serial baseline {v['serial_baseline_ratio']:.2f})"
                 for v in report["fan_out"].values()]
        hop = report["hop"]
        lines.append(f"A2A hop overhead p50 {hop['overhead_p50_ms']} ms, p95 {hop['overhead_p95_ms']} ms; "
                     f"bare a2a-sdk echo p50 {hop['a2a_sdk_echo_p50_ms']} ms, p95 {hop['a2a_sdk_echo_p95_ms']} ms; "
                     f"plain HTTP echo p50 {hop['plain_http_p50_ms']} ms, p95 {hop['plain_http_p95_ms']} ms "
                     f"(goal p50 <= {hop['goal_p50_ms']} ms: {'met' if hop['goal_met'] else 'not met'})")
        _emit(report, as_json, "\n".join(lines))
