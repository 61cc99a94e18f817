"""`hub search stats`, `hub search corpus`, `hub bench gateway`."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Annotated, Any

import typer

from ai_llm.common.settings import PROJECT_ROOT, get_settings

DEFAULT_HOTPOTQA = PROJECT_ROOT.parent / "shared" / "eval-data" / "hotpotqa" / "dev_distractor_300.jsonl"


def _emit(payload: dict[str, Any], as_json: bool, text: str) -> None:
    typer.echo(json.dumps(payload, ensure_ascii=False, indent=2, default=str) if as_json else text)


async def _stats(hours: float) -> dict[str, Any]:
    from ai_llm.common.db import Database, migrate, resolve_database_url
    from ai_llm.common.embeddings import KNOWN_DIMENSIONS
    from ai_llm.search_gateway.telemetry import telemetry_summary

    settings = get_settings()
    url, _server = await asyncio.to_thread(resolve_database_url, settings)
    model = settings.embedding_model_name
    await migrate(url, model, KNOWN_DIMENSIONS.get(model, 384))
    async with Database(url, max_size=2) as db:
        return await telemetry_summary(db, hours=hours)


def _stats_table(summary: dict[str, Any]) -> str:
    lines = [f"search gateway, last {summary['hours']:g} h",
             f"{'provider':<14}{'requests':>9}{'spend $':>11}{'hit rate':>10}{'p50 ms':>10}{'p95 ms':>10}"]
    for p in summary["providers"]:
        lines.append(f"{p['provider']:<14}{p['requests']:>9}{p['spend_usd']:>11.4f}{p['hit_rate']:>10.1%}"
                     f"{p['p50_ms']:>10.1f}{p['p95_ms']:>10.1f}")
    if not summary["providers"]:
        lines.append("(no searches recorded)")
    return "\n".join(lines)


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the search-gateway commands to the `hub` CLI."""

    @search_app.command("stats")
    def stats(
        hours: Annotated[float, typer.Option(help="time window in hours")] = 24.0,
        as_json: Annotated[bool, typer.Option("--json", help="print the dashboard JSON")] = False,
    ) -> None:
        """Spend, hit rate and p50/p95 latency per provider (from the hub database's telemetry)."""
        if hours <= 0:
            typer.echo("--hours must be positive", err=True)
            raise typer.Exit(2)
        summary = asyncio.run(_stats(hours))
        _emit(summary, as_json, _stats_table(summary))

    @search_app.command("corpus")
    def corpus(
        target: Annotated[Path, typer.Argument(help="JSONL file to write (use it as LOCAL_CORPUS)")],
        hotpotqa: Annotated[Path, typer.Option(help="HotpotQA distractor JSONL")] = DEFAULT_HOTPOTQA,
    ) -> None:
        """Build a local-provider corpus (one page per paragraph, Wikipedia URLs) from HotpotQA."""
        from ai_llm.search_gateway.corpus import write_hotpotqa_corpus

        if not hotpotqa.is_file():
            typer.echo(f"not found: {hotpotqa}", err=True)
            raise typer.Exit(2)
        typer.echo(f"{write_hotpotqa_corpus(hotpotqa, target)} pages written to {target}")

    @bench_app.command("gateway")
    def bench_gateway(
        data: Annotated[Path, typer.Argument(help="HotpotQA JSONL (../shared/eval-data/hotpotqa/…)")] = DEFAULT_HOTPOTQA,
        delay_ms: Annotated[float, typer.Option(help="simulated provider network delay (a hosted search API "
                                                        "typically answers in ~0.5–2 s)")] = 800.0,
        cost_per_call: Annotated[float, typer.Option(help="simulated provider price per call (USD)")] = 0.008,
        paraphrases: Annotated[int, typer.Option(help="paraphrased questions replayed")] = 50,
        threshold: Annotated[float | None, typer.Option(
            help="semantic-cache similarity threshold (default: search_config.yaml's)")] = None,
        limit: Annotated[int | None, typer.Option(help="use only the first N questions")] = None,
        pairs: Annotated[Path | None, typer.Option(
            help="instead: semantic-cache precision on labelled query pairs (JSONL {a, b, same, kind?, lang?}): "
                 "wrong hits and same-hit rate, with the same-request guard and cosine-only")] = None,
        baseline_threshold: Annotated[list[float] | None, typer.Option(
            help="with --pairs: also run a cosine-only gateway at this threshold (repeatable; e.g. 0.93, "
                 "the policy before the same-request guard)")] = None,
        show_errors: Annotated[bool, typer.Option(help="with --pairs: list wrong hits and missed same pairs "
                                                       "(for tuning on a dev split only)")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Warm vs cold latency through MCP, hit rates on a replayed workload, cost, and depth recall;
        with --pairs, the semantic cache's wrong hits on labelled query pairs."""
        if pairs is not None:
            from ai_llm.search_gateway import pairs_benchmark

            try:
                pair_report = pairs_benchmark.run_pairs_benchmark(
                    pairs, threshold=threshold, baseline_thresholds=tuple(baseline_threshold or ()),
                    show_errors=show_errors)
            except pairs_benchmark.PairFileError as exc:
                typer.echo(str(exc), err=True)
                raise typer.Exit(2) from exc
            _emit(pair_report, as_json, pairs_benchmark.pairs_text(pair_report))
            return

        from ai_llm.search_gateway.benchmark import run_benchmark
        from ai_llm.search_gateway.config import load_config

        if threshold is None:
            threshold = load_config().cache.semantic_threshold
        if not data.is_file():
            typer.echo(f"not found: {data}", err=True)
            raise typer.Exit(2)
        report = run_benchmark(data, delay_ms=delay_ms, cost_per_call=cost_per_call, paraphrases=paraphrases,
                               threshold=threshold, limit=limit)
        lat, hits = report["latency"], report["hit_rate"]
        text = (f"warm exact hit {lat['warm_exact_mean_ms']:.1f} ms vs cold {lat['cold_mean_ms']:.1f} ms "
                f"({lat['warm_vs_cold_reduction']:.1%} lower; anchor 68%, goal 90%)\n"
                f"exact repeats: {hits['exact_repeat_hit_rate']:.1%} hits; paraphrases: "
                f"{hits['paraphrase_semantic_hit_rate']:.1%} semantic hits, {hits['paraphrase_wrong_hits']} wrong\n"
                f"cost per 1,000 queries: cold ${report['cost_per_1000_queries_usd']['cold']:.2f}, "
                f"warm ${report['cost_per_1000_queries_usd']['warm']:.2f}\n"
                + "\n".join(f"depth {k}: supporting recall {v['supporting_recall']:.3f}, answer in results "
                            f"{v['answer_in_results']:.3f}" for k, v in report["depth"].items()))
        _emit(report, as_json, text)
