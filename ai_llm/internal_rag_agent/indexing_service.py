"""Index documents: read → parse (page markers) → split → embed in batches → one atomic write per document.

Every document yields one `IndexResult`: `success` (chunk count), `skipped` (same `storage_ref` and the same
content hash are already indexed) or `error` (a reason a person understands). A bad document never leaves
partial rows and never stops the rest of the batch.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import hashlib
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ai_llm.common.embeddings import EmbeddingError, Embeddings
from ai_llm.common.settings import Settings
from ai_llm.common.text.analysis import index_terms
from ai_llm.internal_rag_agent.answer_extraction import content_lines
from ai_llm.internal_rag_agent.document_parser import DocumentError, parse_document, split_document
from ai_llm.internal_rag_agent.vector_store import (
    StoredChunk,
    VectorStore,
    VectorStoreError,
    pack_line_vectors,
)

log = logging.getLogger(__name__)

#: `async (stage, message_args) -> None`; stages: parsing, ocr (per page read), embedding, saving.
ProgressHook = Callable[[str, dict[str, Any]], Awaitable[None]]


#: The reason of a document whose indexing an unexpected error stopped (its earlier index, if any, is kept).
UNEXPECTED_REASON = "an unexpected error stopped the indexing (the server log has the details); nothing was changed."


@dataclass
class DocumentInput:
    """A document to index, as sent in the `index_document` skill's data part.

    Exactly one of `path` (a file the agent can read) or `content_b64` (the bytes, base64) is given.
    """

    storage_ref: str = ""
    file_name: str = ""
    file_url: str | None = None
    file_id: str | None = None
    path: str | None = None
    content_b64: str | None = None
    source_kind: str | None = None  # "report" when the hub wrote the document (ranked below originals)
    owner_id: str | None = None  # the person the document belongs to (the file store's record)
    visibility: str | None = None  # private | team:<name> | everyone; absent: everyone (an operator's index)

    @classmethod
    def from_dict(cls, raw: dict[str, Any]) -> DocumentInput:
        known = {k: (str(v) if v is not None else None) for k, v in raw.items() if k in cls.__dataclass_fields__}
        doc = cls(**known)  # type: ignore[arg-type]
        if not doc.file_name:
            doc.file_name = Path(doc.path).name if doc.path else doc.storage_ref
        if not doc.storage_ref:
            doc.storage_ref = doc.file_id or (str(Path(doc.path).resolve()) if doc.path else doc.file_name)
        return doc


@dataclass
class IndexResult:
    """Outcome for one document (the `results` items of the `index_document` reply)."""

    storage_ref: str
    file_name: str
    status: str  # success | skipped | error
    chunks: int = 0
    reason: str | None = None
    elapsed_ms: float = 0.0
    notices: list[str] = field(default_factory=list)  # what was left out (rows or pages over a bound)
    ocr_pages: int = 0  # pages read by text recognition
    parse_ms: float = 0.0  # reading the format (OCR included), before embedding
    #: Why it was not indexed, as a stable name: the document's (`DocumentError.code`: `corrupt`, `encrypted`,
    #: `no_text`, `ocr_unavailable`, `too_large`, …), `same_content` (skipped), or the agent's own
    #: (`embedding_failed`, `saving_failed`, `unexpected`: nothing wrong with the document; try again later).
    code: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


async def embed_lines(embeddings: Embeddings, contents: Sequence[str]) -> list[bytes]:
    """Every chunk's `content_lines` embedded in one batched call, packed per chunk for `line_vectors`."""
    per_chunk = [content_lines(text) for text in contents]
    flat = [line for lines in per_chunk for line in lines]
    vectors = await embeddings.embed(flat) if flat else []
    packed, start = [], 0
    for lines in per_chunk:
        packed.append(pack_line_vectors(vectors[start:start + len(lines)]))
        start += len(lines)
    return packed


