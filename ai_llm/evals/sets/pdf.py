r"""Text PDFs (`text-pdf`): a document's text laid out with reportlab, so the PDF has a real text layer.

Options (`[document.options]`):
    layout        `guide` (default: centred title, a footer line drawn before the page's text, headings 1–3) or
                  `manual` (left title, a footer drawn after it, headings 1–5 kept with the next paragraph);
                  `LAYOUTS` holds their measures and `_styles` their paragraph styles
    page          `letter` or `a4` (default: the layout's)
    size          the body font size in points (default: the layout's)
    font, bold, mono   font names: a standard PDF font (Helvetica, Courier, …) or one of `sources.FONTS`
    title, subtitle    the first two lines, in the title styles; `title` is also the PDF's title
    author        the PDF's author
    footer        a line centred at the foot of every page; `footer_left`, `footer_right`: at the margins.
                  `{page}` is the page number, `{title}` the title
    margins_mm    [left, right, top, bottom]
    code_wrap     code lines longer than this many characters are broken (Preformatted's `maxLineLength`)
    inline_marks  true: headings, paragraphs, items and cells read `**bold**`, `*italic*` and `` `code` `` (set in
                  the mono font); a backslash makes the next character literal. false (default): plain text

Markup: headings, paragraphs, `::note` (indented) and `::term` (bold) paragraphs, `::page` (a page break),
items (`-` bulleted, `+` numbered: a numbered item right after another of the same depth continues its count),
code blocks and tables. The PDF is written with reportlab's `invariant`, so a rebuild gives the same bytes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any
from xml.sax.saxutils import escape

from ai_llm.evals.sets.markup import Block, Part
from ai_llm.evals.sets.sources import font_path
from ai_llm.evals.sets.spec import SetError

#: Page sizes (reportlab's).
PAGES = ("letter", "a4")

#: The measures of each layout; the options page, size, font, bold, mono, margins_mm and code_wrap override
#: theirs. Margins and the footer's height are in millimetres, sizes in points.
LAYOUTS: dict[str, dict[str, Any]] = {
    "guide": {"page": "letter", "size": 10.0, "font": "Helvetica", "bold": "Helvetica-Bold", "mono": "Courier",
              "margins_mm": [22, 22, 20, 22], "footer_mm": 12, "footer_size": 8, "footer_first": True,
              "code_wrap": 88},
    "manual": {"page": "a4", "size": 9.5, "font": "DejaVuSans", "bold": "DejaVuSans-Bold",
               "mono": "DejaVuSansMono", "margins_mm": [20, 20, 20, 20], "footer_mm": 12, "footer_size": 8,
               "footer_first": False, "code_wrap": 100},
}
_OPTIONS = {"layout", "page", "size", "font", "bold", "mono", "title", "subtitle", "author", "footer",
            "footer_left", "footer_right", "margins_mm", "code_wrap", "inline_marks"}
_KINDS = ("note", "term", "page")


def _styles(layout: str, font: str, bold: str, mono: str, size: float) -> dict[str, Any]:
    """The paragraph styles of a layout: title, subtitle, h1…, p, item, note, term, code and cell."""
    from reportlab.lib.enums import TA_CENTER
    from reportlab.lib.styles import ParagraphStyle as S

    heads: list[tuple[float, float, float, float]]  # (size, leading, space before, space after) by level
    if layout == "guide":
        body = S("p", fontName=font, fontSize=size, leading=size * 1.4, spaceAfter=size * 0.5)
        heads = [(16, 21, 14, 8), (13, 17, 10, 6), (11, 15, 8, 4)]
        styles = {
            "title": S("title", fontName=bold, fontSize=20, leading=26, spaceAfter=6, alignment=TA_CENTER),
            "subtitle": S("subtitle", fontName=font, fontSize=10, leading=14, spaceAfter=18, alignment=TA_CENTER),
            "item": S("item", parent=body, leftIndent=14, bulletIndent=4, spaceAfter=size * 0.3),
            "code": S("code", fontName=mono, fontSize=size * 0.85, leading=size * 1.15, leftIndent=12,
                      spaceAfter=size * 0.6, spaceBefore=2),
        }
    else:
        body = S("p", fontName=font, fontSize=size, leading=size * 1.45, spaceAfter=5)
        heads = [(h, h * 1.35, 14 if level == 0 else 10, 5) for level, h in enumerate((14, 12.5, 11, 10.5, 10))]
        styles = {
            "title": S("title", fontName=bold, fontSize=16, leading=21, spaceAfter=6),
            "subtitle": S("subtitle", fontName=font, fontSize=8.5, leading=12, spaceAfter=12),
            "item": S("item", parent=body, leftIndent=14, bulletIndent=4, spaceAfter=3),
            "code": S("code", fontName=mono, fontSize=7.8, leading=10, leftIndent=12, spaceAfter=6, spaceBefore=2),
        }
    for level, (fs, leading, before, after) in enumerate(heads, 1):
        styles[f"h{level}"] = S(f"h{level}", fontName=bold, fontSize=fs, leading=leading, spaceBefore=before,
                                spaceAfter=after, keepWithNext=layout == "manual")
    styles["item"].bulletFontName, styles["item"].bulletFontSize = font, size
    styles["p"] = body
    styles["note"] = S("note", parent=body, leftIndent=12, rightIndent=12)
    styles["term"] = S("term", parent=body, fontName=bold, spaceAfter=2)
    styles["cell"] = S("cell", parent=body, fontSize=size * 0.9, leading=size * 1.2, spaceAfter=0)
    return styles


def segments(text: str) -> list[tuple[str, bool, bool, bool]]:
    """The runs of a line with inline marks: (text, bold, italic, code). `**` toggles bold, `*` italic and a
    backtick code (inside code `*` is literal); a backslash makes the next character literal."""
    runs: list[tuple[str, bool, bool, bool]] = []
    chars: list[str] = []
    bold = italic = code = False
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text):
            chars.append(text[i + 1])
            i += 2
            continue
        if ch == "`" or (ch == "*" and not code):
            if chars:
                runs.append(("".join(chars), bold, italic, code))
                chars = []
            if ch == "`":
                code = not code
            elif text.startswith("**", i):
                bold = not bold
                i += 1
            else:
                italic = not italic
            i += 1
            continue
        chars.append(ch)
        i += 1
    if bold or italic or code:
        raise SetError(f"an inline mark is never closed in {text[:80]!r}")
    if chars:
        runs.append(("".join(chars), bold, italic, code))
    return runs


def _xml(text: str, mono: str, marks: bool) -> str:
    """A line as reportlab paragraph markup: escaped, with `<b>`, `<i>` and the mono font where marked."""
    if not marks:
        return escape(text)
    out = []
    for run, bold, italic, code in segments(text):
        piece = escape(run)
        if italic:
            piece = f"<i>{piece}</i>"
        if bold:
            piece = f"<b>{piece}</b>"
        if code:
            piece = f'<font face="{mono}">{piece}</font>'
        out.append(piece)
    return "".join(out)


def _register(names: dict[str, str], cache: Path) -> None:
    """Register the document's fonts with reportlab (pinned ones from `sources`), with bold for `<b>`."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import TTFont

    for name in names.values():
        if name not in pdfmetrics.standardFonts and name not in pdfmetrics.getRegisteredFontNames():
            pdfmetrics.registerFont(TTFont(name, str(font_path(name, cache))))
    regular, bold, mono = names["font"], names["bold"], names["mono"]
    if regular not in pdfmetrics.standardFonts:
        pdfmetrics.registerFontFamily(regular, normal=regular, bold=bold, italic=regular, boldItalic=bold)
    if mono not in pdfmetrics.standardFonts and mono != regular:
        pdfmetrics.registerFontFamily(mono, normal=mono, bold=mono, italic=mono, boldItalic=mono)


