"""`hub bench gateway`: the search gateway's cache and depth benchmarks, (`--pairs`) the semantic cache's
wrong hits on labelled query pairs, or (`--workloads`) recall and cost per depth of each workload."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import PROJECT_ROOT

DEFAULT_HOTPOTQA = PROJECT_ROOT.parent / "shared" / "eval-data" / "hotpotqa" / "dev_distractor_300.jsonl"


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub bench gateway`."""

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
        workloads: Annotated[bool, typer.Option(
            "--workloads", help="instead: each workload's dev questions at depths 2-10, recall and cost per depth "
                                "and the default depth they give (research: the first half of DATA)")] = False,
        news_dev: Annotated[Path | None, typer.Option(
            help="with --workloads: news/latest questions (JSONL {workload, question, kind, gold}; default "
                 "benchmarks/data/gateway_news_dev.jsonl)")] = None,
        news_corpus: Annotated[Path | None, typer.Option(
            help="with --workloads: their corpus (default benchmarks/data/gateway_news_dev_corpus.jsonl)")] = None,
        native_tokens: Annotated[tuple[int, int], typer.Option(
            help="with --workloads: input and output tokens assumed per native-search call, to price it")] = (3000, 400),
        as_json: Annotated[bool, typer.Option("--json", help="print JSON")] = False,
    ) -> None:
        """Warm vs cold latency through MCP, hit rates on a replayed workload, cost, and depth recall;
        with --pairs, the semantic cache's wrong hits on labelled query pairs; with --workloads, recall and
        cost per depth of each workload."""
        if workloads:
            from ai_llm.evals.gateway import workloads as workload_bench

            if not data.is_file():
                typer.echo(f"not found: {data}", err=True)
                raise typer.Exit(2)
            try:
                workload_report = workload_bench.run_workloads_benchmark(
                    data, news_dev or workload_bench.NEWS_DEV, news_corpus or workload_bench.NEWS_CORPUS,
                    limit=limit, native_tokens=native_tokens)
            except workload_bench.DevSetError as exc:
                typer.echo(str(exc), err=True)
                raise typer.Exit(2) from exc
            emit(workload_report, as_json, workload_bench.workloads_text(workload_report))
            return
        if pairs is not None:
            from ai_llm.evals.gateway import pairs_benchmark

            try:
                pair_report = pairs_benchmark.run_pairs_benchmark(
                    pairs, threshold=threshold, baseline_thresholds=tuple(baseline_threshold or ()),
                    show_errors=show_errors)
            except pairs_benchmark.PairFileError as exc:
                typer.echo(str(exc), err=True)
                raise typer.Exit(2) from exc
            emit(pair_report, as_json, pairs_benchmark.pairs_text(pair_report))
            return

        from ai_llm.evals.gateway.benchmark import run_benchmark
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
        emit(report, as_json, text)
