"""Turn a document's bytes into located text a person reads, and split it into sentence chunks.

What a file is comes from its bytes (`ai_llm.common.file_types.sniff`), so an extension that lies does not
matter. PDFs are read with `pypdf`; each page's text is preceded by a `[페이지 N]` marker (1-based, as the
reader sees it), and a PDF without any text layer (a scan) is read by OCR (`formats.ocr`). A page's location
keeps that number (the viewer opens it, the evaluation scores it) and adds the label the page prints where the
PDF defines page labels (`p.7` for the tenth page), and the annex (`별표 1 …`) a chunk lies in. The other formats
are read by their libraries into located sections (`formats`): Word, PowerPoint, Excel/CSV, HWP/HWPX, HTML,
Markdown (headings), plain text (Korean `제N조` articles) and images (OCR). Every chunk carries the location a
person finds it by (`Chunk.location`: page, slide, sheet rows or heading path).

pypdf returns a page as layout lines, so its text is rebuilt before anything else reads it (`rebuild_pages`):
running headers and footers (lines repeated at the top or bottom of many pages, page numbers) are removed,
checklist boxes ("Yes No") are dropped, lines wrapped inside a paragraph are joined, a word hyphenated at a
line end is made whole again when the document uses it whole elsewhere, list items start their own line, and
Korean spacing lost in extraction is restored by Kiwi. Each line of the rebuilt page is then a paragraph or a
list item, and chunks are whole sentences of one page (`split_document`), one sentence per line — so a cited
page is the page that holds the text, and a quoted sentence is a whole one.
"""

from __future__ import annotations

import io
import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from dataclasses import dataclass, field
from difflib import SequenceMatcher
from pathlib import PurePath
from typing import Any

from ai_llm.common import file_types
from ai_llm.common.text import HANGUL_SYLLABLE, split_sentences
from ai_llm.internal_rag_agent.formats.structure import (
    Block,
    DocumentError,
    Location,
    Section,
    annex_heading,
    annex_marks,
    markdown_as_read,
    markdown_blocks,
    sections_from_blocks,
)

PAGE_MARKER = "[페이지 {n}]"
SUPPORTED_SUFFIXES = file_types.SUPPORTED_SUFFIXES
_TRAILING_MARKER = re.compile(r"\s*\[페이지 \d+\]\s*$")
_MIN_TEXT_CHARS = 20  # below this a document (after whitespace removal) is treated as having no text
#: `progress(done, total)` per OCR'd page.
PageProgress = Callable[[int, int], None]

__all__ = ["DocumentError", "ParsedDocument", "Chunk", "parse_document", "split_document", "SUPPORTED_SUFFIXES"]


@dataclass
class ParsedDocument:
    """Text of a document, and where each of its units (page, slide, sheet rows, section) lies in it.

    Attributes:
        text: the whole text; a PDF's pages are each preceded by their `[페이지 N]` marker.
        page_spans: `(unit, start, end)` character offsets of each unit's text (markers excluded); a unit is a
            page for PDFs and scans, else a section in reading order.
        page_count: units in the source (pages including those without text).
        locations: where each unit is, as a person finds it (`formats.structure` location dicts).
        notices: what was left out and why (rows over the sheet bound, pages over the OCR bound).
        ocr: the text came from text recognition.
        records: lines that are one table row each, kept whole by `split_document`.
        annexes: where a PDF's annex tables and forms (`별표 1 …`) start and end, `(offset, heading or None)`
            (`structure.annex_marks`): a chunk in one is located on its page and in the annex.
        rows: per unit, a sheet's row sentences → (row number, row label) (`Section.rows`): a chunk's location
            lists the row of each of its lines (`line_rows`), so a quoted row is cited as that row.
    """

    text: str
    page_spans: list[tuple[int, int, int]] = field(default_factory=list)
    page_count: int = 1
    locations: dict[int, Location] = field(default_factory=dict)
    notices: list[str] = field(default_factory=list)
    ocr: bool = False
    records: frozenset[str] = frozenset()
    annexes: list[tuple[int, str | None]] = field(default_factory=list)
    rows: dict[int, dict[str, tuple[int, str]]] = field(default_factory=dict)

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
    location: Location | None = None


