"""Office documents: Word (python-docx), PowerPoint (python-pptx), Excel (openpyxl) and CSV.

* DOCX: paragraphs and tables in body order; headings (`Heading N`/`제목 N` styles or an outline level) give
  each section its heading path (articles, the `부칙` and annexes such as `[별표 1] …` cut it too); list items keep a `- ` mark; a footnote follows the paragraph citing it.
* PPTX: one section per slide (location `slide`), the title first, then every text frame (groups included),
  tables as row sentences and the speaker notes.
* XLSX/CSV: per sheet, the header row is found below any title or note rows (`header_span`; several header
  rows of merged cells are joined), and each data row becomes one section of one sentence (`header: value; …`)
  so a row reads and is quoted on its own, located by sheet, row number and row label (its first text cell).
  XLSX values read as the sheet shows them (`sheet_values.displayed`: `3,120,000,000`, `38.7%`). At most
  `document_parser.MAX_SHEET_ROWS` rows are read per file; the rest is left out and the document says so
  (`ParsedDocument.notices`).
"""

from __future__ import annotations

import csv
import io
import re
import zipfile
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from ai_llm.internal_rag_agent.formats.sheet_values import displayed
from ai_llm.internal_rag_agent.formats.structure import (
    Block,
    DocumentError,
    Location,
    Record,
    Section,
    row_sentence,
    section_of,
    sections_from_blocks,
    table_lines,
)

# -- Word ---------------------------------------------------------------------------------------------------

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"


def _heading_level(paragraph: Any) -> int:
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    for prefix in ("Heading ", "heading ", "제목 "):
        if name.startswith(prefix) and name[len(prefix):].strip().isdigit():
            return int(name[len(prefix):].strip())
    if name in ("Title", "제목"):
        return 1
    outline = paragraph._p.find(f"{_W}pPr/{_W}outlineLvl")
    if outline is not None and str(outline.get(f"{_W}val", "")).isdigit():
        return int(outline.get(f"{_W}val")) + 1
    return 0


def _is_list_item(paragraph: Any) -> bool:
    name = (paragraph.style.name if paragraph.style is not None else "") or ""
    return name.startswith("List") or paragraph._p.find(f"{_W}pPr/{_W}numPr") is not None


def _docx_footnotes(data: bytes) -> dict[str, str]:
    """Footnote id → its text (Word's separator notes, ids ≤ 0, left out)."""
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if "word/footnotes.xml" not in archive.namelist():
            return {}
        from lxml import etree

        root = etree.fromstring(archive.read("word/footnotes.xml"), parser=etree.XMLParser(resolve_entities=False))
    notes: dict[str, str] = {}
    for note in root.iter(f"{_W}footnote"):
        if int(note.get(f"{_W}id", "0")) <= 0:  # separators
            continue
        text = "".join(t.text or "" for t in note.iter(f"{_W}t")).strip()
        if text:
            notes[str(note.get(f"{_W}id"))] = text
    return notes


def docx_sections(data: bytes, notes_title: str = "각주") -> list[Section]:
    """A Word file's sections. A footnote follows the paragraph or table that cites it, in that section, as a
    reader finds it at the foot of the same page; a footnote nothing cites is in a last `notes_title` section."""
    from docx import Document
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"the Word file is damaged and cannot be read ({exc}).", "corrupt") from exc
    notes = _docx_footnotes(data)

    def cited(element: Any) -> list[Block]:
        ids = (reference.get(f"{_W}id") for reference in element.iter(f"{_W}footnoteReference"))
        return [Block(notes.pop(i)) for i in ids if i in notes]

    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            level = _heading_level(item)
            text = item.text
            if not level and _is_list_item(item) and text.strip():
                text = f"- {text.strip()}"
            blocks.append(Block(text, heading=level))
            blocks += cited(item._p)
        elif isinstance(item, Table):
            blocks.append(Block(rows=[[cell.text for cell in row.cells] for row in item.rows]))
            blocks += cited(item._tbl)
    if notes:
        blocks.append(Block(notes_title, heading=1))
        blocks.extend(Block(note) for note in notes.values())
    return sections_from_blocks(blocks, articles=True)


# -- PowerPoint ---------------------------------------------------------------------------------------------


def _shape_lines(shape: Any) -> Iterator[str]:
    from pptx.enum.shapes import MSO_SHAPE_TYPE

    if shape.shape_type == MSO_SHAPE_TYPE.GROUP:
        for inner in shape.shapes:
            yield from _shape_lines(inner)
        return
    if getattr(shape, "has_table", False) and shape.has_table:
        yield from table_lines([[cell.text for cell in row.cells] for row in shape.table.rows])
        return
    if getattr(shape, "has_text_frame", False) and shape.has_text_frame:
        for paragraph in shape.text_frame.paragraphs:
            text = "".join(run.text for run in paragraph.runs) or paragraph.text
            if text.strip():
                yield ("- " if paragraph.level else "") + text.strip()