def _settings(options: dict[str, Any]) -> dict[str, Any]:
    """The layout's measures with the options over them, checked."""
    unknown = set(options) - _OPTIONS
    if unknown:
        raise SetError(f"unknown text-pdf options {sorted(unknown)}; known: {', '.join(sorted(_OPTIONS))}")
    layout = options.get("layout", "guide")
    if layout not in LAYOUTS:
        raise SetError(f"unknown text-pdf layout {layout!r}; known: {', '.join(LAYOUTS)}")
    m = {**LAYOUTS[layout], **options, "layout": layout}
    if m["page"] not in PAGES:
        raise SetError(f"unknown page size {m['page']!r}; known: {', '.join(PAGES)}")
    if not isinstance(m["size"], int | float) or not 4 <= m["size"] <= 40:
        raise SetError(f"`size` must be a font size in points (got {m['size']!r})")
    margins = m["margins_mm"]
    if not (isinstance(margins, list) and len(margins) == 4 and all(isinstance(v, int | float) for v in margins)):
        raise SetError(f"`margins_mm` must be [left, right, top, bottom] (got {margins!r})")
    if not isinstance(m["code_wrap"], int) or m["code_wrap"] < 20:
        raise SetError(f"`code_wrap` must be a line length of at least 20 (got {m['code_wrap']!r})")
    if not isinstance(m.get("inline_marks", False), bool):
        raise SetError("`inline_marks` must be true or false")
    for key in ("footer", "footer_left", "footer_right"):
        try:
            str(m.get(key, "")).format(page=1, title="")
        except (KeyError, IndexError, ValueError) as exc:
            raise SetError(f"`{key}` may name only {{page}} and {{title}} (got {m[key]!r})") from exc
    return m


def _table(rows: list[list[str]], styles: dict[str, Any], text: Any, width: float) -> Any:
    """A ruled table of paragraphs, its first row bold on grey."""
    from reportlab.lib import colors
    from reportlab.platypus import Paragraph, Table, TableStyle

    columns = max(len(row) for row in rows)
    cells = [[Paragraph(f"<b>{text(cell)}</b>" if number == 0 else text(cell), styles["cell"]) for cell in row]
             + [""] * (columns - len(row)) for number, row in enumerate(rows)]
    table = Table(cells, colWidths=[width / columns] * columns, repeatRows=1, hAlign="LEFT")
    table.setStyle(TableStyle([("GRID", (0, 0), (-1, -1), 0.5, colors.grey),
                               ("BACKGROUND", (0, 0), (-1, 0), colors.HexColor("#e8e8e8")),
                               ("VALIGN", (0, 0), (-1, -1), "TOP")]))
    return table