#: Enclosed numbers and letters (①, ⑵, ㉠): a Korean statute's paragraph and item marks, read as written.
_ENCLOSED = re.compile(r"([\u2460-\u24ff\u3200-\u32ff]+)")


def _nfkc(text: str) -> str:
    """NFKC, except the enclosed marks (NFKC turns "①(시행일)" into "1(시행일)")."""
    parts = _ENCLOSED.split(text)
    return "".join(part if i % 2 else unicodedata.normalize("NFKC", part) for i, part in enumerate(parts))


def normalize_page_text(text: str) -> str:
    """NFKC (ligatures such as `ﬁ`; enclosed marks such as ① kept), unify line ends, collapse runs of spaces,
    drop blank-line runs."""
    text = _nfkc(text).replace("\r\n", "\n").replace("\r", "\n")
    text = text.replace("\x00", "")
    text = re.sub(r"[ \t\f\v\u00a0]+", " ", text)
    text = re.sub(r" *\n *", "\n", text)
    text = re.sub(r"\n{3,}", "\n\n", text)
    return text.strip()


_PAGE_NUMBER = re.compile(r"^(?:page\s*)?[-–—\s]*\d{1,4}(?:\s*(?:of|/)\s*\d{1,4})?[-–—\s]*$", re.I)
_CHECKBOXES = re.compile(r"^[\W_]*(?:(?:yes|no|n/?a)\b[\W_]*)+$", re.I)
_TRAILING_CHECKBOXES = re.compile(r"(?:\s+[\uf000-\uf8ff\u2610\u25a1]?\s*(?:Yes|No)\b){2,}\s*$")
_BLOCK_START = re.compile(
    r"^(?:[•●○◦▪■□◇◆▶►※☞ㅇ\-–·*\uf0b7\uf0a7]|[①-⑳➀-➓]|\d{1,2}[.)]\s|[A-Za-z][.)]\s|제\s*\d+\s*조(?:\s*의\s*\d+)?\s*\("
    r"|[IVX]{1,4}\.\s|\((?:\d{1,2}|[a-z]|[ivx]{1,4}|[\uac00-\ud7a3]{1,4})\)|【|<|\[\d)")
_TERMINAL = re.compile(r"[.!?:;。”\"')\]]$|[다요음함됨임]\.?$")
_WORD_CHARS = re.compile(r"[A-Za-z]+")


def _line_key(line: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"\s+", " ", line.strip().lower()))


def _loose_key(line: str) -> str:
    return re.sub(r"\d+", "#", re.sub(r"[\W_]+", "", line.lower()))


#: How alike (difflib's ratio of their letters) the lines at one edge of every page must read to be a running
#: header or footer: a scan's OCR misreads a letter or two of the same line ("규정집" / "규정접", "h1l" / "hil").
EDGE_LIKENESS = 0.9


def _edge_lines(pages: list[list[str]]) -> set[str]:
    """Keys (`_line_key`) of the first, and of the last, line of every page with text when that line reads alike on
    all of them (at least two): a short document's running header or footer ("humanize 4.17.0 — README.md —
    1/2"), which the count of `_running_lines` cannot tell from text."""
    texts = [kept for kept in ([line for line in lines if line.strip()] for lines in pages) if kept]
    if len(texts) < 2:
        return set()
    found: set[str] = set()
    for edge in (0, -1):
        lines = [text[edge] for text in texts]
        keys = [_loose_key(line) for line in lines]
        if any(len(key) < 4 or len(line.strip()) > 100 for key, line in zip(keys, lines, strict=True)):
            continue
        if all(SequenceMatcher(None, keys[0], key).ratio() >= EDGE_LIKENESS for key in keys[1:]):
            found.update(_line_key(line) for line in lines)
    return found


