"""One renderer per format: DOCX, XLSX, PPTX, HWPX/HWP and copied text files (scans are in `scan.py`).

Every renderer writes fixed metadata and zip timestamps, so a rebuild gives the same bytes.

Options by format (`[document.options]`):
    docx  title, subject, author, keywords (core properties); header, footer (a line at the top / foot of every
          page); font, font_size (the Normal style); table_size (points); margin_cm.  Markup: headings, paragraphs
          (`::italic`, `::bold`, or a style name with `-` for spaces), items (two levels), code, tables, footnotes.
    pptx  title, subject, author.  Parts: `=== slide title` (a heading, subtitle paragraphs), `=== slide bullets
          [size=N]` (a heading, items), `=== slide table widths=a,b,… [size=N]` (a heading, one table); `>`
          lines are the speaker notes.
    xlsx  title, creator.  Parts: `=== sheet Name [widths=a,b,…] [thousands=yes]`, rows as table rows (numbers
          typed, `markup.sheet_value`); the first row is bold; `thousands=yes` shows integers with digit groups
          (`#,##0`: 142,300).
    hwpx, hwp  headings (levels 1 and 2), paragraphs (`바탕글`) and tables.
    csv, html, text  the source file is the document.
"""

from __future__ import annotations

import io
import random
import re
import uuid
import zipfile
from pathlib import Path
from typing import Any

from ai_llm.evals.sets.markup import Block, Part, sheet_value
from ai_llm.evals.sets.spec import SetError

FIXED_TIME = (2026, 1, 5, 9, 0, 0)
_NS = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"


def fix_zip_times(path: Path) -> None:
    """Rewrite a zip package (docx, pptx, xlsx, hwpx) with fixed timestamps so rebuilds are identical."""
    source = zipfile.ZipFile(io.BytesIO(path.read_bytes()))
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as target:
        for info in source.infolist():
            fixed = zipfile.ZipInfo(info.filename, date_time=FIXED_TIME)
            fixed.compress_type = info.compress_type
            fixed.external_attr = info.external_attr
            data = source.read(info.filename)
            if info.filename == "docProps/core.xml":
                data = re.sub(rb"(<dcterms:(?:created|modified)[^>]*>)[^<]*(<)", rb"\g<1>2026-01-05T09:00:00Z\g<2>",
                              data)
            target.writestr(fixed, data)
    path.write_bytes(buffer.getvalue())


def _set_core(properties: Any, options: dict[str, Any], author_key: str = "author") -> None:
    import datetime as dt

    for key in ("title", "subject", "keywords"):
        if key in options and hasattr(properties, key):
            setattr(properties, key, str(options[key]))
    if author_key in options:
        setattr(properties, author_key, str(options[author_key]))
        if hasattr(properties, "last_modified_by"):
            properties.last_modified_by = str(options[author_key])
    properties.created = properties.modified = dt.datetime(*FIXED_TIME)
    if hasattr(properties, "revision"):
        properties.revision = 1


def _only(parts: list[Part], fmt: str) -> list[Block]:
    if len(parts) != 1 or parts[0].kind:
        raise SetError(f"a {fmt} document has no `===` parts")
    return parts[0].blocks


