"""Saves a report through the file-management agent's HTTP store as one file record: the Markdown
(`POST /files?name=&source_kind=report`), with the DOCX as its alternate format (`PUT /files/{id}/formats/docx`).
It is listed and downloadable like any uploaded file and tagged as the hub's own report; the file agent does not
index a report (it is its person's file, not a source of answers) until they add it to the documents."""

from __future__ import annotations

from typing import Any

import httpx


class ReportSaveError(RuntimeError):
    """The file agent could not store the report."""


class FileStoreClient:
    """HTTP client of the file agent's `/files` routes.

    Args:
        url: the file agent's base URL (`settings.agent_url('file_management')`).
        token: `HUB_TOKEN`.
    """

    def __init__(self, url: str, token: str | None = None, timeout_s: float = 60.0) -> None:
        self.url = url.rstrip("/")
        self.headers = {"Authorization": f"Bearer {token}"} if token else {}
        self.timeout_s = timeout_s

    async def _call(self, method: str, path: str, what: str, headers: dict[str, str] | None = None,
                    **kwargs: Any) -> dict[str, Any]:
        try:
            async with httpx.AsyncClient(headers={**self.headers, **(headers or {})}, timeout=self.timeout_s) as http:
                response = await http.request(method, f"{self.url}{path}", **kwargs)
        except httpx.HTTPError as exc:
            raise ReportSaveError(f"the file-management agent is unreachable at {self.url}: {exc}") from exc
        if response.status_code >= 400:
            try:
                detail = response.json().get("detail")
            except ValueError:
                detail = response.text[:200]
            raise ReportSaveError(f"the file store refused {what}: {detail}")
        return response.json()  # type: ignore[no-any-return]

    async def save(self, name: str, content: bytes, source_kind: str = "report",
                   headers: dict[str, str] | None = None) -> dict[str, Any]:
        """Store `content` as `name`, tagged `source_kind` (a report by default); returns the file record.
        `headers` carry the person the report is for (a signed identity): the file is theirs, private."""
        return await self._call("POST", "/files", name, headers, params={"name": name, "source_kind": source_kind},
                                content=content)

    async def add_format(self, file_id: str, fmt: str, content: bytes,
                         headers: dict[str, str] | None = None) -> dict[str, Any]:
        """Store `content` as the record's `fmt` format (`docx`); returns the record with its alternates."""
        return await self._call("PUT", f"/files/{file_id}/formats/{fmt}", fmt, headers, content=content)

    async def delete(self, file_id: str, headers: dict[str, str] | None = None) -> None:
        """Delete the record and every format of it (a report whose second format could not be stored)."""
        await self._call("DELETE", f"/files/{file_id}", file_id, headers)