def strip_edge_lines(pages: list[str]) -> list[str]:
    """The pages without their running header and footer lines (`_edge_lines`)."""
    split = [page.split("\n") for page in pages]
    edges = _edge_lines(split)
    if not edges:
        return pages
    return ["\n".join(line for line in lines if _line_key(line) not in edges) for lines in split]


def _running_lines(pages: list[list[str]]) -> set[str]:
    """Keys of lines repeated at the top or bottom of many pages (running headers and footers), and of a short
    document's (`_edge_lines`)."""
    counts: dict[str, int] = {}
    with_text = 0
    for lines in pages:
        edge = [line for line in lines if line.strip()]
        if not edge:
            continue
        with_text += 1
        for key in {_line_key(line) for line in edge[:3] + edge[-3:]}:
            counts[key] = counts.get(key, 0) + 1
    # Headers and footers are short and repeat over many pages; a short document has none worth guessing.
    floor = max(4, int(0.3 * with_text))
    return {key for key, n in counts.items() if n >= floor and 1 < len(key) <= 100} | _edge_lines(pages)


def _typical_length(lines: list[str]) -> float:
    lengths = sorted(len(line) for line in lines if len(line) >= 20)
    return float(lengths[int(len(lengths) * 0.8)]) if lengths else 60.0


#: Cells of a table row, which Tesseract separates by runs of spaces.
_CELL_GAP = re.compile(r"\S {3,}\S")


def join_wrapped_lines(page: str) -> str:
    """Tesseract's text with the blank lines it puts inside a paragraph removed: a line that does not end a
    sentence (`_TERMINAL`), then a blank line, then a line that does not start a block (`_BLOCK_START`: a
    paragraph mark, an article, a list item) is one paragraph wrapped. Table rows (cells apart by runs of
    spaces) stay lines of their own: a blank line is put around each, so no paragraph takes them in."""
    lines: list[str] = []
    for line in page.split("\n"):
        lines.extend(["", line, ""] if _CELL_GAP.search(line) else [line])
    out: list[str] = []
    i = 0
    while i < len(lines):
        out.append(lines[i])
        j = i + 1
        while j < len(lines) and not lines[j].strip():
            j += 1
        if j > i + 1 and j < len(lines) and lines[i].strip() and not _TERMINAL.search(lines[i].strip()) \
                and not _BLOCK_START.match(lines[j].strip()) \
                and not _CELL_GAP.search(lines[i]) and not _CELL_GAP.search(lines[j]):
            i = j  # skip the blank lines inside the paragraph
            continue
        out.extend(lines[i + 1:j])
        i = j
    return "\n".join(out)


def _ends_paragraph(previous: str, following: str, typical: float) -> bool:
    short = len(previous) < 0.7 * typical
    if not short:
        return False
    if _TERMINAL.search(previous):
        return True
    # A short line without final punctuation before a capitalised line: a heading.
    return following[:1].isupper() and not previous.endswith((",", "-", "(", "and", "or", "the", "of"))


def _rebuild_page(lines: list[str], running: set[str], vocabulary: set[str]) -> str:
    lines = [line.strip() for line in lines]
    content = [i for i, line in enumerate(lines) if line]
    for i in content[:3] + content[-3:]:
        if _line_key(lines[i]) in running or _PAGE_NUMBER.match(lines[i]):
            lines[i] = ""
    typical = _typical_length(lines)
    paragraphs: list[str] = []
    current = previous = ""
    for line in lines:
        line = _TRAILING_CHECKBOXES.sub("", line).strip()
        if not line or _CHECKBOXES.match(line):
            if current:
                paragraphs.append(current)
            current = previous = ""
            continue
        if annex_heading(line):  # an annex's title (`[별표 1] 여비 지급 기준`) is a paragraph of its own
            if current:
                paragraphs.append(current)
            paragraphs.append(line)
            current = previous = ""
            continue
        if not current:
            current = previous = line
            continue
        if _BLOCK_START.match(line):
            paragraphs.append(current)
            current = line
        elif current.endswith("-") and current[-2:-1].isalpha() and line[:1].islower():
            head = _WORD_CHARS.findall(current[:-1])
            tail = _WORD_CHARS.match(line)
            whole = (head[-1] if head else "") + (tail.group(0) if tail else "")
            # "infec-" + "tion": the document writes "infection" elsewhere; "multi-" + "dose" keeps its hyphen.
            current = (current[:-1] if whole.lower() in vocabulary else current) + line
        elif _ends_paragraph(previous, line, typical):
            paragraphs.append(current)
            current = line
        else:
            current = f"{current} {line}"
        previous = line
    if current:
        paragraphs.append(current)
    return "\n".join(_korean_spacing(p) for p in paragraphs)


