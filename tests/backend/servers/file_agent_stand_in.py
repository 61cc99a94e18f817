"""A small real HTTP server implementing the file-management agent's HTTP routes (docs/contracts.md).

Used by the backend's proxy tests that must not depend on indexing (oversize uploads, range requests on
arbitrary bytes). Runs as a process: `python -m tests.backend.servers.file_agent_stand_in --port N --dir D`.
It keeps records in memory and bytes under `--dir`, checks the hub token like every hub route, and counts
the bytes of an upload as they arrive (`GET /stats` reports aborted uploads, so a test can see that the
backend stopped an oversize upload mid-stream).
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.requests import ClientDisconnect, Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from ai_llm.common.a2a.server import BearerTokenMiddleware, bind_socket, serve_app
from ai_llm.common.messages import message
from ai_llm.common.settings import get_settings


def create_app(root: Path, token: str | None) -> Starlette:
    records: dict[str, dict[str, Any]] = {}
    stats = {"aborted_uploads": 0, "completed_uploads": 0}

    def not_found(file_id: str) -> JSONResponse:
        return JSONResponse({"error": "not_found", "detail": f"no file {file_id}"}, status_code=404)

    async def upload(request: Request) -> Response:
        name = request.query_params.get("name")
        if not name:
            return JSONResponse({"error": "missing_name", "detail": "give ?name="}, status_code=400)
        file_id = str(uuid.uuid4())
        path = root / file_id
        digest = hashlib.sha256()
        size = 0
        try:
            with path.open("wb") as out:
                async for chunk in request.stream():
                    out.write(chunk)
                    digest.update(chunk)
                    size += len(chunk)
        except ClientDisconnect:
            path.unlink(missing_ok=True)
            stats["aborted_uploads"] += 1
            return Response(status_code=400)
        stats["completed_uploads"] += 1
        records[file_id] = {
            "id": file_id, "name": name, "size": size,
            "content_type": request.headers.get("content-type", "application/octet-stream"),
            "sha256": digest.hexdigest(), "uploaded_at": datetime.now(UTC).isoformat(),
            "index_status": "indexed", "index_error": None, "chunks": 1, "storage_ref": file_id,
            "download_url": f"/api/files/{file_id}/download"}
        if name.startswith("blank"):  # as the real agent records a document with no text: in the hub's language
            records[file_id].update(index_status="error", index_error=message("files.index_no_text", "ko"),
                                    index_reason="files.index_no_text", chunks=0)
        return JSONResponse(records[file_id], status_code=201)

    async def list_files(_: Request) -> Response:
        return JSONResponse(list(records.values()))

    async def get_file(request: Request) -> Response:
        record = records.get(request.path_params["file_id"])
        return JSONResponse(record) if record else not_found(request.path_params["file_id"])

    async def content(request: Request) -> Response:
        file_id = request.path_params["file_id"]
        record = records.get(file_id)
        if record is None:
            return not_found(file_id)
        disposition = "inline" if request.query_params.get("disposition") == "inline" else "attachment"
        return FileResponse(root / file_id, media_type=record["content_type"], filename=record["name"],
                            content_disposition_type=disposition)

    async def share(request: Request) -> Response:
        record = records.get(request.path_params["file_id"])
        if record is None:
            return not_found(request.path_params["file_id"])
        record["visibility"] = (await request.json())["visibility"]
        return JSONResponse(record)

    async def delete(request: Request) -> Response:
        file_id = request.path_params["file_id"]
        if records.pop(file_id, None) is None:
            return not_found(file_id)
        (root / file_id).unlink(missing_ok=True)
        return JSONResponse({"deleted": file_id})

    async def index(request: Request) -> Response:
        """Add a file to the documents: this stand-in indexes at once (the real agent's 409s are its own tests')."""
        record = records.get(request.path_params["file_id"])
        if record is None:
            return not_found(request.path_params["file_id"])
        record.update(index_status="indexed", index_error=None, index_reason=None)
        return JSONResponse(record, status_code=202)

    async def get_stats(_: Request) -> Response:
        return JSONResponse(stats)

    routes = [Route("/files", upload, methods=["POST"]), Route("/files", list_files, methods=["GET"]),
              Route("/files/{file_id}", get_file, methods=["GET"]),
              Route("/files/{file_id}", delete, methods=["DELETE"]),
              Route("/files/{file_id}", share, methods=["PATCH"]),
              Route("/files/{file_id}/content", content, methods=["GET"]),
              Route("/files/{file_id}/index", index, methods=["POST"]),
              Route("/stats", get_stats, methods=["GET"]),
              Route("/healthz", lambda _: JSONResponse({"ok": True}), methods=["GET"])]
    return Starlette(routes=routes, middleware=[Middleware(BearerTokenMiddleware, token=token,  # type: ignore[arg-type]
                                                           public_paths=["/healthz"])])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--dir", type=Path, required=True)
    args = parser.parse_args()
    settings = get_settings()
    args.dir.mkdir(parents=True, exist_ok=True)
    sock = bind_socket("127.0.0.1", args.port)
    asyncio.run(serve_app(create_app(args.dir, settings.hub_token), sock))


if __name__ == "__main__":
    main()
