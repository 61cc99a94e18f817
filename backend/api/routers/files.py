"""Files: a proxy to the file-management agent's HTTP routes (docs/contracts.md).

Uploads are streamed through (multipart field `file` → raw body of `POST <file agent>/files?name=`) with the
size limit counted while the bytes pass; downloads pass content type, `Content-Disposition` and range
requests through, so a PDF viewer can open `…/download#page=N`.
"""

from __future__ import annotations

import logging
import re
from typing import Annotated, Any, Literal

import httpx
from fastapi import APIRouter, HTTPException, Path, Query, Request, Response
from fastapi.responses import JSONResponse, StreamingResponse
from pydantic import BaseModel, Field
from starlette.background import BackgroundTask

from ai_llm.common.messages import catalog, message
from ai_llm.common.settings import Settings
from backend.accounts import Principal
from backend.api.deps import DbDep, FileAgentDep, SettingsDep
from backend.api.routers.auth import PrincipalDep, identity_headers, reader_language
from backend.multipart_stream import (
    MultipartFileStream,
    UploadError,
    UploadIncomplete,
    UploadTooLarge,
    multipart_boundary,
)

log = logging.getLogger(__name__)

router = APIRouter(prefix="/api/files", tags=["files"])
#: The audience of the identities sent to the file-management agent.
FILE_AGENT = "file_management"

FILE_ID_PATTERN = r"^[A-Za-z0-9_-]{1,128}$"
FileId = Annotated[str, Path(pattern=FILE_ID_PATTERN, description="file id from the file list")]
#: Multipart framing around the file (boundaries, part headers) may add this much to Content-Length.
MULTIPART_OVERHEAD = 64 * 1024
#: An alternate format of a file record, as the file agent names it (`docx`).
FORMAT = re.compile(r"^[a-z0-9]{1,10}$")
#: A refusal's stable name as the file agent sends it (`{"error": …}`), relayed in `X-Hub-Error`.
ERROR_CODE = re.compile(r"[a-z_]{1,40}")
TOO_LARGE = {"X-Hub-Error": "too_large"}
PASSED_DOWNLOAD_HEADERS = ("content-type", "content-disposition", "content-length", "content-range",
                           "accept-ranges", "etag", "last-modified", "cache-control", "content-encoding")
PASSED_RANGE_HEADERS = ("range", "if-range", "if-none-match", "if-modified-since")

UPLOAD_BODY = {"requestBody": {"required": True, "content": {"multipart/form-data": {"schema": {
    "type": "object", "required": ["file"],
    "properties": {"file": {"type": "string", "format": "binary"}}}}}}}


def public_record(record: dict[str, Any], language: str | None = None) -> dict[str, Any]:
    """A file agent record with its download links (its own, and each alternate format's) pointing at this
    backend, and its index message (`index_error`) said in the reader's `language` when its catalog key
    (`index_reason`) is known (the file agent stores it in the hub's language)."""
    out = dict(record)
    key = out.get("index_reason")
    if language and out.get("index_error") and isinstance(key, str) and key in catalog():
        out["index_error"] = message(key, language, n=out.get("index_attempts") or 0)
    if out.get("id"):
        out["download_url"] = f"/api/files/{out['id']}/download"
        out["alternates"] = [{**a, "download_url": f"/api/files/{out['id']}/download?format={a['format']}"}
                             for a in out.get("alternates") or []
                             if isinstance(a, dict) and isinstance(a.get("format"), str)
                             and FORMAT.fullmatch(a["format"])]
    return out


def _unreachable(client: httpx.AsyncClient, exc: Exception) -> HTTPException:
    log.warning("file agent call failed: %s", exc)
    return HTTPException(503, f"the file-management agent is unreachable at {client.base_url} ({type(exc).__name__})")


def _detail(response: httpx.Response) -> str:
    try:
        body = response.json()
    except ValueError:
        return response.text[:300] or response.reason_phrase
    if isinstance(body, dict):
        return str(body.get("detail") or body.get("error") or body)
    return str(body)


def _error_code(response: httpx.Response) -> str | None:
    """The file agent's stable name of a refusal (`{"error": "empty_file", …}`), if it gave one."""
    try:
        body = response.json()
    except ValueError:
        return None
    code = body.get("error") if isinstance(body, dict) else None
    return code if isinstance(code, str) and ERROR_CODE.fullmatch(code) else None


def _relay_error(response: httpx.Response) -> HTTPException:
    """An upstream error as ours: client errors pass through, server errors become 502. Its stable name
    travels in `X-Hub-Error` (`empty_file`, `unsupported_type`, …), which the UI says in the reader's language."""
    status = response.status_code if response.status_code < 500 else 502
    code = _error_code(response)
    return HTTPException(status, _detail(response), headers={"X-Hub-Error": code} if code else None)


