"""`hub eval intent` and `hub bench orchestrator`."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from ai_llm.common.cli_output import emit


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub eval intent` and `hub bench orchestrator`."""

    @eval_app.command("intent")
    def eval_intent(
        input: Annotated[Path, typer.Option("--input", help='JSONL of {"message", "intent"} lines '
                                                           "(e.g. benchmarks/data/intent_holdout3.jsonl)")],
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
        docs: Annotated[Path | None, typer.Option(help="PDFs whose catalog the planner sees (indexed into a "
                                                       "temporary DB; default: ../shared/eval-data/pdfs)")] = None,
        no_catalog: Annotated[bool, typer.Option("--no-catalog", help="plan without a document catalog")] = False,
        no_probe: Annotated[bool, typer.Option("--no-probe", help="plan without probing the indexed documents' "
                                                              "chunks (the catalog only)")] = False,
        llm_url: Annotated[str | None, typer.Option(
            help="also plan every request with this OpenAI-compatible model (e.g. http://127.0.0.1:10020/v1); "
                 "its report goes under `llm`, beside this run's offline one")] = None,
        llm_model: Annotated[str | None, typer.Option(help="the model id at --llm-url (default LLM_MODEL)")] = None,
        limit: Annotated[int, typer.Option(help="plan only this many requests, spread evenly over the set "
                                                "(0: all)")] = 0,
    ) -> None:
        """Intent accuracy and confusion matrix of the planner (offline, or the LLM when configured; with
        --llm-url both, on the same requests)."""
        from ai_llm.common.settings import get_settings
        from ai_llm.evals.orchestrator.evaluation import (
            DEFAULT_DOCS,
            IntentDataError,
            docs_index,
            load_intent_set,
            run_eval,
        )

        try:
            rows = load_intent_set(input)
        except IntentDataError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        from ai_llm.evals.rag.evaluation import spread

        rows = spread(rows, limit)
        settings = get_settings()
        docs_dir = docs or DEFAULT_DOCS

        async def run() -> dict[str, Any]:
            model_settings = None
            if llm_url:
                from ai_llm.evals.harness import with_model_server

                model_settings = with_model_server(settings, llm_url, llm_model)
            if no_catalog or not docs_dir.is_dir():
                out = await run_eval(settings, rows)
                if model_settings is not None:
                    out["llm"] = await run_eval(model_settings, rows)
                return out
            async with docs_index(settings, docs_dir) as (catalog, probe):
                out = await run_eval(settings, rows, catalog, None if no_probe else probe)
                if model_settings is not None:
                    out["llm"] = await run_eval(model_settings, rows, catalog, None if no_probe else probe)
            return out

        report = asyncio.run(run())
        report["input"] = str(input)
        lines = [f"intent accuracy ({report['mode']}): {report['accuracy']:.3f} on {report['n']} requests",
                 "gold \\ predicted: " + " ".join(f"{label[:8]:>8}" for label in report["labels"])]
        for gold, row in report["confusion_matrix"].items():
            lines.append(f"{gold:17}  " + " ".join(f"{row[p]:>8}" for p in report["labels"]))
        emit(report, as_json, "\n".join(lines))

    @bench_app.command("pools")
    def bench_pools(
        concurrent: Annotated[str, typer.Option(help="comma-separated numbers of streams at once")] = "50,100,200",
        rounds: Annotated[int, typer.Option(help="rounds per client and level (median reported)")] = 6,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Client CPU per streamed HTTP call: one httpx pool vs the hub's pool shards (`http_pools`)."""
        from ai_llm.evals.orchestrator.pools import run_bench as run_pools

        try:
            levels = [int(n) for n in concurrent.split(",") if n.strip()]
        except ValueError as exc:
            typer.echo(f"--concurrent must be comma-separated integers, not {concurrent!r}", err=True)
            raise typer.Exit(2) from exc
        if not levels or min(levels) < 1 or max(levels) > 1000 or rounds < 1:
            typer.echo("--concurrent values must be 1 to 1000 and --rounds at least 1", err=True)
            raise typer.Exit(2)
        report = asyncio.run(run_pools(levels, rounds))
        emit(report, as_json, "\n".join(
            f"{row['concurrent']} streams at once: {row['one_pool_cpu_ms']} ms of client CPU per stream with one "
            f"pool, {row['pool_shards_cpu_ms']} ms with {report['shards']} pools ({row['ratio']}x)"
            for row in report["levels"]))

    @bench_app.command("orchestrator")
    def bench_orchestrator(
        ks: Annotated[str, typer.Option(help="comma-separated fan-out sizes")] = "2,4,8",
        delay: Annotated[float, typer.Option(help="seconds each benchmark agent sleeps")] = 0.5,
        repeats: Annotated[int, typer.Option(help="runs per fan-out size (median reported)")] = 3,
        hops: Annotated[int, typer.Option(help="round trips measured for the hop overhead")] = 50,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Fan-out ratio (wall / slowest step) for k parallel steps, and the A2A hop overhead p50/p95."""
        from ai_llm.evals.orchestrator.bench import run_bench

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
        lines.append("CPU ms per call (caller / server): " + "; ".join(
            f"{key} {cpu.get('client')} / {cpu.get('server')}" for key, cpu in hop["cpu_ms_per_call"].items()))
        emit(report, as_json, "\n".join(lines))