def pptx_sections(data: bytes, notes_label: str = "발표자 노트") -> list[Section]:
    from pptx import Presentation
    from pptx.exc import PackageNotFoundError

    try:
        presentation = Presentation(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError, PackageNotFoundError) as exc:
        raise DocumentError(f"the PowerPoint file is damaged and cannot be read ({exc}).", "corrupt") from exc
    sections: list[Section] = []
    for number, slide in enumerate(presentation.slides, start=1):
        title_shape = slide.shapes.title
        title = " ".join((title_shape.text if title_shape is not None else "").split())
        lines = [title] if title else []
        for shape in slide.shapes:
            if title_shape is not None and shape.shape_id == title_shape.shape_id:
                continue
            lines.extend(_shape_lines(shape))
        if slide.has_notes_slide:
            notes = slide.notes_slide.notes_text_frame
            text = notes.text.strip() if notes is not None else ""
            if text:
                lines.append(f"{notes_label}: " + " ".join(text.split()))
        section = section_of(lines, {"kind": "slide", "slide": number, "title": title})
        if section.text:
            sections.append(section)
    return sections


# -- sheets -------------------------------------------------------------------------------------------------

#: A cell that reads as a number, an amount or a date rather than a name: `3,120`, `-38.7%`, `₩5,000`, `2025-11-30`.
_NUMERIC = re.compile(r"^[-+−(]?\s*[₩$€£¥]?\s*(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*%?\)?$"
                      r"|^\d{4}[-./]\d{1,2}(?:[-./]\d{1,2})?\.?$")
#: Rows looked at for the header (titles and notes above it are at most this many rows).
HEADER_SEARCH_ROWS = 10
#: At most this many rows make one header (a two-level header: `예산` over `2025년` and `2026년`).
MAX_HEADER_ROWS = 3
ROWS_PER_SECTION = 20
_SECTION_CHARS = 1500
#: A row label longer than this is a sentence, not a name: the row is named by its number alone.
_LABEL_CHARS = 30


@dataclass
class SheetRow:
    """One non-empty row of a sheet: its number, each cell as the sheet shows it, and which cells are text
    (a name or a heading, not a number, amount or date)."""

    number: int
    cells: list[str]
    text: list[bool]

    @property
    def filled(self) -> list[int]:
        return [i for i, cell in enumerate(self.cells) if cell]

    @property
    def all_text(self) -> bool:
        return all(self.text[i] for i in self.filled)

    @property
    def label(self) -> str:
        """The row's name: its first text cell, when short."""
        first = next((self.cells[i] for i in self.filled if self.text[i]), "")
        return first if len(first) <= _LABEL_CHARS else ""


#: A year, which a header writes as a number (`부서 | 2025 | 2026`).
_YEAR = re.compile(r"^(?:19|20)\d{2}$")


def is_text_cell(value: Any, shown: str) -> bool:
    """Whether a cell is a name or a heading: text that is not a number, an amount or a date; or a year."""
    if isinstance(value, int | str) and not isinstance(value, bool) and _YEAR.match(shown):
        return True
    return isinstance(value, str) and bool(shown) and not _NUMERIC.match(shown)


def header_span(rows: Sequence[SheetRow]) -> tuple[int, int]:
    """`(first, end)`: the rows (indices into `rows`) that are the sheet's header; those before it are its title
    and notes. The header is the first row, among the first `HEADER_SEARCH_ROWS`, whose cells are all text and
    fill at least half of the table's width (a title or a "(단위: 백만원)" note fills one or two); the rows right
    under it that are text too and fill its gaps (merged cells: `예산` over `2025년`, `2026년`) join it. A sheet
    without such a row has its first row as the header."""
    window = rows[:HEADER_SEARCH_ROWS]
    width = max((len(row.filled) for row in rows[:HEADER_SEARCH_ROWS * 3]), default=0)
    for first, row in enumerate(window):
        if len(row.filled) < 2 or not row.all_text:
            continue
        end = first + 1
        covered = set(row.filled)
        while end < len(rows) and end - first < MAX_HEADER_ROWS and rows[end].all_text:
            gaps = set(range(min(covered), max(covered) + 1)) - covered
            if not gaps & set(rows[end].filled):
                break
            covered |= set(rows[end].filled)
            end += 1
        if 2 * len(covered) >= width:
            return first, end
    return (0, 1) if rows else (0, 0)