# --------------------------------------------------------------------------------------------------- DOCX
class _Footnotes:
    """Footnotes for python-docx, which has no API for them."""

    CT = "application/vnd.openxmlformats-officedocument.wordprocessingml.footnotes+xml"
    RT = "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footnotes"

    def __init__(self, doc: Any) -> None:
        from docx.enum.style import WD_STYLE_TYPE
        from docx.opc.packuri import PackURI
        from docx.opc.part import XmlPart
        from docx.oxml import parse_xml
        from docx.shared import Pt

        spacing = '<w:pPr><w:spacing w:after="0" w:line="240" w:lineRule="auto"/></w:pPr>'
        xml = (f'<w:footnotes xmlns:w="{_NS}">'
               f'<w:footnote w:type="separator" w:id="-1"><w:p>{spacing}<w:r><w:separator/></w:r></w:p></w:footnote>'
               f'<w:footnote w:type="continuationSeparator" w:id="0"><w:p>{spacing}<w:r><w:continuationSeparator/>'
               '</w:r></w:p></w:footnote></w:footnotes>')
        self.part = XmlPart(PackURI("/word/footnotes.xml"), self.CT, parse_xml(xml), doc.part.package)
        doc.part.relate_to(self.part, self.RT)
        self.next_id = 1
        names = {style.name for style in doc.styles}
        if "Footnote Text" not in names:
            text_style = doc.styles.add_style("Footnote Text", WD_STYLE_TYPE.PARAGRAPH)
            text_style.base_style = doc.styles["Normal"]
            text_style.font.size = Pt(8.5)
            text_style.paragraph_format.space_after = Pt(0)
        if "Footnote Reference" not in names:
            doc.styles.add_style("Footnote Reference", WD_STYLE_TYPE.CHARACTER).font.superscript = True

    def add(self, paragraph: Any, text: str) -> None:
        from xml.sax.saxutils import escape

        from docx.oxml import parse_xml

        number = self.next_id
        self.next_id += 1
        self.part.element.append(parse_xml(
            f'<w:footnote xmlns:w="{_NS}" w:id="{number}"><w:p><w:pPr><w:pStyle w:val="FootnoteText"/></w:pPr>'
            '<w:r><w:rPr><w:rStyle w:val="FootnoteReference"/></w:rPr><w:footnoteRef/></w:r>'
            f'<w:r><w:t xml:space="preserve"> {escape(text)}</w:t></w:r></w:p></w:footnote>'))
        run = paragraph.add_run()
        run._r.append(parse_xml(f'<w:rPr xmlns:w="{_NS}"><w:rStyle w:val="FootnoteReference"/></w:rPr>'))
        run._r.append(parse_xml(f'<w:footnoteReference xmlns:w="{_NS}" w:id="{number}"/>'))


def render_docx(parts: list[Part], options: dict[str, Any], out: Path) -> None:
    from docx import Document
    from docx.enum.style import WD_STYLE_TYPE
    from docx.shared import Cm, Pt, RGBColor

    doc = Document()
    section = doc.sections[0]
    section.left_margin = section.right_margin = Cm(float(options.get("margin_cm", 2.2)))
    doc.styles["Normal"].font.name = str(options.get("font", "Calibri"))
    doc.styles["Normal"].font.size = Pt(float(options.get("font_size", 10.5)))
    code_style = doc.styles.add_style("Source Code", WD_STYLE_TYPE.PARAGRAPH)
    code_style.base_style = doc.styles["Normal"]
    code_style.font.name = "Consolas"
    code_style.font.size = Pt(8.5)
    code_style.font.color.rgb = RGBColor(0x20, 0x20, 0x20)
    code_style.paragraph_format.space_before = Pt(2)
    code_style.paragraph_format.space_after = Pt(6)
    code_style.paragraph_format.left_indent = Pt(18)
    if "header" in options:
        section.header.paragraphs[0].text = str(options["header"])
    if "footer" in options:
        section.footer.paragraphs[0].text = str(options["footer"])
    footnotes: _Footnotes | None = None
    table_size = Pt(float(options.get("table_size", 9)))
    last: Any = None
    for block in _only(parts, "docx"):
        if block.kind == "heading":
            last = doc.add_heading(block.text, level=block.level)
        elif block.kind == "p":
            if block.style in ("", "italic", "bold"):
                last = doc.add_paragraph()
                run = last.add_run(block.text)
                run.italic = block.style == "italic" or None
                run.bold = block.style == "bold" or None
            else:
                name = block.style.replace("-", " ")
                if name not in {style.name for style in doc.styles}:
                    raise SetError(f"docx has no paragraph style {name!r}")
                last = doc.add_paragraph(block.text, style=name)
        elif block.kind == "item":
            style = "List Number" if block.style == "numbered" else "List Bullet"
            last = doc.add_paragraph(block.text, style=style + (f" {block.level + 1}" if block.level else ""))
        elif block.kind == "code":
            last = doc.add_paragraph(style="Source Code")
            lines = block.text.split("\n")
            for k, line in enumerate(lines):
                run = last.add_run(line)
                if k < len(lines) - 1:
                    run.add_break()
        elif block.kind == "table":
            _docx_table(doc, block.rows, table_size)
        elif block.kind == "footnote":
            if last is None:
                raise SetError("a footnote needs a paragraph before it")
            footnotes = footnotes or _Footnotes(doc)
            footnotes.add(last, block.text)
        else:
            raise SetError(f"a docx has no {block.kind}")
    _set_core(doc.core_properties, options)
    doc.save(str(out))
    fix_zip_times(out)


