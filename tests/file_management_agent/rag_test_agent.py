"""A small real A2A agent speaking the internal-RAG indexing skills of docs/contracts.md.

Used by the file-agent tests as a separate process before (and beside) the real RAG agent: it keeps
documents in memory, extracts text with pypdf (PDF) or UTF-8 (text), and answers
`index_document` / `delete_document` / `update_document` / `search_documents` exactly as the contract
says, so the file agent's A2A client and its consistency rules are exercised over real HTTP.

Outages on cue: a document containing `HANG-ONCE` is held without an answer the first time it arrives (a
marker file under `$TEST_RAG_MARK_DIR` says it arrived; the test then kills the process), one containing
`FAIL-ALWAYS` fails the task every time, and one containing `SAVE-FAILS-ONCE` is answered the first time with the
error the real agent gives while its database restarts ("saving failed: …").

Run: `python -m tests.file_management_agent.rag_test_agent --port N`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import hashlib
import io
import os
from typing import Any

import anyio

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import (
    AgentRequest,
    HubAgentExecutor,
    Progress,
    base_url,
    bind_socket,
    build_agent_app,
    make_card,
    serve_app,
)

CHUNK = 500
DOCS: dict[str, dict[str, Any]] = {}


def _text(raw: bytes, name: str) -> str:
    if raw.startswith(b"%PDF"):
        from pypdf import PdfReader

        return "\n".join(f"[페이지 {i}] {p.extract_text() or ''}" for i, p in
                         enumerate(PdfReader(io.BytesIO(raw)).pages, start=1) if (p.extract_text() or "").strip())
    return raw.decode("utf-8", errors="replace")


async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
    data = request.data
    skill = data.get("skill") or "search_documents"
    if skill == "index_document":
        results = []
        for doc in data.get("documents") or []:
            raw = (await anyio.Path(doc["path"]).read_bytes() if doc.get("path")
                   else base64.b64decode(doc["content_b64"]))
            digest = hashlib.sha256(raw).hexdigest()
            ref = doc["storage_ref"]
            if b"FAIL-ALWAYS" in raw:
                raise RuntimeError("the test agent fails this document")
            mark = anyio.Path(os.environ.get("TEST_RAG_MARK_DIR") or ".") / f"{digest}.received"
            if b"HANG-ONCE" in raw and not await mark.exists():
                await mark.write_text(ref)
                await asyncio.sleep(3600)  # the test kills the process meanwhile
            failed = anyio.Path(os.environ.get("TEST_RAG_MARK_DIR") or ".") / f"{digest}.save-failed"
            if b"SAVE-FAILS-ONCE" in raw and not await failed.exists():
                await failed.write_text(ref)  # as the real agent answers while its database restarts
                results.append({"storage_ref": ref, "file_name": doc["file_name"], "status": "error", "chunks": 0,
                                "reason": "saving failed: connection to server at 127.0.0.1 failed: refused",
                                "code": "saving_failed"})
                continue
            if ref in DOCS and DOCS[ref]["hash"] == digest:
                results.append({"storage_ref": ref, "file_name": doc["file_name"], "status": "skipped",
                                "chunks": len(DOCS[ref]["chunks"]), "reason": "same content already indexed",
                                "code": "same_content"})
                continue
            text = _text(raw, doc["file_name"]).strip()
            if not text:
                results.append({"storage_ref": ref, "file_name": doc["file_name"], "status": "error",
                                "chunks": 0, "reason": "no extractable text", "code": "no_text"})
                continue
            chunks = [text[i:i + CHUNK] for i in range(0, len(text), CHUNK)]
            DOCS[ref] = {"hash": digest, "chunks": chunks, "file_name": doc["file_name"],
                         "file_url": doc["file_url"], "file_id": doc.get("file_id"),
                         "source_kind": doc.get("source_kind")}
            await progress(f"indexed {len(chunks)} chunks", stage="saving")
            results.append({"storage_ref": ref, "file_name": doc["file_name"], "status": "success",
                            "chunks": len(chunks), "reason": None})
        return AgentReply("indexed", {"status": "ok", "results": results})
    if skill == "delete_document":
        removed = DOCS.pop(data["storage_ref"], None)
        return AgentReply("deleted", {"status": "ok", "deleted_chunks": len(removed["chunks"]) if removed else 0})
    if skill == "update_document":
        doc = DOCS.get(data["storage_ref"])
        if doc:
            doc["file_name"], doc["file_url"] = data["file_name"], data["file_url"]
        return AgentReply("updated", {"status": "ok", "updated_chunks": len(doc["chunks"]) if doc else 0})
    words = [w for w in request.text.lower().split() if len(w) > 2]
    sources = [{"type": "file", "file_name": d["file_name"], "file_id": d["file_id"], "storage_ref": ref,
                "file_url": d["file_url"], "pages": [], "score": 1.0, "source_kind": d["source_kind"]}
               for ref, d in DOCS.items() if any(w in " ".join(d["chunks"]).lower() for w in words)]
    return AgentReply("found" if sources else "nothing", {"status": "ok" if sources else "no_result",
                                                         "sources": sources})


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--port", type=int, required=True)
    args = parser.parse_args()
    sock = bind_socket("127.0.0.1", args.port)
    url = base_url("127.0.0.1", sock.getsockname()[1])
    card = make_card("internal_rag", "test RAG agent", url,
                     [{"id": s} for s in ("index_document", "delete_document", "update_document",
                                          "search_documents")])
    asyncio.run(serve_app(build_agent_app(card, HubAgentExecutor("internal_rag", handle)), sock))


if __name__ == "__main__":
    main()