@router.post("", status_code=201, openapi_extra=UPLOAD_BODY,
             responses={413: {"description": "file too large"}, 422: {"description": "no `file` field"}})
async def upload_file(request: Request, files: FileAgentDep, settings: SettingsDep,
                      principal: PrincipalDep) -> JSONResponse:
    """Upload one file (multipart field `file`; a `visibility` field before it — `private` (default for a
    person), `team:<name>` or `everyone` — or `?visibility=`); indexing starts in the background."""
    limit = settings.max_upload_bytes
    too_large = f"the file is larger than the {settings.max_upload_mb:g} MB upload limit (MAX_UPLOAD_MB)"
    try:
        boundary = multipart_boundary(request.headers.get("content-type"))
    except UploadError as exc:
        raise HTTPException(422, str(exc)) from exc
    declared = request.headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > limit + MULTIPART_OVERHEAD:
        raise HTTPException(413, too_large, headers=TOO_LARGE)
    upload = MultipartFileStream(request.stream().__aiter__(), boundary, limit)
    try:
        part = await upload.open()
    except UploadError as exc:
        raise HTTPException(422, str(exc)) from exc
    name = part.filename.replace("\\", "/").rsplit("/", 1)[-1].strip()
    if not name:
        raise HTTPException(422, "the uploaded file has no name")
    if any(ord(c) < 32 or ord(c) == 127 for c in name):
        raise HTTPException(422, "the file name contains control characters")
    try:
        visibility = upload.fields.get("visibility") or request.query_params.get("visibility")
        response = await files.post("/files", params={"name": name, **({"visibility": visibility} if visibility else {})},
                                    content=upload.chunks(),
                                    headers={"Content-Type": part.content_type,
                                             **identity_headers(settings, principal, FILE_AGENT)})
    except UploadTooLarge as exc:
        raise HTTPException(413, too_large, headers=TOO_LARGE) from exc
    except UploadIncomplete as exc:
        raise HTTPException(400, str(exc)) from exc
    except UploadError as exc:
        raise HTTPException(422, str(exc)) from exc
    except httpx.HTTPError as exc:
        raise _unreachable(files, exc) from exc
    if response.status_code == 413:
        raise HTTPException(413, too_large, headers=TOO_LARGE)
    if response.status_code >= 400:
        raise _relay_error(response)
    return JSONResponse(public_record(response.json(), reader_language(request, settings.ui_language)),
                        status_code=201)


@router.get("")
async def list_files(request: Request, files: FileAgentDep, settings: SettingsDep,
                     principal: PrincipalDep) -> list[dict[str, Any]]:
    """Every stored file with its index status (`indexing`, `indexed`, `skipped`, `error`)."""
    try:
        response = await files.get("/files", headers=identity_headers(settings, principal, FILE_AGENT))
    except httpx.HTTPError as exc:
        raise _unreachable(files, exc) from exc
    if response.status_code >= 400:
        raise _relay_error(response)
    body = response.json()
    records = body.get("files", []) if isinstance(body, dict) else body
    language = reader_language(request, settings.ui_language)
    return [public_record(r, language) for r in records if isinstance(r, dict)]


async def _record_call(request: Request, files: httpx.AsyncClient, method: str, path: str, settings: Settings,
                       principal: Principal, **kwargs: Any) -> dict[str, Any]:
    """One call to the file agent as this person that answers a file record: the record, or the agent's refusal
    relayed (404, 403, 409 …), or 502 when it cannot be reached."""
    try:
        response = await files.request(method, path, headers=identity_headers(settings, principal, FILE_AGENT),
                                       **kwargs)
    except httpx.HTTPError as exc:
        raise _unreachable(files, exc) from exc
    if response.status_code >= 400:
        raise _relay_error(response)
    return public_record(response.json(), reader_language(request, settings.ui_language))


@router.get("/{file_id}", responses={404: {"description": "unknown file"}})
async def get_file(request: Request, file_id: FileId, files: FileAgentDep, settings: SettingsDep,
                   principal: PrincipalDep) -> dict[str, Any]:
    """One file record (404 for a file this person may not see)."""
    return await _record_call(request, files, "GET", f"/files/{file_id}", settings, principal)


