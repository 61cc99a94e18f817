"""Office documents: Word (python-docx), PowerPoint (python-pptx), Excel (openpyxl) and CSV.

* DOCX: paragraphs and tables in body order; headings (`Heading N`/`제목 N` styles or an outline level) give
  each section its heading path; list items keep a `- ` mark; footnotes follow as their own section.
* PPTX: one section per slide (location `slide`), the title first, then every text frame (groups included),
  tables as row sentences and the speaker notes.
* XLSX/CSV: per sheet, the first non-empty row is the header; each data row becomes one sentence
  (`header: value; …`) so a row reads on its own, and rows are grouped into sections of at most
  `ROWS_PER_SECTION` (location `sheet` + `rows`). At most `MAX_ROWS` rows are read per file; the rest is left
  out and the document says so (`ParsedDocument.notices`).
"""

from __future__ import annotations

import csv
import io
import zipfile
from collections.abc import Iterator
from pathlib import PurePath
from typing import Any

from ai_llm.internal_rag_agent.formats.structure import (
    Block,
    DocumentError,
    Record,
    Section,
    row_sentence,
    section_of,
    sections_from_blocks,
    table_lines,
)

ROWS_PER_SECTION = 20
_SECTION_CHARS = 1500


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


def _docx_footnotes(data: bytes) -> list[str]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        if "word/footnotes.xml" not in archive.namelist():
            return []
        from lxml import etree

        root = etree.fromstring(archive.read("word/footnotes.xml"), parser=etree.XMLParser(resolve_entities=False))
    notes: list[str] = []
    for note in root.iter(f"{_W}footnote"):
        if int(note.get(f"{_W}id", "0")) <= 0:  # separators
            continue
        text = "".join(t.text or "" for t in note.iter(f"{_W}t")).strip()
        if text:
            notes.append(text)
    return notes


def docx_sections(data: bytes, notes_title: str = "각주") -> list[Section]:
    from docx import Document
    from docx.table import Table
    from docx.text.paragraph import Paragraph

    try:
        document = Document(io.BytesIO(data))
    except (zipfile.BadZipFile, KeyError, ValueError) as exc:
        raise DocumentError(f"the Word file is damaged and cannot be read ({exc}).", "corrupt") from exc
    blocks: list[Block] = []
    for item in document.iter_inner_content():
        if isinstance(item, Paragraph):
            level = _heading_level(item)
            text = item.text
            if not level and _is_list_item(item) and text.strip():
                text = f"- {text.strip()}"
            blocks.append(Block(text, heading=level))
        elif isinstance(item, Table):
            blocks.append(Block(rows=[[cell.text for cell in row.cells] for row in item.rows]))
    notes = _docx_footnotes(data)
    if notes:
        blocks.append(Block(notes_title, heading=1))
        blocks.extend(Block(note) for note in notes)
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


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if hasattr(value, "isoformat"):
        text = value.isoformat()
        return text[:-9] if text.endswith("T00:00:00") else text
    return " ".join(str(value).split())


class RowBudget:
    """Rows left to read in one file, and whether any were left out."""

    def __init__(self, limit: int) -> None:
        self.left = limit
        self.dropped = 0


def sheet_sections(name: str, rows: Iterator[list[Any]], budget: RowBudget) -> list[Section]:
    """Sections of one sheet: `ROWS_PER_SECTION` row sentences each (fewer when long), the header carried."""
    header: list[str] | None = None
    sections: list[Section] = []
    lines: list[str] = []
    first = last = 0
    size = 0

    def flush() -> None:
        nonlocal size
        if lines:
            rows_label = f"{first}-{last}" if last != first else f"{first}"
            sections.append(section_of(lines, {"kind": "sheet", "sheet": name, "rows": rows_label}))
        lines.clear()
        size = 0

    for number, raw in enumerate(rows, start=1):
        cells = [_cell(v) for v in raw]
        if not any(cells):
            continue
        if header is None:
            header = cells
            continue
        if budget.left <= 0:
            budget.dropped += 1
            continue
        budget.left -= 1
        sentence = Record(row_sentence(header, cells))
        if not sentence:
            continue
        if lines and (len(lines) >= ROWS_PER_SECTION or size + len(sentence) > _SECTION_CHARS):
            flush()
        if not lines:
            first = number
        lines.append(sentence)
        last = number
        size += len(sentence) + 1
    if header is not None and not sections and not lines:
        lines.append(" | ".join(c for c in header if c))
        first = last = 1
    flush()
    return sections


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
            sections.extend(sheet_sections(sheet.title, (list(r) for r in sheet.iter_rows(values_only=True)),
                                           budget))
        return sections
    finally:
        workbook.close()


def csv_sections(text: str, file_name: str, budget: RowBudget) -> list[Section]:
    sample = text[:8192]
    try:
        dialect: Any = csv.Sniffer().sniff(sample, delimiters=",;\t|")
    except csv.Error:
        dialect = csv.excel
    reader = csv.reader(io.StringIO(text), dialect)
    return sheet_sections(PurePath(file_name).stem, (list(r) for r in reader), budget)
