"""Turn a document's bytes into text with page markers, and split it into page-aware chunks.

PDFs are read with `pypdf`; each page's text is preceded by a `[페이지 N]` marker (1-based, as the reader sees
it). `.txt`, `.md` and `.docx` are read as a single page. Korean text is kept intact: pypdf often drops the
spaces between Korean words, so nothing downstream relies on spaces for Korean (see `ai_llm.common.text`).
"""

from __future__ import annotations

import io
import re
import unicodedata
from bisect import bisect_right
from dataclasses import dataclass, field
from pathlib import PurePath

from langchain_text_splitters import RecursiveCharacterTextSplitter

PAGE_MARKER = "[페이지 {n}]"
SUPPORTED_SUFFIXES = (".pdf", ".txt", ".md", ".markdown", ".docx")
_TRAILING_MARKER = re.compile(r"\s*\[페이지 \d+\]\s*$")
_MIN_TEXT_CHARS = 20  # below this a document (after whitespace removal) is treated as having no text


class DocumentError(ValueError):
    """A document cannot be indexed; `reason` is a sentence a person understands."""

    def __init__(self, reason: str, code: str = "invalid") -> None:
        super().__init__(reason)
        self.reason = reason
        self.code = code


@dataclass
class ParsedDocument:
    """Text of a document with page markers, and where each page's text lies in it.

    Attributes:
        text: the whole text, each page preceded by its `[페이지 N]` marker.
        page_spans: `(page, start, end)` character offsets of each page's text (markers excluded).
        page_count: pages in the source (including pages without text).
    """

    text: str
    page_spans: list[tuple[int, int, int]] = field(default_factory=list)
    page_count: int = 1

    def pages_between(self, start: int, end: int) -> list[int]:
        """Pages whose text overlaps the character range `[start, end)`."""
        starts = [s for _, s, _ in self.page_spans]
        i = max(bisect_right(starts, start) - 1, 0)
        out: list[int] = []
        for page, s, e in self.page_spans[i:]:
            if s >= end:
                break
            if e > start and s < end:
                out.append(page)
        return out


@dataclass
class Chunk:
    """One piece of a document as stored in the index."""

    index: int
    content: str
    pages: list[int]