def _docx_table(doc: Any, rows: list[list[str]], size: Any) -> None:
    table = doc.add_table(rows=0, cols=len(rows[0]))
    table.style = doc.styles["Light Grid Accent 1"]
    for i, row in enumerate(rows):
        cells = table.add_row().cells
        for j, value in enumerate(row):
            for k, text in enumerate(value.split("\n")):
                paragraph = cells[j].paragraphs[0] if k == 0 else cells[j].add_paragraph()
                run = paragraph.add_run(text)
                run.font.size = size
                run.bold = i == 0 or None


# --------------------------------------------------------------------------------------------------- PPTX
def render_pptx(parts: list[Part], options: dict[str, Any], out: Path) -> None:
    from pptx import Presentation
    from pptx.util import Inches, Pt

    prs = Presentation()
    prs.slide_width, prs.slide_height = Inches(13.333), Inches(7.5)

    def place(shape: Any, left: float, top: float, width: float, height: float) -> None:
        shape.left, shape.top = Inches(left), Inches(top)
        shape.width, shape.height = Inches(width), Inches(height)

    def titled(layout: int, title: str) -> Any:
        slide = prs.slides.add_slide(prs.slide_layouts[layout])
        slide.shapes.title.text = title
        place(slide.shapes.title, 0.6, 0.3, 12.1, 1.0)
        for run in slide.shapes.title.text_frame.paragraphs[0].runs:
            run.font.size = Pt(30)
        return slide

    for part in parts:
        if part.kind != "slide":
            raise SetError("a pptx is made of `=== slide` parts")
        heads = [b.text for b in part.blocks if b.kind == "heading"]
        notes = [b.text for b in part.blocks if b.kind == "note"]
        title = heads[0] if heads else ""
        if part.label == "title":
            slide = prs.slides.add_slide(prs.slide_layouts[0])
            slide.shapes.title.text = title
            place(slide.shapes.title, 0.8, 2.0, 11.7, 1.5)
            slide.placeholders[1].text = "\n".join(b.text for b in part.blocks if b.kind == "p")
            place(slide.placeholders[1], 0.8, 3.8, 11.7, 1.6)
        elif part.label == "bullets":
            slide = titled(1, title)
            body = slide.placeholders[1]
            place(body, 0.6, 1.45, 12.1, 5.7)
            frame = body.text_frame
            frame.word_wrap = True
            bullets = [b for b in part.blocks if b.kind == "item"]
            total = sum(len(b.text) for b in bullets)
            size = int(part.options.get("size", 0)) or (
                20 if total < 400 else 18 if total < 650 else 16 if total < 900 else 14 if total < 1200 else 12)
            for k, bullet in enumerate(bullets):
                paragraph = frame.paragraphs[0] if k == 0 else frame.add_paragraph()
                paragraph.text = bullet.text
                paragraph.level = bullet.level
                for run in paragraph.runs:
                    run.font.size = Pt(size - 2 * bullet.level)
        elif part.label == "table":
            slide = titled(5, title)
            rows = next((b.rows for b in part.blocks if b.kind == "table"), None)
            if not rows:
                raise SetError(f"table slide {title!r} has no table")
            widths = [float(w) for w in part.options.get("widths", "").split(",") if w] or \
                [12.1 / len(rows[0])] * len(rows[0])
            size = int(part.options.get("size", 12))
            shape = slide.shapes.add_table(len(rows), len(rows[0]), Inches(0.6), Inches(1.5), Inches(sum(widths)),
                                           Inches(0.4 * len(rows)))
            for j, width in enumerate(widths):
                shape.table.columns[j].width = Inches(width)
            for i, row in enumerate(rows):
                for j, value in enumerate(row):
                    cell = shape.table.cell(i, j)
                    cell.text = value
                    for paragraph in cell.text_frame.paragraphs:
                        for run in paragraph.runs:
                            run.font.size = Pt(size)
                            run.font.bold = i == 0
        else:
            raise SetError(f"unknown slide kind {part.label!r} (title, bullets, table)")
        if notes:
            slide.notes_slide.notes_text_frame.text = "\n".join(notes)
    _set_core(prs.core_properties, options)
    prs.save(str(out))
    fix_zip_times(out)


