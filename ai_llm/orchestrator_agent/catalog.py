"""What the planner knows about the indexed documents: the RAG agent's catalog and the match of a message.

`catalog_match` weighs the message's analysed terms that name or describe a document (its file-name words,
title terms and key terms) by how rare they are in requests generally (IDF over the intent model's training
messages): "CDC outpatient guide" or "RAG-Sequence" point at a document, "what" and "알려줘" do not.
`catalog_summary` is the bounded text the LLM planner gets.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ai_llm.common.text.analysis import analyze

#: Characters of the catalog summary in the planning prompt.
SUMMARY_CHARS = 1500
#: Field boosts: a file-name or title word names the document; a key term only describes it.
NAME_BOOST, TITLE_BOOST, KEY_BOOST = 1.0, 0.8, 0.7

_SEPARATORS = re.compile(r"[_\-.]+")


def name_terms(file_name: str) -> set[str]:
    """The analysed words of a file name (`cdc_outpatient_guide.pdf` → cdc, outpati, guid)."""
    stem = file_name.rsplit(".", 1)[0] if "." in file_name else file_name
    return {t for t in analyze(_SEPARATORS.sub(" ", stem)) if len(t) > 1 and t != "pdf"}


@dataclass
class DocumentTerms:
    """One catalog document's terms by field."""

    file_name: str
    name: set[str]
    title: set[str]
    key: set[str]


@dataclass
class CatalogMatch:
    """The best-matching document for a message and how strongly it matches."""

    score: float = 0.0
    file_name: str = ""
    terms: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"score": round(self.score, 3), "file_name": self.file_name, "terms": self.terms}


def document_terms(catalog: Sequence[dict[str, Any]]) -> list[DocumentTerms]:
    """Each catalog entry's term sets (computed once per catalog)."""
    out = []
    for entry in catalog:
        name = str(entry.get("file_name") or entry.get("storage_ref") or "")
        out.append(DocumentTerms(name, name_terms(name), set(analyze(str(entry.get("title") or ""))),
                                 {str(t) for t in entry.get("key_terms") or []}))
    return out


def catalog_match(terms: Sequence[str], documents: Sequence[DocumentTerms],
                  weight: Callable[[str], float]) -> CatalogMatch:
    """The document whose names, title and key terms hold the most IDF weight of the message's terms.

    The score is the matched weight (each term counted once, at its best field's boost), so a message naming
    one rare word of a document ("I2C") scores as much as several common ones.
    """
    best = CatalogMatch()
    unique = list(dict.fromkeys(t for t in terms if len(t) > 1))
    for doc in documents:
        score, matched = 0.0, []
        for term in unique:
            boost = (NAME_BOOST if term in doc.name else TITLE_BOOST if term in doc.title
                     else KEY_BOOST if term in doc.key else 0.0)
            if boost:
                score += boost * weight(term)
                matched.append(term)
        if score > best.score:
            best = CatalogMatch(score, doc.file_name, matched)
    return best


def catalog_summary(catalog: Sequence[dict[str, Any]], limit: int = SUMMARY_CHARS) -> str:
    """One line per document (file name, language, title, five key terms), cut at `limit` characters."""
    lines: list[str] = []
    used = 0
    for entry in catalog:
        line = (f"- {entry.get('file_name')} ({entry.get('language', '?')}, {entry.get('pages', '?')} p.): "
                f"{str(entry.get('title') or '')[:80]}; terms: {', '.join(list(entry.get('key_terms') or [])[:5])}")
        if used + len(line) + 1 > limit:
            lines.append(f"- … and {len(catalog) - len(lines)} more documents")
            break
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines)
