"""What the RAG agent's reason for not indexing a document means to its person.

The RAG agent answers each document with a status and, when it did not index it, a reason in English written for
the log (`ai_llm/internal_rag_agent/indexing_service.py`; some quote an exception). A record shows the person a
message from the catalog instead (`files.index_*`, in the hub's language), chosen here; and a reason that says the
agent's own machinery failed, not the document (its embedding server or its database away, an unexpected error),
is one that passes: the file is tried again, like a file whose agent could not be reached.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Reasons that say nothing about the document: the embedding server or the database was away, or a bug.
_PASSING = re.compile(r"^(embedding failed|saving failed|an unexpected error)", re.IGNORECASE)
#: The document's own problems, first match wins: (pattern over the reason, catalog key).
_DOCUMENT = (
    (re.compile(r"password", re.IGNORECASE), "files.index_password"),
    (re.compile(r"text recognition \(OCR\) is not|OCR\) is not available", re.IGNORECASE),
     "files.index_ocr_unavailable"),
    (re.compile(r"over the .*limit|too large", re.IGNORECASE), "files.index_too_large"),
    (re.compile(r"no (extractable |main )?text|contains no text|read nothing|no pages", re.IGNORECASE),
     "files.index_no_text"),
    (re.compile(r"damaged|corrupt|not a valid|neither UTF-8|cannot be rendered|could not be read", re.IGNORECASE),
     "files.index_damaged"),
)
_SAME_CONTENT = re.compile(r"same content", re.IGNORECASE)


@dataclass(frozen=True)
class Reason:
    """A reason as the file service acts on it: `passing` (try again) or not, and the catalog key to show."""

    passing: bool
    key: str


def index_error_reason(reason: str | None) -> Reason:
    """The meaning of the RAG agent's `error` result with `reason`."""
    text = reason or ""
    if _PASSING.search(text):
        return Reason(True, "files.index_waiting")
    for pattern, key in _DOCUMENT:
        if pattern.search(text):
            return Reason(False, key)
    return Reason(False, "files.index_unreadable")


def skipped_reason_key(reason: str | None) -> str:
    """The catalog key of the RAG agent's `skipped` result with `reason`."""
    return "files.index_same_content" if _SAME_CONTENT.search(reason or "") else "files.index_skipped"