# --------------------------------------------------------------------------------------------------- XLSX
def render_xlsx(parts: list[Part], options: dict[str, Any], out: Path) -> None:
    import datetime as dt

    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill

    book = Workbook()
    book.remove(book.active)
    fill = PatternFill("solid", fgColor="DDEBF7")
    for part in parts:
        if part.kind != "sheet" or not part.label:
            raise SetError("an xlsx is made of `=== sheet Name` parts")
        sheet = book.create_sheet(part.label)
        rows = [row for b in part.blocks if b.kind == "table" for row in b.rows]
        for row in rows:
            sheet.append([sheet_value(cell) for cell in row])
        if rows and part.options.get("header", "yes") == "yes":
            for cell in sheet[1]:
                cell.font = Font(bold=True)
                cell.fill = fill
        grouped = part.options.get("thousands", "no") == "yes"
        for line in sheet.iter_rows(min_row=2):
            for cell in line:
                cell.alignment = Alignment(wrap_text=isinstance(cell.value, str) and len(cell.value) > 40,
                                           vertical="top")
                if grouped and isinstance(cell.value, int):
                    cell.number_format = "#,##0"
        for k, width in enumerate(w for w in part.options.get("widths", "").split(",") if w):
            sheet.column_dimensions[chr(ord("A") + k)].width = float(width)
    book.properties.creator = str(options.get("creator", ""))
    book.properties.title = str(options.get("title", ""))
    book.properties.created = book.properties.modified = dt.datetime(*FIXED_TIME)
    book.save(str(out))
    fix_zip_times(out)


# --------------------------------------------------------------------------------------------------- HWPX/HWP
def render_hangul(parts: list[Part], options: dict[str, Any], out: Path) -> None:
    """HWPX, or HWP 5.0 when `out` ends in `.hwp` (python-hwpx decides by the suffix)."""
    import hwpx.oxml._document_impl as impl
    from hwpx import HwpxDocument

    rng = random.Random(out.name)  # paragraph ids from the file name: a rebuild is identical
    original = impl.uuid4
    impl.uuid4 = lambda: uuid.UUID(int=rng.getrandbits(128), version=4)
    try:
        document = HwpxDocument.new()
        for block in _only(parts, out.suffix[1:]):
            if block.kind == "heading":
                document.add_heading(block.text, level=block.level)
            elif block.kind == "p":
                document.add_paragraph(block.text, style="바탕글")
            elif block.kind == "table":
                table = document.add_table(len(block.rows), len(block.rows[0]))
                for i, row in enumerate(block.rows):
                    for j, value in enumerate(row):
                        table.set_cell_text(i, j, value)
                document.add_paragraph("", style="바탕글")
            else:
                raise SetError(f"a Hangul document has no {block.kind}")
        document.save_to_path(str(out))
    finally:
        impl.uuid4 = original
    if out.suffix == ".hwpx":
        fix_zip_times(out)