def header_names(rows: Sequence[SheetRow]) -> list[str]:
    """One name per column from the header rows: a merged cell's text carried over the columns it spans (to the
    right, in every row but the last), the rows' texts joined (`예산 2026년`)."""
    width = max((len(row.cells) for row in rows), default=0)
    names: list[list[str]] = [[] for _ in range(width)]
    for index, row in enumerate(rows):
        carried = ""
        last = index == len(rows) - 1
        for column in range(width):
            cell = row.cells[column] if column < len(row.cells) else ""
            if cell:
                carried = cell
            elif not last and carried:
                cell = carried
            if cell and (not names[column] or names[column][-1] != cell):
                names[column].append(cell)
    return [" ".join(parts) for parts in names]


class RowBudget:
    """Rows left to read in one file, and whether any were left out."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.dropped = 0


def sheet_sections(name: str, rows: Iterable[SheetRow], budget: RowBudget) -> list[Section]:
    """Sections of one sheet: its title and notes above the header (one section), then `ROWS_PER_SECTION` row
    sentences each (`header: value; …`, the header carried; fewer when long), located by the sheet and the rows;
    each row sentence keeps its own row number and label (`Section.rows`), which a quote of it is cited by."""
    read = [row for row in rows if any(row.cells)]
    first, end = header_span(read)
    sections: list[Section] = []
    if first:
        preamble = read[:first]
        sections.append(section_of([" ".join(c for c in row.cells if c) for row in preamble],
                                   _sheet_location(name, preamble[0].number, preamble[-1].number)))
    header = header_names(read[first:end])
    lines: list[str] = []
    numbers: list[int] = []
    named: dict[str, tuple[int, str]] = {}
    size = 0

    def flush() -> None:
        nonlocal size
        if lines:
            section = section_of(lines, _sheet_location(name, numbers[0], numbers[-1]))
            section.rows = dict(named)
            sections.append(section)
        lines.clear()
        numbers.clear()
        named.clear()
        size = 0

    for row in read[end:]:
        if budget.left <= 0:
            budget.dropped += 1
            continue
        budget.left -= 1
        sentence = Record(row_sentence(header, row.cells))
        if not sentence:
            continue
        if lines and (len(lines) >= ROWS_PER_SECTION or size + len(sentence) > _SECTION_CHARS):
            flush()
        lines.append(sentence)
        numbers.append(row.number)
        named.setdefault(str(sentence), (row.number, row.label))
        size += len(sentence) + 1
    flush()
    if end and len(read) == end:  # a sheet that is only a header
        numbers = [row.number for row in read[first:end]]
        sections.append(section_of([" | ".join(c for c in header if c)],
                                   _sheet_location(name, numbers[0], numbers[-1])))
    return sections


def _sheet_location(name: str, first: int, last: int) -> Location:
    return {"kind": "sheet", "sheet": name, "rows": f"{first}-{last}" if last != first else f"{first}"}


def _xlsx_rows(sheet: Any) -> Iterator[SheetRow]:
    for number, cells in enumerate(sheet.iter_rows(), start=1):
        values = [getattr(cell, "value", None) for cell in cells]
        shown = [displayed(value, getattr(cell, "number_format", None)) for value, cell in zip(values, cells,
                                                                                                strict=True)]
        yield SheetRow(number, shown, [is_text_cell(v, s) for v, s in zip(values, shown, strict=True)])


def xlsx_sections(data: bytes, budget: RowBudget) -> list[Section]:
    from openpyxl import load_workbook
    from openpyxl.utils.exceptions import InvalidFileException

    try:
        workbook = load_workbook(io.BytesIO(data), read_only=True, data_only=True)
    except (zipfile.BadZipFile, KeyError, ValueError, InvalidFileException, OSError) as exc:
        raise DocumentError(f"the Excel file is damaged and cannot be read ({exc}).", "corrupt") from exc
    try:
        sections: list[Section] = []
        for sheet in workbook.worksheets:
            sections.extend(sheet_sections(sheet.title, _xlsx_rows(sheet), budget))
        return sections
    finally:
        workbook.close()


def csv_sections(text: str, file_name: str, budget: RowBudget) -> list[Section]:
    sample = text[:8192]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    # A quote inside a quoted cell is doubled in every CSV writer's output (RFC 4180); the sniffer says otherwise
    # when its sample happens to hold none, which would split `"New ""compact"" option"` at the inner quotes.
    dialect.doublequote = True
    reader = csv.reader(io.StringIO(text), dialect)
    rows = ([" ".join(cell.split()) for cell in raw] for raw in reader)
    return sheet_sections(PurePath(file_name).stem,
                          (SheetRow(number, cells, [is_text_cell(c, c) for c in cells])
                           for number, cells in enumerate(rows, start=1)), budget)