def _story(blocks: list[Block], styles: dict[str, Any], m: dict[str, Any], width: float) -> list[Any]:
    """The flowables of a document's blocks (after the title lines)."""
    from reportlab.platypus import PageBreak, Paragraph, Preformatted, Spacer

    marks = bool(m.get("inline_marks", False))

    def text(line: str) -> str:
        return _xml(line, m["mono"], marks)

    flowables: list[Any] = []
    numbers: dict[int, int] = {}
    last_heading = max(int(key[1:]) for key in styles if key[0] == "h" and key[1:].isdigit())
    for block in blocks:
        if block.kind != "item":
            numbers.clear()
        if block.kind == "heading":
            flowables.append(Paragraph(text(block.text), styles[f"h{min(block.level, last_heading)}"]))
        elif block.kind == "p" and block.style == "page":
            flowables.append(PageBreak())
        elif block.kind == "p":
            if block.style and block.style not in _KINDS:
                raise SetError(f"a text PDF has no paragraph kind {block.style!r}; known: {', '.join(_KINDS)}")
            flowables.append(Paragraph(text(block.text), styles[block.style or "p"]))
        elif block.kind == "item":
            for deeper in [level for level in numbers if level > block.level]:
                del numbers[deeper]
            if block.style == "numbered":
                numbers[block.level] = numbers.get(block.level, 0) + 1
                bullet = f"{numbers[block.level]}."
            else:
                numbers.pop(block.level, None)
                bullet = "\u2022"
            style = styles["item"]
            if block.level:
                indent = 14 * block.level
                style = style.clone(f"item{block.level}", leftIndent=style.leftIndent + indent,
                                    bulletIndent=style.bulletIndent + indent)
            flowables.append(Paragraph(text(block.text), style, bulletText=bullet))
        elif block.kind == "code":
            flowables.append(Preformatted(block.text, styles["code"], maxLineLength=m["code_wrap"],
                                          newLineChars=""))
        elif block.kind == "table":
            flowables += [_table(block.rows, styles, text, width), Spacer(1, styles["p"].spaceAfter)]
        else:
            raise SetError(f"a text PDF cannot show a {block.kind} (no footnotes or speaker notes)")
    return flowables


def render_text_pdf(parts: list[Part], options: dict[str, Any], cache: Path, out: Path) -> None:
    """Lay out a document's blocks as a text PDF at `out` (see the module's options)."""
    from reportlab.lib.pagesizes import A4, LETTER
    from reportlab.lib.units import mm
    from reportlab.platypus import BaseDocTemplate, Frame, PageTemplate, Paragraph

    if out.suffix != ".pdf":
        raise SetError("a text-pdf document's file name must end in .pdf")
    if len(parts) != 1 or parts[0].kind:
        raise SetError("a text-pdf document has no `===` parts")
    m = _settings(options)
    names = {key: str(m[key]) for key in ("font", "bold", "mono")}
    _register(names, cache)
    styles = _styles(m["layout"], names["font"], names["bold"], names["mono"], float(m["size"]))
    title, subtitle = str(m.get("title", "")), str(m.get("subtitle", ""))
    left, right, top, bottom = (v * mm for v in m["margins_mm"])
    page = {"letter": LETTER, "a4": A4}[m["page"]]
    doc = BaseDocTemplate(str(out), pagesize=page, leftMargin=left, rightMargin=right,
                          topMargin=top, bottomMargin=bottom, title=title, author=str(m.get("author", "")),
                          invariant=1)
    flowables = [Paragraph(escape(line), styles[key]) for key, line in (("title", title), ("subtitle", subtitle))
                 if line]
    flowables += _story(parts[0].blocks, styles, m, doc.width)

    def footer(canvas: Any, document: Any) -> None:
        values = {"page": canvas.getPageNumber(), "title": title}
        y = m["footer_mm"] * mm
        canvas.saveState()
        canvas.setFont(names["font"], m["footer_size"])
        if m.get("footer"):
            canvas.drawCentredString(page[0] / 2, y, str(m["footer"]).format(**values))
        if m.get("footer_left"):
            canvas.drawString(left, y, str(m["footer_left"]).format(**values))
        if m.get("footer_right"):
            canvas.drawRightString(page[0] - right, y, str(m["footer_right"]).format(**values))
        canvas.restoreState()

    frame = Frame(doc.leftMargin, doc.bottomMargin, doc.width, doc.height, id="body")
    hook = {"onPage": footer} if m["footer_first"] else {"onPageEnd": footer}
    doc.addPageTemplates([PageTemplate(id="page", frames=[frame], **hook)])
    try:
        doc.build(flowables)
    except ValueError as exc:
        raise SetError(f"reportlab could not lay out the text: {exc}") from exc
