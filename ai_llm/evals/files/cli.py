"""`hub eval files` and `hub bench files`."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import PROJECT_ROOT

DEFAULT_EVAL = PROJECT_ROOT / "benchmarks" / "data" / "file_instructions.json"


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub eval files` and `hub bench files`."""

    @eval_app.command("files")
    def eval_files(
        data: Annotated[Path, typer.Option(help="instruction eval set (JSON: catalogue + cases)")] = DEFAULT_EVAL,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Accuracy of natural-language file instructions → operation and files (offline, no services)."""
        from ai_llm.evals.files.evaluation import evaluate

        result = evaluate(data)
        lines = [f"cases {result['cases']}: operation {result['operation_accuracy']:.3f}, "
                 f"targets {result['target_accuracy']:.3f}, confirmation {result['confirmation_accuracy']:.3f}"]
        lines += [f"  ✗ {failure}" for failure in result["failures"]]
        emit(result, as_json, "\n".join(lines))

    @bench_app.command("files")
    def bench_files(
        size_mb: Annotated[float, typer.Option(help="size of each uploaded file")] = 20.0,
        rounds: Annotated[int, typer.Option(help="uploads (the best is reported)")] = 3,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Upload throughput through POST /files vs a plain disk write; peak heap during an upload."""
        import asyncio

        from ai_llm.evals.files.benchmark import run_bench

        result = asyncio.run(run_bench(size_mb, rounds))
        emit(result, as_json,
             f"upload {result['upload_mb_per_s']} MB/s vs disk {result['disk_write_mb_per_s']} MB/s "
             f"(ratio {result['upload_vs_disk_write_ratio']}); peak heap {result['peak_heap_mb_during_upload']} MB")
