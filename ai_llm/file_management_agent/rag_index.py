"""The RAG agent's index, reached over A2A (`index_document`, `delete_document`, `update_document`)."""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from ai_llm.common.a2a.client import AgentUnavailable, RemoteAgent, RemoteAgentError


class IndexUnavailable(RuntimeError):
    """The RAG agent could not be reached or failed the call.

    `transient` is true when the failure says nothing about the document: the agent was not reachable, dropped
    the connection, or failed the task (a restart, its database away); the call is worth repeating once the
    agent answers again.
    """

    def __init__(self, message: str, transient: bool = False) -> None:
        super().__init__(message)
        self.transient = transient


@dataclass
class IndexResult:
    """Outcome of indexing one document: `success`, `skipped` or `error` (with the reason for the log, and its
    stable `code`: `index_reasons`)."""

    status: str
    chunks: int = 0
    reason: str | None = None
    code: str | None = None


class DocumentIndex(Protocol):
    """The index the file service keeps in step with the store (`RagIndex`, or a stand-in in tests)."""

    async def index(self, *, storage_ref: str, file_name: str, file_url: str, file_id: str,
                    path: Path | None = None, content: bytes | None = None,
                    source_kind: str = "upload", owner_id: str | None = None,
                    visibility: str = "everyone") -> IndexResult:
        """Index one document by `path` or by its bytes."""
        ...

    async def delete(self, storage_ref: str) -> int:
        """Remove every chunk of `storage_ref`; returns how many were deleted."""
        ...

    async def update(self, storage_ref: str, file_name: str, file_url: str, visibility: str | None = None) -> int:
        """Rewrite the file name/URL (and, given, the visibility) of `storage_ref`'s chunks."""
        ...


class RagIndex:
    """A2A client of the internal-RAG agent's indexing skills.

    Args:
        url: the RAG agent's base URL, or every replica's (`settings.agent_urls('internal_rag')`).
        token: `HUB_TOKEN`.
        timeout_s: per call (indexing a large PDF takes a while).
        eject_s: how long a replica that refused a connection is left out (`AGENT_EJECT_S`).
    """

    def __init__(self, url: str | Sequence[str], token: str | None = None, timeout_s: float = 300.0,
                 eject_s: float = 5.0) -> None:
        self.agent = RemoteAgent(url, token=token, timeout_s=timeout_s, name="internal_rag", eject_s=eject_s)

    async def _call(self, text: str, data: dict[str, Any]) -> dict[str, Any]:
        try:
            reply = await self.agent.ask(text, data=data)
        except RemoteAgentError as exc:
            raise IndexUnavailable(str(exc), transient=isinstance(exc, AgentUnavailable)) from exc
        if reply.state != "completed":
            raise IndexUnavailable(reply.text or f"internal_rag answered {reply.state}",
                                   transient=reply.state == "failed")
        return reply.data

    async def reachable(self) -> bool:
        """Whether the RAG agent answers now (its card, fetched again): asked before a failed call is repeated."""
        try:
            await self.agent.card(refresh=True)
        except Exception:  # refused, dropped, or an answer that is not a card: not back
            return False
        return True

    async def index(self, *, storage_ref: str, file_name: str, file_url: str, file_id: str,
                    path: Path | None = None, content: bytes | None = None,
                    source_kind: str = "upload", owner_id: str | None = None,
                    visibility: str = "everyone") -> IndexResult:
        """Index one document by `path` (local store) or by its bytes (`content_b64`); `source_kind`
        (`upload` or `report`) says whether it is a person's document or the hub's own report; `owner_id`
        and `visibility` say who may read its chunks."""
        document: dict[str, Any] = {"storage_ref": storage_ref, "file_name": file_name, "file_url": file_url,
                                    "file_id": file_id, "source_kind": source_kind, "owner_id": owner_id,
                                    "visibility": visibility}
        if path is not None:
            document["path"] = str(path)
        else:
            document["content_b64"] = base64.b64encode(content or b"").decode("ascii")
        data = await self._call(f"index {file_name}", {"skill": "index_document", "documents": [document]})
        results = [r for r in data.get("results") or [] if r.get("storage_ref") == storage_ref] \
            or list(data.get("results") or [])
        if not results:
            raise IndexUnavailable(f"internal_rag returned no result for {file_name}: {data}")
        result = results[0]
        return IndexResult(str(result.get("status") or "error"), int(result.get("chunks") or 0),
                           result.get("reason"), result.get("code"))

    async def delete(self, storage_ref: str) -> int:
        """Remove every chunk of `storage_ref`; returns how many were deleted."""
        data = await self._call(f"delete {storage_ref}", {"skill": "delete_document", "storage_ref": storage_ref})
        if data.get("status") == "error":
            raise IndexUnavailable(str(data.get("error") or data))
        return int(data.get("deleted_chunks") or 0)

    async def update(self, storage_ref: str, file_name: str, file_url: str, visibility: str | None = None) -> int:
        """Rewrite the file name/URL (and, given, the visibility) of `storage_ref`'s chunks."""
        data = await self._call(f"update {storage_ref}", {"skill": "update_document", "storage_ref": storage_ref,
                                                          "file_name": file_name, "file_url": file_url,
                                                          **({"visibility": visibility} if visibility else {})})
        if data.get("status") == "error":
            raise IndexUnavailable(str(data.get("error") or data))
        return int(data.get("updated_chunks") or 0)