def _korean_spacing(paragraph: str) -> str:
    """Restore the spaces pypdf drops between Korean words (Kiwi), where a paragraph has too few."""
    hangul = len(HANGUL_SYLLABLE.findall(paragraph))
    if hangul < 8 or paragraph.count(" ") / hangul > 0.2:
        return paragraph
    from ai_llm.common.text.analysis import kiwi

    try:
        return str(kiwi().space(paragraph, reset_whitespace=False))
    except Exception:  # spacing is cosmetic: keep the text as extracted
        return paragraph


def rebuild_pages(pages: list[str]) -> list[str]:
    """Page texts as a person reads them (see the module docstring); one paragraph or list item per line."""
    split = [page.split("\n") for page in pages]
    running = _running_lines(split)
    vocabulary = {w.lower() for page in pages for w in _WORD_CHARS.findall(page) if len(w) > 3}
    rebuilt = [_rebuild_page(lines, running, vocabulary) if any(line.strip() for line in lines) else ""
               for lines in split]
    # A sentence that runs over a page break is kept whole on the page where it starts.
    for i in range(1, len(rebuilt)):
        previous, current = rebuilt[i - 1], rebuilt[i]
        if not previous or not current or not current[:1].islower() or _TERMINAL.search(previous):
            continue
        head, _, rest = current.partition("\n")
        joined = previous[:-1] + head if previous.endswith("-") and previous[-2:-1].isalpha() else f"{previous} {head}"
        rebuilt[i - 1], rebuilt[i] = joined, rest
    return rebuilt


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
    return ParsedDocument(text="".join(parts), page_spans=spans, page_count=len(pages),
                          locations={n: {"kind": "page", "page": n} for n, _, _ in spans})


def assemble_sections(sections: list[Section], notices: list[str] | None = None) -> ParsedDocument:
    """A document of located sections (one unit each, numbered in reading order)."""
    texts = [normalize_page_text(section.text) for section in sections]
    kept = [(text, section.location) for text, section in zip(texts, sections, strict=True) if text]
    if not kept or sum(len(re.sub(r"\s", "", t)) for t, _ in kept) < 1:
        raise DocumentError("the document contains no text.", "no_text")
    doc = _assemble([text for text, _ in kept], markers=False)
    doc.locations = {n: location for n, (_, location) in enumerate(kept, start=1)}
    doc.notices = list(notices or [])
    doc.records = frozenset(normalize_page_text(line) for section in sections for line in section.records)
    kept_rows = [section.rows for text, section in zip(texts, sections, strict=True) if text]
    doc.rows = {n: {normalize_page_text(line): row for line, row in rows.items()}
                for n, rows in enumerate(kept_rows, start=1) if rows}
    return doc


def _parse_pdf(data: bytes, progress: PageProgress | None = None) -> ParsedDocument:
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
        printed = _printed_labels(reader)
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
        # No text layer at all: a scan, read by text recognition page by page.
        from ai_llm.internal_rag_agent.formats.ocr import scanned_pdf_pages

        scanned, left_out = scanned_pdf_pages(data, progress)
        return _paged(_ocr_document(scanned, left_out), printed)
    return _paged(_assemble(rebuild_pages(pages), markers=True), printed)


def _printed_labels(reader: Any) -> list[str]:
    """The label each page prints (`vii`, `7`, `A-3`) where the PDF defines page labels (`/PageLabels`), else
    none: pages are then cited by their number."""
    try:
        if "/PageLabels" not in reader.root_object:
            return []
        return [str(label) for label in reader.page_labels]
    except Exception:  # a damaged label tree: the page numbers still cite the pages
        return []