class IndexingService:
    """Indexes documents into a `VectorStore`.

    Args:
        store: where chunks go.
        embeddings: the embedding port (batched calls).
        settings: chunk size/overlap and the size limit (MAX_UPLOAD_MB).
    """

    def __init__(self, store: VectorStore, embeddings: Embeddings, settings: Settings) -> None:
        self.store = store
        self.embeddings = embeddings
        self.settings = settings

    def _read(self, doc: DocumentInput) -> bytes:
        limit = self.settings.max_upload_bytes
        if doc.content_b64 is not None:
            if len(doc.content_b64) > limit * 4 // 3 + 8:
                raise DocumentError(f"the file is over the {limit / 1_048_576:.0f} MB limit (MAX_UPLOAD_MB).",
                                    "too_large")
            try:
                return base64.b64decode(doc.content_b64, validate=True)
            except (binascii.Error, ValueError) as exc:
                raise DocumentError("content_b64 is not valid base64.", "invalid") from exc
        if not doc.path:
            raise DocumentError("the document has neither `path` nor `content_b64`.", "invalid")
        path = Path(doc.path)
        if not path.is_file():
            raise DocumentError(f"file not found: {doc.path}", "not_found")
        size = path.stat().st_size
        if size > limit:
            raise DocumentError(f"the file is {size / 1_048_576:.1f} MB, over the {limit / 1_048_576:.0f} MB "
                                "limit (MAX_UPLOAD_MB).", "too_large")
        return path.read_bytes()

    async def index_one(self, doc: DocumentInput, on_progress: ProgressHook | None = None) -> IndexResult:
        """Index one document; never raises for bad input (the result says why)."""
        started = time.perf_counter()

        async def emit(stage: str, **info: Any) -> None:
            if on_progress is not None:
                await on_progress(stage, {"file_name": doc.file_name, **info})

        notices: list[str] = []
        parsing = {"ocr_pages": 0, "ms": 0.0}

        def result(status: str, chunks: int = 0, reason: str | None = None, code: str | None = None) -> IndexResult:
            return IndexResult(doc.storage_ref, doc.file_name, status, chunks, reason,
                               round((time.perf_counter() - started) * 1000, 1), notices,
                               int(parsing["ocr_pages"]), round(parsing["ms"], 1), code)

        loop = asyncio.get_running_loop()

        def page_read(done: int, total: int) -> None:  # called from the parsing thread, per OCR'd page
            if on_progress is not None:
                asyncio.run_coroutine_threadsafe(emit("ocr", page=done, pages=total), loop)

        try:
            data = await asyncio.to_thread(self._read, doc)
            content_hash = hashlib.sha256(data).hexdigest()
            if await self.store.content_hash(doc.storage_ref) == content_hash:
                # Same bytes already indexed: keep them, but follow a rename/move of the file.
                await self.store.update_document(doc.storage_ref, doc.file_name, doc.file_url)
                return result("skipped", reason="the same content is already indexed", code="same_content")
            await emit("parsing")
            parse_started = time.perf_counter()
            parsed = await asyncio.to_thread(parse_document, data, doc.file_name, self.settings.max_upload_bytes,
                                             page_read)
            parsing.update(ms=(time.perf_counter() - parse_started) * 1000,
                           ocr_pages=len(parsed.page_spans) if parsed.ocr else 0)
            notices.extend(parsed.notices)
            pieces = await asyncio.to_thread(split_document, parsed, self.settings.rag_chunk_size,
                                             self.settings.rag_chunk_overlap)
            if not pieces:
                raise DocumentError("the document has no text to index.", "no_text")
            await emit("embedding", chunks=len(pieces))
            # Analysis (Kiwi for Korean) runs off the event loop beside the embedding call.
            tokens_task = asyncio.create_task(asyncio.to_thread(lambda: [index_terms(p.content) for p in pieces]))
            vectors, lines = await asyncio.gather(self.embeddings.embed([p.content for p in pieces]),
                                                  embed_lines(self.embeddings, [p.content for p in pieces]))
            tokens = await tokens_task
            rows = [StoredChunk(storage_ref=doc.storage_ref, chunk_index=p.index, content=p.content, pages=p.pages,
                                tokens=terms, embedding=v, content_hash=content_hash,
                                file_name=doc.file_name, file_id=doc.file_id, file_url=doc.file_url,
                                source_kind="report" if doc.source_kind == "report" else "upload",
                                line_vectors=packed, location=p.location, owner_id=doc.owner_id,
                                visibility=doc.visibility or "everyone")
                    for p, v, terms, packed in zip(pieces, vectors, tokens, lines, strict=True)]
            await emit("saving", chunks=len(rows))
            written = await self.store.replace_document(doc.storage_ref, rows)
            return result("success", written)
        except DocumentError as exc:
            return result("error", reason=exc.reason, code=exc.code)
        except EmbeddingError as exc:
            return result("error", reason=f"embedding failed: {exc}", code="embedding_failed")
        except VectorStoreError as exc:
            return result("error", reason=f"saving failed: {exc}", code="saving_failed")
        except Exception:  # a database error, a reader's bug: reported per document, the batch goes on
            log.exception("indexing %s failed", doc.storage_ref)
            # The person sees the reason: the exception's text stays in the server log.
            return result("error", reason=UNEXPECTED_REASON, code="unexpected")

    async def index_many(self, docs: Sequence[DocumentInput],
                         on_progress: ProgressHook | None = None) -> list[IndexResult]:
        """Index documents one after another (bounded memory); one result per document, in order."""
        return [await self.index_one(doc, on_progress) for doc in docs]

    async def delete(self, storage_ref: str) -> int:
        return await self.store.delete_document(storage_ref)

    async def update(self, storage_ref: str, file_name: str | None, file_url: str | None) -> int:
        return await self.store.update_document(storage_ref, file_name, file_url)
