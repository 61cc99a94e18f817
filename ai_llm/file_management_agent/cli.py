"""`hub files …`: list and upload files through the file-management agent's HTTP routes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from ai_llm.common.settings import PROJECT_ROOT, get_settings

DEFAULT_EVAL = PROJECT_ROOT / "benchmarks" / "data" / "file_instructions.json"


def _client() -> httpx.Client:
    settings = get_settings()
    headers = {"Authorization": f"Bearer {settings.hub_token}"} if settings.hub_token else {}
    return httpx.Client(base_url=settings.agent_url("file_management"), headers=headers, timeout=300)


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the `hub files` group."""
    @eval_app.command("files")
    def eval_files(
        data: Annotated[Path, typer.Option(help="instruction eval set (JSON: catalogue + cases)")] = DEFAULT_EVAL,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Accuracy of natural-language file instructions → operation and files (offline, no services)."""
        from ai_llm.file_management_agent.evaluation import evaluate

        result = evaluate(data)
        if as_json:
            typer.echo(json.dumps(result, ensure_ascii=False, indent=2))
            return
        typer.echo(f"cases {result['cases']}: operation {result['operation_accuracy']:.3f}, "
                   f"targets {result['target_accuracy']:.3f}, confirmation {result['confirmation_accuracy']:.3f}")
        for failure in result["failures"]:
            typer.echo(f"  ✗ {failure}")

    @bench_app.command("files")
    def bench_files(
        size_mb: Annotated[float, typer.Option(help="size of each uploaded file")] = 20.0,
        rounds: Annotated[int, typer.Option(help="uploads (the best is reported)")] = 3,
        as_json: Annotated[bool, typer.Option("--json")] = False,
    ) -> None:
        """Upload throughput through POST /files vs a plain disk write; peak heap during an upload."""
        import asyncio

        from ai_llm.file_management_agent.benchmark import run_bench

        result = asyncio.run(run_bench(size_mb, rounds))
        typer.echo(json.dumps(result, ensure_ascii=False, indent=2) if as_json else
                   f"upload {result['upload_mb_per_s']} MB/s vs disk {result['disk_write_mb_per_s']} MB/s "
                   f"(ratio {result['upload_vs_disk_write_ratio']}); peak heap {result['peak_heap_mb_during_upload']} MB")

    files_app = typer.Typer(help="Files in the hub's document store (file-management agent).", no_args_is_help=True)
    app.add_typer(files_app, name="files")

    @files_app.command("list")
    def list_files(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """List stored files with their index status."""
        with _client() as http:
            records: list[dict[str, Any]] = http.get("/files").raise_for_status().json()
        if as_json:
            typer.echo(json.dumps({"files": records}, ensure_ascii=False, indent=2))
            return
        for r in records:
            typer.echo(f"{r['id']}  {r['index_status']:<8}  {r['size']:>10}  {r['name']}")

    @files_app.command("upload")
    def upload(paths: Annotated[list[Path], typer.Argument(help="files to upload")]) -> None:
        """Upload files (indexing continues in the background; see `hub files list`)."""
        with _client() as http:
            for path in paths:
                with open(path, "rb") as f:
                    response = http.post("/files", params={"name": path.name}, content=f)
                body = response.json()
                if response.status_code >= 400:
                    typer.echo(f"{path}: {body.get('detail')}", err=True)
                    continue
                typer.echo(f"{path}: stored as {body['name']} ({body['id']})")