def _paged(doc: ParsedDocument, printed: list[str]) -> ParsedDocument:
    """A PDF's pages with their printed labels (where one differs from the page's number; the number stays the
    location's `page`, the index the viewer and the evaluation use) and its annexes."""
    for page, location in doc.locations.items():
        if page <= len(printed) and printed[page - 1] and printed[page - 1] != str(page):
            location["label"] = printed[page - 1]
    doc.annexes = annex_marks(doc.text)
    return doc


def _ocr_document(pages: list[str], left_out: int) -> ParsedDocument:
    from ai_llm.internal_rag_agent.formats.ocr import restore_paragraph_numbers

    # The running header goes before the wrapped lines are joined: it would open the page's first paragraph.
    texts = [normalize_page_text(join_wrapped_lines(restore_paragraph_numbers(page)))
             for page in strip_edge_lines(pages)]
    if sum(len(re.sub(r"\s", "", t)) for t in texts) < _MIN_TEXT_CHARS:
        raise DocumentError("no text was found in the scan (text recognition read nothing).", "no_text")
    doc = _assemble(rebuild_pages(texts), markers=True)
    doc.ocr = True
    doc.page_count = len(pages) + left_out
    if left_out:
        doc.notices.append(f"{left_out} pages after the first {len(pages)} were not read (OCR page limit).")
    return doc


def _text_document(text: str, suffix: str) -> ParsedDocument:
    if suffix == ".md":
        return assemble_sections(sections_from_blocks(markdown_blocks(markdown_as_read(text)), articles=True))
    return assemble_sections(sections_from_blocks((Block(line) for line in text.splitlines()), articles=True))


def _sheet_document(sections: list[Section], budget: Any) -> ParsedDocument:
    notices = [f"{budget.dropped:,} rows beyond the first {MAX_SHEET_ROWS:,} were not indexed (row limit)."] \
        if budget.dropped else []
    return assemble_sections(sections, notices)


MAX_SHEET_ROWS = 20_000


def parse_document(data: bytes, file_name: str, max_bytes: int | None = None,
                   progress: PageProgress | None = None) -> ParsedDocument:
    """Extract the located text of a document (raises `DocumentError` with a readable reason).

    Args:
        data: the file's bytes; their content decides the format (`file_types.sniff`), the name's suffix
            only tells text kinds apart (`.md`, `.csv`).
        file_name: its name.
        max_bytes: size limit (MAX_UPLOAD_MB).
        progress: called with (done, total) after each page text recognition reads.
    """
    suffix = PurePath(file_name).suffix.lower()
    if max_bytes is not None and len(data) > max_bytes:
        raise DocumentError(f"the file is {len(data) / 1_048_576:.1f} MB, over the {max_bytes / 1_048_576:.0f} MB "
                            "limit (MAX_UPLOAD_MB).", "too_large")
    try:
        kind = file_types.sniff(data, suffix).content_type
    except file_types.FileTypeError as exc:
        raise DocumentError(exc.reason, exc.code) from exc
    from ai_llm.internal_rag_agent.formats import hangul, html_page, ocr, office

    if kind == file_types.PDF:
        return _parse_pdf(data, progress)
    if kind == file_types.DOCX:
        return assemble_sections(office.docx_sections(data))
    if kind == file_types.PPTX:
        return assemble_sections(office.pptx_sections(data))
    if kind == file_types.XLSX:
        budget = office.RowBudget(MAX_SHEET_ROWS)
        return _sheet_document(office.xlsx_sections(data, budget), budget)
    if kind in (file_types.HWP, file_types.HWPX):
        return assemble_sections(hangul.hangul_sections(data))
    if kind in (file_types.PNG, file_types.JPEG, file_types.TIFF):
        pages, left_out = ocr.image_pages(data, progress)
        return _ocr_document(pages, left_out)
    text = file_types.decode_text(data)
    if text is None:  # sniff decoded it already; kept for the type checker
        raise DocumentError("the text file is neither UTF-8 nor CP949 encoded.", "corrupt")
    if kind == file_types.HTML:
        return assemble_sections(html_page.html_sections(text))
    if kind == "text/csv":
        budget = office.RowBudget(MAX_SHEET_ROWS)
        return _sheet_document(office.csv_sections(text, file_name, budget), budget)
    return _text_document(text, file_types.SUFFIX_ALIASES.get(suffix, suffix))


