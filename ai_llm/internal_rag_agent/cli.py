"""`hub index` and `hub reindex` (`hub eval rag` and `hub bench rag` live in `ai_llm.evals.rag`).

`hub index` goes through the file store like an upload from the UI: each file is stored by the file-management
agent (listed, downloadable and deletable in the file panel), which has the RAG agent index it; the command
waits for each file's index status. `--local` indexes in this process instead (no hub running; the files are
then only in the index, under their path).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import Settings, get_settings


def _documents(paths: list[Path]) -> list[dict[str, Any]]:
    docs: list[dict[str, Any]] = []
    for path in paths:
        files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
        for f in files:
            resolved = f.resolve()
            # No file URL: a server path is never shown as a source (the file store gives a download link).
            docs.append({"storage_ref": str(resolved), "file_name": f.name, "path": str(resolved)})
    return docs


async def _index_local(settings: Settings, docs: list[dict[str, Any]]) -> dict[str, Any]:
    from ai_llm.common.a2a.server import AgentRequest
    from ai_llm.common.runtime import HubDeps
    from ai_llm.internal_rag_agent.agent import RagAgent
    from ai_llm.internal_rag_agent.vector_store import make_vector_store

    deps = HubDeps.from_settings(settings)
    try:
        db = None if settings.supabase_url else await deps.open_db()
        agent = RagAgent(make_vector_store(settings, db), deps.embeddings, deps.llm, settings)

        async def show(message: str, **_: Any) -> None:
            typer.echo(message, err=True)

        reply = await agent.run(AgentRequest(text="index", data={"skill": "index_document", "documents": docs}),
                                show)
        return {"text": reply.text, "data": reply.data}
    finally:
        await deps.close()


def _index_through_file_store(settings: Settings, docs: list[dict[str, Any]],
                              timeout_s: float = 900.0) -> dict[str, Any]:
    """Upload each file to the file-management agent and wait until the RAG agent has indexed it."""
    import time

    import httpx

    headers = {"Authorization": f"Bearer {settings.hub_token}"} if settings.hub_token else {}
    results: list[dict[str, Any]] = []
    waiting: dict[str, dict[str, Any]] = {}
    with httpx.Client(base_url=settings.agent_url("file_management"), headers=headers, timeout=300) as http:
        for doc in docs:
            with open(doc["path"], "rb") as f:
                response = http.post("/files", params={"name": doc["file_name"]}, content=f)
            body = response.json() if response.headers.get("content-type", "").startswith("application/json") \
                else {}
            if response.status_code >= 400:
                results.append({"file_name": doc["file_name"], "status": "error",
                                "reason": body.get("detail") or response.text[:200]})
                continue
            typer.echo(f"{doc['file_name']}: stored as {body['name']} ({body['id']}), indexing…", err=True)
            waiting[body["id"]] = {"file_name": doc["file_name"], "file_id": body["id"], "stored_as": body["name"]}
        deadline = time.monotonic() + timeout_s
        while waiting and time.monotonic() < deadline:
            records = {r["id"]: r for r in http.get("/files").raise_for_status().json()}
            for file_id in list(waiting):
                record = records.get(file_id)
                if record is None or record["index_status"] == "indexing":
                    continue
                entry = waiting.pop(file_id)
                status = {"indexed": "success", "skipped": "skipped"}.get(record["index_status"], "error")
                results.append({**entry, "status": status, "chunks": record.get("chunks", 0),
                                "reason": record.get("index_error")})
            if waiting:
                time.sleep(0.5)
    results += [{**entry, "status": "error", "reason": "still indexing after the wait; see `hub files list`"}
                for entry in waiting.values()]
    counts = {s: sum(1 for r in results if r["status"] == s) for s in ("success", "skipped", "error")}
    lines = [f"indexed {counts['success']}, skipped {counts['skipped']}, failed {counts['error']}"]
    lines += [f"- {r['file_name']}: {r['status']}" + (f" ({r['reason']})" if r.get("reason") else "")
              for r in results]
    return {"text": "\n".join(lines), "data": {"status": "ok" if counts["error"] < len(results) else "error",
                                               "results": results}}


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub index` and `hub reindex` to the `hub` CLI."""
    @app.command("index")
    def index(
        paths: Annotated[list[Path], typer.Argument(help="files or folders to index")],
        local: Annotated[bool, typer.Option("--local", help="index in this process instead of through the "
                                                            "running hub's file store")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    ) -> None:
        """Store and index documents (PDF, txt, md, docx) through the hub's file store (or in-process: --local)."""
        settings = get_settings()
        missing = [str(p) for p in paths if not p.exists()]
        if missing:
            typer.echo(f"not found: {', '.join(missing)}", err=True)
            raise typer.Exit(2)
        docs = _documents(paths)
        if local:
            result = asyncio.run(_index_local(settings, docs))
        else:
            import httpx

            try:
                result = _index_through_file_store(settings, docs)
            except httpx.HTTPError as exc:
                typer.echo(f"error: the file store at {settings.agent_url('file_management')} did not answer "
                           f"({exc}); start the hub with `hub up`, or use --local", err=True)
                raise typer.Exit(1) from exc
        emit(result["data"], as_json, result["text"])
        results = result["data"].get("results") or []
        if results and all(r.get("status") == "error" for r in results):
            raise typer.Exit(1)

    @app.command("reindex")
    def reindex(
        as_json: Annotated[bool, typer.Option("--json", help="print the result as JSON")] = False,
    ) -> None:
        """Re-embed every stored chunk with the configured embedding model (after changing the model)."""
        from ai_llm.internal_rag_agent.reindex import reindex_all

        settings = get_settings()
        if settings.supabase_url:
            typer.echo("reindex runs against Postgres (DATABASE_URL or the embedded one); for Supabase run it "
                       "with DATABASE_URL set to the project's connection string.", err=True)
            raise typer.Exit(2)
        result = asyncio.run(reindex_all(settings, progress=lambda m: typer.echo(m, err=True)))
        emit(result, as_json, f"re-embedded {result['chunks']} chunks with {result['embedding_model']} "
                              f"({result['dimension']} dims)")
