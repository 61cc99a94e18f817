"""`hub files …`: list and upload files through the file-management agent's HTTP routes."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import httpx
import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import get_settings


def _client() -> httpx.Client:
    settings = get_settings()
    headers = {"Authorization": f"Bearer {settings.hub_token}"} if settings.hub_token else {}
    return httpx.Client(base_url=settings.agent_url("file_management"), headers=headers, timeout=300)


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the `hub files` group."""
    files_app = typer.Typer(help="Files in the hub's document store (file-management agent).", no_args_is_help=True)
    app.add_typer(files_app, name="files")

    @files_app.command("list")
    def list_files(as_json: Annotated[bool, typer.Option("--json")] = False) -> None:
        """List stored files with their index status."""
        with _client() as http:
            records: list[dict[str, Any]] = http.get("/files").raise_for_status().json()
        emit({"files": records}, as_json,
             "\n".join(f"{r['id']}  {r['index_status']:<8}  {r['size']:>10}  {r['name']}" for r in records))

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