def split_document(doc: ParsedDocument, chunk_size: int = 800, chunk_overlap: int = 100) -> list[Chunk]:
    """Chunks of whole sentences, each within one page, one sentence per line.

    Sentences are packed up to `chunk_size` characters; the next chunk starts with the previous chunk's last
    sentence when that one is at most `chunk_overlap` × 3 characters (context across the cut). A sentence
    longer than `chunk_size` (a flattened table) is cut at spaces. A table row (`doc.records`) that fits a
    chunk is one sentence, whatever its cells hold. A PDF's annex (`doc.annexes`) starts a chunk of its own,
    located on its page and in the annex; a sheet chunk's location names each line's row (`line_rows`).
    """
    chunks: list[Chunk] = []
    spans = doc.page_spans or [(1, 0, len(doc.text))]
    marks = doc.annexes
    starts = [at for at, _ in marks]
    for page, start, end in spans:
        location = doc.locations.get(page)
        sentences: list[tuple[str, str | None]] = []
        offset = start
        for raw in doc.text[start:end].split("\n"):
            line = raw.strip()
            annex = marks[bisect_right(starts, offset) - 1][1] if starts and starts[0] <= offset else None
            offset += len(raw) + 1
            whole = line in doc.records and len(line) <= chunk_size
            for sentence in [line] if whole else split_sentences(line):
                sentences.extend((piece, annex) for piece in _cut(sentence, chunk_size))
        current: list[str] = []
        size = 0
        current_annex: str | None = None
        for sentence, annex in sentences:
            if current and annex != current_annex:  # an annex starts (or ends): a chunk of its own
                chunks.append(_chunk(len(chunks), current, page, location, current_annex))
                current, size = [], 0
            elif current and size + len(sentence) + 1 > chunk_size:
                chunks.append(_chunk(len(chunks), current, page, location, current_annex))
                carry = current[-1]
                current, size = ([carry], len(carry)) if len(carry) <= chunk_overlap * 3 \
                    and len(carry) + len(sentence) + 1 <= chunk_size else ([], 0)
            current_annex = annex
            current.append(sentence)
            size += len(sentence) + 1
        if current:
            chunks.append(_chunk(len(chunks), current, page, location, current_annex))
    for chunk in chunks:
        if chunk.pages and chunk.pages[0] in doc.rows:
            _name_rows(chunk, doc.rows[chunk.pages[0]])
    return chunks


def _chunk(index: int, sentences: list[str], page: int, location: Location | None, annex: str | None) -> Chunk:
    where = dict(location, annex=annex) if annex and location is not None else location
    return Chunk(index=index, content="\n".join(sentences), pages=[page], location=where)


def _name_rows(chunk: Chunk, rows: dict[str, tuple[int, str]]) -> None:
    """A sheet chunk's location gains `line_rows`: for each of its lines the sheet row it is ([number, label]),
    or None (a piece of a row longer than a chunk, a title line)."""
    if chunk.location is None or chunk.location.get("kind") != "sheet":
        return
    line_rows = [list(rows[line]) if line in rows else None for line in chunk.content.split("\n")]
    if any(line_rows):
        chunk.location = dict(chunk.location, line_rows=line_rows)


def _cut(sentence: str, size: int) -> list[str]:
    if len(sentence) <= size:
        return [sentence]
    pieces: list[str] = []
    rest = sentence
    while len(rest) > size:
        cut = rest.rfind(" ", 0, size)
        cut = cut if cut > size // 2 else size
        pieces.append(rest[:cut].strip())
        rest = rest[cut:].strip()
    if rest:
        pieces.append(rest)
    return pieces