def normalize_page_text(text: str) -> str:
    """NFKC (ligatures such as `ﬁ`), unify line ends, collapse runs of spaces, drop blank-line runs."""
    text = unicodedata.normalize("NFKC", text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\x00", "")
    text = re.sub(r"[ \t\f\v\u00a0]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


def _assemble(pages: list[str], markers: bool) -> ParsedDocument:
    parts: list[str] = []
    spans: list[tuple[int, int, int]] = []
    offset = 0
    for number, page_text in enumerate(pages, start=1):
        if not page_text:
            continue
        prefix = (PAGE_MARKER.format(n=number) + "\n") if markers else ""
        if parts:  # one newline: the splitter may join the end of a page with the start of the next
            parts.append("\n")
            offset += 1
        parts.append(prefix)
        offset += len(prefix)
        spans.append((number, offset, offset + len(page_text)))
        parts.append(page_text)
        offset += len(page_text)
    return ParsedDocument(text="".join(parts), page_spans=spans, page_count=len(pages))


def _parse_pdf(data: bytes) -> ParsedDocument:
    from pypdf import PdfReader
    from pypdf.errors import FileNotDecryptedError, PdfReadError

    if not data.lstrip()[:5].startswith(b"%PDF"):
        raise DocumentError("the file is not a valid PDF (no PDF header); it may be corrupt or mislabelled.",
                            "corrupt")
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted:
            # Some PDFs are "encrypted" with an empty user password (print restrictions only): those open.
            try:
                opened = bool(reader.decrypt(""))
            except Exception:
                opened = False
            if not opened:
                raise DocumentError("the PDF is password-protected (encrypted); remove the password and "
                                    "upload it again.", "encrypted")
        pages = [normalize_page_text(page.extract_text() or "") for page in reader.pages]
    except DocumentError:
        raise
    except FileNotDecryptedError as exc:
        raise DocumentError("the PDF is password-protected (encrypted); remove the password and upload it "
                            "again.", "encrypted") from exc
    except (PdfReadError, ValueError, KeyError, TypeError, AttributeError, IndexError, OSError,
            RecursionError, AssertionError) as exc:
        raise DocumentError(f"the PDF is damaged and cannot be read ({type(exc).__name__}: {exc}).",
                            "corrupt") from exc
    if not pages:
        raise DocumentError("the PDF has no pages.", "empty")
    if sum(len(re.sub(r"\s", "", p)) for p in pages) < _MIN_TEXT_CHARS:
        raise DocumentError("the PDF has no extractable text (it looks like scanned images); run OCR on it "
                            "first.", "no_text")
    return _assemble(pages, markers=True)


def _parse_docx(data: bytes) -> ParsedDocument:
    import zipfile

    from docx import Document

    try:
        document = Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"the Word file is damaged and cannot be read ({exc}).", "corrupt") from exc
    paragraphs = [p.text for p in document.paragraphs]
    for table in document.tables:
        for row in table.rows:
            paragraphs.append(" | ".join(cell.text for cell in row.cells))
    return _text_document("\n".join(paragraphs))


def _text_document(text: str) -> ParsedDocument:
    clean = normalize_page_text(text)
    if len(re.sub(r"\s", "", clean)) < 1:
        raise DocumentError("the document contains no text.", "no_text")
    return _assemble([clean], markers=False)


def _decode_text(data: bytes) -> str:
    for encoding in ("utf-8-sig", "cp949"):
        try:
            return data.decode(encoding)
        except UnicodeDecodeError:
            continue
    raise DocumentError("the text file is neither UTF-8 nor CP949 encoded.", "corrupt")


def parse_document(data: bytes, file_name: str, max_bytes: int | None = None) -> ParsedDocument:
    """Extract the text of a document (raises `DocumentError` with a readable reason).

    Args:
        data: the file's bytes.
        file_name: its name; the suffix picks the parser.
        max_bytes: size limit (MAX_UPLOAD_MB).
    """
    suffix = PurePath(file_name).suffix.lower()
    if suffix not in SUPPORTED_SUFFIXES:
        raise DocumentError(f"unsupported file type {suffix or '(none)'!r}; supported: "
                            f"{', '.join(SUPPORTED_SUFFIXES)}.", "unsupported")
    if max_bytes is not None and len(data) > max_bytes:
        raise DocumentError(f"the file is {len(data) / 1_048_576:.1f} MB, over the {max_bytes / 1_048_576:.0f} MB "
                            "limit (MAX_UPLOAD_MB).", "too_large")
    if not data.strip():
        raise DocumentError("the file is empty.", "empty")
    if suffix == ".pdf":
        return _parse_pdf(data)
    if suffix == ".docx":
        return _parse_docx(data)
    return _text_document(_decode_text(data))


def split_document(doc: ParsedDocument, chunk_size: int = 800, chunk_overlap: int = 100) -> list[Chunk]:
    """Split with `RecursiveCharacterTextSplitter`; each chunk carries every page it spans."""
    splitter = RecursiveCharacterTextSplitter(chunk_size=chunk_size, chunk_overlap=chunk_overlap,
                                              add_start_index=True)
    chunks: list[Chunk] = []
    for piece in splitter.create_documents([doc.text]):
        content = piece.page_content
        start = int(piece.metadata.get("start_index", -1))
        if start < 0:  # the splitter could not locate the piece; find it ourselves
            start = doc.text.find(content)
        pages = doc.pages_between(start, start + len(content)) if doc.page_spans else []
        # A marker at the very end introduces text the chunk does not hold (the next chunk starts with it).
        content = _TRAILING_MARKER.sub("", content)
        if not pages:  # a piece made only of a marker or whitespace
            continue
        chunks.append(Chunk(index=len(chunks), content=content, pages=pages))
    return chunks
