"""`hub eval web` (HotpotQA over a closed local web) and `hub eval verify` (fact-verification cases)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ai_llm.common.cli_output import emit


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub eval web` and `hub eval verify`."""

    @eval_app.command("web")
    def eval_web(
        hotpotqa: Annotated[Path, typer.Option(help="HotpotQA distractor JSONL (e.g. ../shared/eval-data/"
                                                    "hotpotqa/dev_distractor_300.jsonl)")],
        n: Annotated[int | None, typer.Option(help="ask only the first N questions (the corpus keeps all)")] = None,
        depth: Annotated[str, typer.Option(help="snippets, pages, or both (side by side)")] = "both",
        concurrency: Annotated[int, typer.Option(help="questions in flight at once")] = 4,
        skip: Annotated[int, typer.Option(help="leave out the first SKIP questions (with --n: a slice)")] = 0,
        unanswerable: Annotated[Path | None, typer.Option(
            help="JSONL of questions whose answer is in no page of the corpus (`question`, `kind`, `language`): "
                 "reports no_answer_accuracy beside the HotpotQA metrics")] = None,
        compare_reader: Annotated[bool, typer.Option(
            "--compare-reader", help="also read pages without the reader ranking the chunks (same processes): "
                                     "mode pages_without_reader and the differences in reader_vs_rules")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Web-research quality on HotpotQA: supporting recall, EM/F1, no_result rate, latency, searches; with
        --unanswerable, how often questions the corpus cannot answer get `no_result`. An embedding server at
        EMBEDDING_URL is used when it answers; else one is started."""
        from ai_llm.common.settings import get_settings
        from ai_llm.evals.web.evaluation import EvalDataError, run_hotpotqa_eval

        if depth not in ("snippets", "pages", "both"):
            typer.echo(f"--depth must be snippets, pages or both, not {depth!r}", err=True)
            raise typer.Exit(2)
        if n is not None and n <= 0:
            typer.echo("--n must be a positive number of questions", err=True)
            raise typer.Exit(2)
        if skip < 0:
            typer.echo("--skip must not be negative", err=True)
            raise typer.Exit(2)
        depths = ["snippets", "pages"] if depth == "both" else [depth]
        try:
            report = run_hotpotqa_eval(hotpotqa, n, depths, concurrency=max(1, concurrency), skip=skip,
                                       unanswerable=unanswerable, compare_reader=compare_reader,
                                       embedding_url=get_settings().embedding_url)
        except EvalDataError as exc:
            typer.echo(f"error: {exc}", err=True)
            raise typer.Exit(2) from exc
        lines = [f"{mode}: " + ", ".join(f"{k}={v}" for k, v in m.items()
                                         if k not in ("unanswerable", "reader_no_answer_curve"))
                 + (f", no_answer_accuracy={m['unanswerable']['no_answer_accuracy']}" if "unanswerable" in m else "")
                 for mode, m in report["modes"].items()]
        emit(report, as_json, "\n".join(lines))

    @eval_app.command("verify")
    def eval_verify(
        limit: Annotated[int, typer.Option(help="run only this many cases, spread evenly over the set (every k-th, "
                                                "so the outcome codes stay mixed; 0: all)")] = 0,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Fact verification over the built-in cases: outcome per case, counts per expected code, precision and
        recall of verified:true."""
        from ai_llm.evals.web.verify_eval import run_verify_eval

        if limit < 0:
            typer.echo("--limit must not be negative", err=True)
            raise typer.Exit(2)
        report = run_verify_eval(limit)
        lines = [f"{c['case']:<28} expected={c['expected']:<22} got={c['got']:<22} "
                 f"{'PASS' if c['passed'] else 'FAIL'}" for c in report["cases"]]
        lines.append("per expected code: " + ", ".join(f"{code} {n['passed']}/{n['expected']}"
                                                       for code, n in report["per_code"].items() if n["expected"]))
        lines.append(f"verified: precision {report['verified_precision']} ({report['verified_correct']} of "
                     f"{report['verified_count']}), recall {report['verified_recall']} ({report['verified_correct']} of "
                     f"{report['should_verify']})  passed: {report['passed']}/{report['count']}")
        emit(report, as_json, "\n".join(lines))
