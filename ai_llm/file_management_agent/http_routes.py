"""HTTP routes of the file-management agent, beside its A2A endpoint (same bearer-token check).

`POST /files?name=` streams the raw body into the store, `GET /files[/{id}]` lists records,
`GET /files/{id}/content[?format=docx]` serves the bytes (of the record, or of its alternate format) with HTTP
range support, `PUT /files/{id}/formats/{format}` stores the raw body as the record's alternate format,
`PATCH`/`DELETE /files/{id}` rename (`{"name"}`), re-share (`{"visibility"}`) and delete (every format),
`POST /files/{id}/index` adds a file kept out of the index, or one whose indexing failed, to the documents (409
when it is indexed or being indexed), `POST /files/{id}/reindex` indexes again whatever its state. The backend
proxies the UI's `/api/files` here.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from ai_llm.common.identity import HEADER, current_viewer, viewer_from
from ai_llm.file_management_agent.document_store import StoreError
from ai_llm.file_management_agent.file_service import FileError, FileService

#: The audience of the identities this agent accepts (the name the backend and orchestrator sign for).
AUDIENCE = "file_management"


def _error(status: int, code: str, detail: str, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": code, "detail": detail}, status_code=status, headers=headers)


def content_disposition(name: str, disposition: str = "attachment") -> str:
    """`attachment; filename="ascii"; filename*=UTF-8''…` (RFC 6266 / RFC 5987) for any Unicode name."""
    folded = unicodedata.normalize("NFKD", name).encode("ascii", "ignore").decode("ascii")
    fallback = re.sub(r'[^A-Za-z0-9._ ()-]+', "_", folded).strip("_ ") or "download"
    if fallback.startswith(".") or fallback == "_":
        fallback = "download" + fallback
    return f"{disposition}; filename=\"{fallback}\"; filename*=UTF-8''{quote(name, safe='')}"


class Unsatisfiable(Exception):
    """The requested range lies outside the file."""


def parse_range(header: str | None, size: int) -> tuple[int, int] | None:
    """The single byte range `(first, last)` asked for, None to serve the whole file.

    Syntactically invalid or multi-range requests are ignored (RFC 9110 lets a server do that); a range
    starting past the end raises `Unsatisfiable` (416).
    """
    if not header:
        return None
    match = re.fullmatch(r"\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*", header)
    if not match or (not match.group(1) and not match.group(2)):
        return None
    first_s, last_s = match.groups()
    if not first_s:  # suffix range: the last N bytes
        length = int(last_s)
        if length == 0 or size == 0:
            raise Unsatisfiable()
        return max(0, size - length), size - 1
    first = int(first_s)
    last = int(last_s) if last_s else size - 1
    if first >= size:
        raise Unsatisfiable()
    if last < first:
        return None
    return first, min(last, size - 1)


def file_routes(service_of: Callable[[], FileService], hub_token: str | None = None) -> list[Route]:
    """The routes, reading the service lazily (it is created in the app's lifespan). Each request acts for
    the person its `X-Hub-Identity` header names (signed by the backend for this agent), else the service."""

    def guard(handler: Callable[[Request], Any]) -> Callable[[Request], Any]:
        async def wrapped(request: Request) -> Response:
            reset = current_viewer.set(viewer_from(hub_token, AUDIENCE, request.headers.get(HEADER)))
            try:
                return await handler(request)  # type: ignore[no-any-return]
            except FileError as exc:
                return _error(exc.status_code, exc.code, exc.message)
            finally:
                current_viewer.reset(reset)
        return wrapped

    async def upload(request: Request) -> Response:
        name = request.query_params.get("name")
        if not name:
            return _error(400, "missing_name", "give the original file name as ?name=")
        declared = request.headers.get("content-length")
        result = await service_of().upload(name, request.stream(),
                                           int(declared) if declared and declared.isdigit() else None,
                                           request.query_params.get("source_kind") or "upload",
                                           request.query_params.get("visibility"))
        return JSONResponse(result.to_dict(), status_code=201,
                            headers={"Location": f"/files/{result.record.id}"})

    async def list_files(request: Request) -> Response:
        return JSONResponse([r.to_dict() for r in await service_of().all()])

    async def get_file(request: Request) -> Response:
        return JSONResponse((await service_of().get(request.path_params["file_id"])).to_dict())

    async def content(request: Request) -> Response:
        service = service_of()
        record = await service.stored_object(request.path_params["file_id"], request.query_params.get("format"))
        disposition = "inline" if request.query_params.get("disposition") == "inline" else "attachment"
        headers = {"Accept-Ranges": "bytes", "ETag": f'"{record.sha256}"',
                   "Content-Disposition": content_disposition(record.name, disposition),
                   "X-Content-Type-Options": "nosniff"}
        media_type = record.content_type + ("; charset=utf-8" if record.content_type.startswith("text/") else "")
        if_range = request.headers.get("if-range")
        wanted = request.headers.get("range") if not if_range or if_range == headers["ETag"] else None
        try:
            window = parse_range(wanted, record.size)
        except Unsatisfiable:
            return _error(416, "range_not_satisfiable", f"the file has {record.size} bytes",
                          headers={"Content-Range": f"bytes */{record.size}"})
        first, last = window if window else (0, record.size - 1)
        stream = service.store.read(record.stored_name, first, last)
        try:
            head = await stream.__anext__()  # open now, so a store failure is an error response
        except StopAsyncIteration:
            head = b""
        except StoreError as exc:
            return _error(500, "store_error", str(exc))

        async def body() -> AsyncIterator[bytes]:
            if head:
                yield head
            async for chunk in stream:
                yield chunk

        headers["Content-Length"] = str(last - first + 1)
        if window:
            headers["Content-Range"] = f"bytes {first}-{last}/{record.size}"
        return StreamingResponse(body(), status_code=206 if window else 200, media_type=media_type,
                                 headers=headers)

    async def patch(request: Request) -> Response:
        try:
            payload = json.loads(await request.body() or b"{}")
        except json.JSONDecodeError:
            return _error(400, "bad_json", "body must be JSON like {\"name\": \"new name.pdf\"}")
        if isinstance(payload, dict) and isinstance(payload.get("visibility"), str) and "name" not in payload:
            record = await service_of().set_visibility(request.path_params["file_id"], payload["visibility"])
            return JSONResponse(record.to_dict())
        if not isinstance(payload, dict) or not isinstance(payload.get("name"), str):
            return _error(400, "missing_name", "body must be JSON like {\"name\": \"new name.pdf\"}")
        record = await service_of().rename(request.path_params["file_id"], payload["name"])
        return JSONResponse(record.to_dict())

    async def delete(request: Request) -> Response:
        return JSONResponse(await service_of().delete(request.path_params["file_id"]))

    async def reindex(request: Request) -> Response:
        record = await service_of().reindex(request.path_params["file_id"])
        return JSONResponse(record.to_dict(), status_code=202)

    async def add_to_documents(request: Request) -> Response:
        record = await service_of().add_to_documents(request.path_params["file_id"])
        return JSONResponse(record.to_dict(), status_code=202)

    async def add_format(request: Request) -> Response:
        declared = request.headers.get("content-length")
        record = await service_of().add_format(request.path_params["file_id"], request.path_params["fmt"],
                                               request.stream(),
                                               int(declared) if declared and declared.isdigit() else None)
        return JSONResponse(record.to_dict(), status_code=201)

    return [
        Route("/files", guard(upload), methods=["POST"]),
        Route("/files", guard(list_files), methods=["GET"]),
        Route("/files/{file_id}", guard(get_file), methods=["GET"]),
        Route("/files/{file_id}", guard(patch), methods=["PATCH"]),
        Route("/files/{file_id}", guard(delete), methods=["DELETE"]),
        Route("/files/{file_id}/content", guard(content), methods=["GET"]),
        Route("/files/{file_id}/reindex", guard(reindex), methods=["POST"]),
        Route("/files/{file_id}/index", guard(add_to_documents), methods=["POST"]),
        Route("/files/{file_id}/formats/{fmt}", guard(add_format), methods=["PUT"]),
    ]
