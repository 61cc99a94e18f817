"""What the RAG agent's reason for not indexing a document means to its person.

The RAG agent answers each document with a status and, when it did not index it, a reason in English for the log
and a stable `code` (`ai_llm/internal_rag_agent/indexing_service.py`: the document's `DocumentError.code`,
`same_content`, or the agent's own `embedding_failed` / `saving_failed` / `unexpected`). A record shows the person
a message from the catalog instead (`files.index_*`), chosen here by the code; a code that says the agent's own
machinery failed, not the document (its embedding server or its database away, an unexpected error), is one that
passes: the file is tried again, like a file whose agent could not be reached.
"""

from __future__ import annotations

from dataclasses import dataclass

#: The agent's own failures: nothing wrong with the document, so the file waits and is tried again.
PASSING_CODES = frozenset({"embedding_failed", "saving_failed", "unexpected"})
#: The document's own problems → the catalog key a person reads; any other code reads `files.index_unreadable`.
DOCUMENT_KEYS = {
    "encrypted": "files.index_password",
    "ocr_unavailable": "files.index_ocr_unavailable",
    "too_large": "files.index_too_large",
    "no_text": "files.index_no_text",
    "empty": "files.index_no_text",
    "corrupt": "files.index_damaged",
}


@dataclass(frozen=True)
class Reason:
    """A reason as the file service acts on it: `passing` (try again) or not, and the catalog key to show."""

    passing: bool
    key: str


def index_error_reason(code: str | None) -> Reason:
    """The meaning of the RAG agent's `error` result with `code`."""
    if code in PASSING_CODES:
        return Reason(True, "files.index_waiting")
    return Reason(False, DOCUMENT_KEYS.get(code or "", "files.index_unreadable"))


def skipped_reason_key(code: str | None) -> str:
    """The catalog key of the RAG agent's `skipped` result with `code`."""
    return "files.index_same_content" if code == "same_content" else "files.index_skipped"