@router.get("/{file_id}/passages", responses={404: {"description": "unknown file"}})
async def file_passages(request: Request, file_id: FileId, files: FileAgentDep, db: DbDep, settings: SettingsDep,
                        principal: PrincipalDep) -> dict[str, Any]:
    """The file's indexed text in reading order, each passage with its location: what the chat page's viewer
    shows for documents without pages (slides, sheets, HWP, Word, HTML) and beside a scan's image."""
    record = await get_file(request, file_id, files, settings, principal)  # 404 unless this person may see the file
    rows = await db.fetch("SELECT content, pages, location FROM document_chunks WHERE file_id = %s "
                          "ORDER BY chunk_index", (file_id,))
    passages = [{"text": r["content"], "location": r["location"] or
                 ({"kind": "page", "page": r["pages"][0]} if r["pages"] else None)} for r in rows]
    return {"file_id": file_id, "file_name": record.get("name"), "content_type": record.get("content_type"),
            "passages": passages}


class Sharing(BaseModel):
    visibility: str = Field(min_length=1, max_length=80, description="private, team:<name> or everyone")


@router.patch("/{file_id}", responses={403: {"description": "not the owner"}, 404: {"description": "unknown file"}})
async def share_file(request: Request, file_id: FileId, body: Sharing, files: FileAgentDep, settings: SettingsDep,
                     principal: PrincipalDep) -> dict[str, Any]:
    """Change who may see a file (its owner or an admin): `{"visibility": "private"|"team:<name>"|"everyone"}`."""
    return await _record_call(request, files, "PATCH", f"/files/{file_id}", settings, principal,
                              json={"visibility": body.visibility})


@router.delete("/{file_id}", status_code=204, responses={404: {"description": "unknown file"}})
async def delete_file(file_id: FileId, files: FileAgentDep, settings: SettingsDep,
                      principal: PrincipalDep) -> Response:
    """Delete a file and its indexed chunks."""
    try:
        response = await files.delete(f"/files/{file_id}", headers=identity_headers(settings, principal, FILE_AGENT))
    except httpx.HTTPError as exc:
        raise _unreachable(files, exc) from exc
    if response.status_code >= 400:
        raise _relay_error(response)
    return Response(status_code=204)


@router.post("/{file_id}/index", status_code=202, responses={
    403: {"description": "not the owner"}, 404: {"description": "unknown file"},
    409: {"description": "already indexed, or being indexed"}})
async def index_file(request: Request, file_id: FileId, files: FileAgentDep, settings: SettingsDep,
                     principal: PrincipalDep) -> dict[str, Any]:
    """Add a file to the documents that answer questions (its owner or an admin): a report, which is kept out of
    the index until its person adds it, or a file whose indexing failed ("다시 색인"). Indexing starts in the
    background; the record says `indexing`. 409 (`X-Hub-Error: already_indexed` or `indexing`) when it is in the
    documents already or being indexed."""
    return await _record_call(request, files, "POST", f"/files/{file_id}/index", settings, principal)


@router.get("/{file_id}/download", response_class=StreamingResponse, responses={
    200: {"description": "the file", "content": {"application/octet-stream": {}}},
    206: {"description": "the requested byte range"}, 404: {"description": "unknown file, or no such format"},
    416: {"description": "range not satisfiable"}})
async def download_file(file_id: FileId, request: Request, files: FileAgentDep, settings: SettingsDep,
                        principal: PrincipalDep,
                        disposition: Literal["inline", "attachment"] = "inline",
                        format: Annotated[str | None, Query(pattern=FORMAT.pattern, description=(
                            "another format the record holds (`docx` of a report); its own bytes when absent"))]
                        = None) -> Response:
    """The file's bytes; honours `Range` so a PDF viewer can open `#page=N`.

    Served `inline` by default so the browser's viewer opens the PDF at the cited page;
    `?disposition=attachment` asks the browser to save it instead. `?format=docx` serves the record's alternate
    format (a report's DOCX), with the same permissions as the record.
    """
    headers = {k: v for k in PASSED_RANGE_HEADERS if (v := request.headers.get(k)) is not None}
    headers.update(identity_headers(settings, principal, FILE_AGENT))
    params = {"disposition": disposition, **({"format": format} if format else {})}
    upstream = files.build_request("GET", f"/files/{file_id}/content", headers=headers, params=params)
    try:
        response = await files.send(upstream, stream=True)
    except httpx.HTTPError as exc:
        raise _unreachable(files, exc) from exc
    if response.status_code >= 400 and response.status_code != 416:
        await response.aread()
        await response.aclose()
        raise _relay_error(response)
    passed = {k: v for k in PASSED_DOWNLOAD_HEADERS if (v := response.headers.get(k)) is not None}
    return StreamingResponse(response.aiter_raw(), status_code=response.status_code, headers=passed,
                             background=BackgroundTask(response.aclose))
