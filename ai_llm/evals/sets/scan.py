"""Scanned documents: text drawn on pages with pinned fonts, made to look scanned, saved without a text layer.

Options (`[document.options]` of a `scan-pdf`, `scan-png` or `scan-tiff` document):
    regular, bold, mono     font names of `sources.FONTS` (mono defaults to regular)
    size_pt, line_gap       body size in points, line height as a multiple of the size (12, 1.45)
    page, margin            page and margins in inches ([8.27, 11.69], [0.95, 0.9])
    dpi                     pixels per inch (200)
    rescan_dpi              resample the degraded pages to this resolution, as a coarser scanner would
    header, footer          a line on every page; `{page}` and `{pages}` are filled in
    seed                    page k is degraded with seed + k; noise, specks, blur, paper, angle tune it
    photocopy               a copier look on top: binding-edge shadow, two punch holes, a toner streak
    binarize                turn pages black and white at this threshold
    posterize               keep this many bits of grey
    levels                  keep this many evenly spread grey levels (16: 0, 17, … 255)
    quality                 JPEG quality of the pages of a PDF (72)
Markup: `#` is the title, `##` and deeper are headings, `-` items; `::subtitle`, `::center`, `::right` and
`::bold` paragraphs; `::gap 1.5` leaves that many lines of space; a table is drawn across the text width with
heavy outer rules and a shaded head row, its rows of one height (its measures are the `PLAIN_TABLE` keys, each an
option).

`layout = "statute"` draws a Korean rules document instead (`render_statute`): a centred title (`#`), `::center`
lines in the small face, chapter headings (`##`), article lines whose `제N조(…)` title is bold, hanging indents
under `①`… and `1.` marks, and ruled tables with a shaded header row. Its faces are `regular` and `bold` plus
`small`, `heading`, `table` and `table_bold` (defaults: regular, bold, regular, bold); its measures are the
`STATUTE` keys, each an option.

`layout = "notice"` draws a Korean internal notice or guideline (공문, 지침; `render_notice`): a centred title
(`#`), `::center` lines in the small face, `::field` lines (수신, 참조, 시행일자) closed by a rule, numbered headings
(`##`), paragraphs indented with hanging `가.`, `1)`, `1.`, `①` and `※` marks, `::flush` paragraphs at the margin
(붙임), a `::right` signature line, `::page` breaks and ruled tables (`table_wrap = true`: cells wrap in columns
fitted to the width and a long table goes on on the next page); a running header (`header` left, `header_right`
right, a rule) and footer (`footer_left`, `footer` centred, a rule above) on every page; margins are [side, top,
bottom]. Its faces are `regular`, `bold`, `small`, `table` and `table_bold`; its measures are the `NOTICE` keys,
each an option.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from pathlib import Path
from typing import Any

from ai_llm.evals.sets.markup import Part
from ai_llm.evals.sets.sources import font_path
from ai_llm.evals.sets.spec import SetError

FIXED_TIME = dt.datetime(2026, 1, 5, 9, 0, 0)
_KINDS = ("title", "subtitle", "h", "p", "li", "code", "center", "right", "bold", "gap")


def items_of(parts: list[Part]) -> list[tuple[str, Any]]:
    """The (kind, value) lines a scan draws, from the document's markup: text, or a table's rows."""
    items: list[tuple[str, Any]] = []
    for part in parts:
        for block in part.blocks:
            if block.kind == "heading":
                items.append(("title" if block.level == 1 else "h", block.text))
            elif block.kind == "p":
                kind = block.style or "p"
                if kind not in _KINDS:
                    raise SetError(f"a scan has no paragraph kind {kind!r}; known: {', '.join(_KINDS)}")
                items.append((kind, block.text))
            elif block.kind == "item":
                items.append(("li", block.text))
            elif block.kind == "code":
                items.append(("code", block.text))
            elif block.kind == "table":
                items.append(("table", block.rows))
            else:
                raise SetError(f"a scan cannot draw a {block.kind}")
    return items


def _has_glyph(font: Any, ch: str, cache: dict[tuple[str, int, str], bool]) -> bool:
    key = (font.path, font.size, ch)
    if key not in cache:
        missing = font.getmask("\U000F0000")
        mask = font.getmask(ch)
        cache[key] = not (mask.size == missing.size and bytes(mask) == bytes(missing))
    return cache[key]


def _wrap(draw: Any, font: Any, text: str, width: float) -> list[str]:
    lines: list[str] = []
    current = ""
    for word in text.split(" "):
        candidate = f"{current} {word}" if current else word
        if draw.textlength(candidate, font=font) <= width:
            current = candidate
            continue
        if current:
            lines.append(current)
        while draw.textlength(word, font=font) > width:  # a word longer than a line: cut by characters
            k = len(word)
            while k > 1 and draw.textlength(word[:k], font=font) > width:
                k -= 1
            lines.append(word[:k])
            word = word[k:]
        current = word
    if current:
        lines.append(current)
    return lines


#: The measures of a table in the plain layout (options of the same name override them): the cells' size a multiple
#: of the body size, row height and column padding multiples of the cells' size, spaces before and after multiples
#: of the body size, fills grey levels.
PLAIN_TABLE: dict[str, Any] = {
    "table_scale": 0.9, "table_row": 2.0, "table_pad": 2.4, "table_before": 0.08, "table_after": 0.55,
    "table_rule": 25, "table_head_fill": 228,
}


def render_pages(items: list[tuple[str, Any]], fonts: dict[str, Path], options: dict[str, Any]) -> list[Any]:
    """Clean greyscale pages (PIL images) with the items drawn in order. A table spans the text width, its columns
    as wide as their widest bold cell, its rows of one height, with heavy rules around it (`PLAIN_TABLE`)."""
    from PIL import Image, ImageDraw, ImageFont

    dpi = int(options.get("dpi", 200))
    page_in = options.get("page", [8.27, 11.69])
    margin_in = options.get("margin", [0.95, 0.9])
    size_pt = float(options.get("size_pt", 11.0))
    line_gap = float(options.get("line_gap", 1.45))
    header, footer = options.get("header"), options.get("footer")
    width_px, height_px = int(page_in[0] * dpi), int(page_in[1] * dpi)
    mx, my = int(margin_in[0] * dpi), int(margin_in[1] * dpi)

    def px(pt: float) -> int:
        return int(round(pt / 72 * dpi))

    def font(name: str, scale: float) -> Any:
        return ImageFont.truetype(str(fonts[name]), px(size_pt * scale))

    faces = {"title": font("bold", 1.6), "subtitle": font("regular", 1.05), "h": font("bold", 1.2),
             "p": font("regular", 1), "li": font("regular", 1), "center": font("regular", 1),
             "right": font("regular", 1), "bold": font("bold", 1), "code": font("mono", 0.85)}
    small = font("regular", 0.8)
    t: dict[str, Any] = {key: options.get(key, value) for key, value in PLAIN_TABLE.items()}
    cells = (font("regular", float(t["table_scale"])), font("bold", float(t["table_scale"])))
    glyphs: dict[tuple[str, int, str], bool] = {}
    pages: list[Any] = []
    draw: Any = None
    y = 0

    def new_page() -> None:
        nonlocal draw, y
        image = Image.new("L", (width_px, height_px), 255)
        draw = ImageDraw.Draw(image)
        y = my
        pages.append(image)
        if header:
            draw.text((mx, my - px(size_pt * 2.2)), header, font=small, fill=90)

    new_page()
    width = width_px - 2 * mx
    for kind, raw in items:
        if kind == "gap":
            y += int(px(size_pt) * float(raw or 1))
            continue
        if kind == "table":
            rh = int(cells[0].size * float(t["table_row"]))
            top = y + int(px(size_pt) * float(t["table_before"]))
            if top + rh * len(raw) > height_px - my:
                new_page()
                top = y
            widths = _fit(_natural_widths(draw, raw, (cells[1], cells[1]), cells[0].size * float(t["table_pad"])),
                          width)
            y = _ruled_table(draw, raw, widths, mx, top, width, rh, cells, 25, int(t["table_head_fill"]),
                             int(t["table_rule"]), -0.05 * cells[0].size, frame=3, sides=3)
            y += int(px(size_pt) * float(t["table_after"]))
            continue
        face = faces[kind]
        text = "".join(c for c in raw if c in " \n" or _has_glyph(face, c, glyphs))
        indent = px(size_pt * 1.4) if kind == "li" else (px(size_pt * 1.2) if kind == "code" else 0)
        line_height = int(face.size * (1.2 if kind == "code" else line_gap))
        if kind == "code":
            lines: list[str] = []
            for source_line in text.split("\n"):
                lines.extend(_wrap(draw, face, source_line, width - indent) or [""])
        else:
            lines = _wrap(draw, face, text, width - indent - (px(size_pt) if kind == "li" else 0))
        before = {"title": 0.2, "subtitle": 0.1, "h": 0.9, "p": 0.35, "li": 0.15, "code": 0.3}.get(kind, 0.3)
        after = {"title": 0.8, "subtitle": 0.6, "h": 0.35}.get(kind, 0.2)
        if kind == "h" and y + line_height * 3 > height_px - my:
            new_page()
        y += int(px(size_pt) * before)
        for number, line in enumerate(lines):
            if y + line_height > height_px - my:
                new_page()
            x: float = mx + indent
            if kind == "li" and number == 0:
                draw.text((mx + indent - px(size_pt), y), "•", font=face, fill=25)
            if kind in ("title", "center", "subtitle"):
                x = (width_px - draw.textlength(line, font=face)) / 2
            elif kind == "right":
                x = width_px - mx - draw.textlength(line, font=face)
            draw.text((x, y), line, font=face, fill=25)
            y += line_height
        y += int(px(size_pt) * after)
    if footer:
        for k, image in enumerate(pages):
            page_draw = ImageDraw.Draw(image)
            line = str(footer).format(page=k + 1, pages=len(pages))
            page_draw.text(((width_px - page_draw.textlength(line, font=small)) / 2, height_px - my + px(size_pt)),
                           line, font=small, fill=90)
    return pages


def degrade(image: Any, seed: int, options: dict[str, Any]) -> Any:
    """A clean page made to look scanned: ink spread, paper tone, rotation under 1°, noise, specks, shading."""
    import numpy as np
    from PIL import Image, ImageFilter

    rng = random.Random(seed)
    angle = options.get("angle")
    if angle is None:
        angle = rng.uniform(0.25, 0.85) * rng.choice([-1, 1])
    paper = float(options.get("paper", 246))
    grey = image.filter(ImageFilter.GaussianBlur(float(options.get("blur", 0.55))))
    a = np.asarray(grey).astype(np.float32)
    a = paper - (255 - a) * (paper - 20) / 235.0
    grey = Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))
    grey = grey.rotate(angle, resample=Image.Resampling.BICUBIC, expand=False, fillcolor=int(paper))
    noise_rng = np.random.default_rng(seed)
    a = np.asarray(grey).astype(np.float32)
    a += noise_rng.normal(0, float(options.get("noise", 5.0)), a.shape)
    specks = float(options.get("specks", 0.0004))
    if specks:
        mask = noise_rng.random(a.shape) < specks
        a[mask] = noise_rng.uniform(40, 150, mask.sum())
    h, w = a.shape
    yy = np.linspace(-1, 1, h)[:, None]
    xx = np.linspace(-1, 1, w)[None, :]
    a -= 6 * (xx ** 2 + yy ** 2)
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


#: The measures of the statute layout (options of the same name override them): sizes are multiples of the body
#: size, spaces before/after multiples of the line height unless named otherwise, fills grey levels.
STATUTE: dict[str, Any] = {
    "line_gap": 1.62, "ink": 20,
    "title_scale": 1.7, "title_before": 0.3, "title_after": 1.7,        # before: of the body size; after: of the title
    "small_scale": 0.85, "center_ink": 60, "center_after": 1.6,         # after: of the small face's size
    "heading_scale": 1.1, "heading_before": 0.6, "heading_after": 1.15,
    "keep_with_next": False,                                            # true: a heading keeps its next item on its page;
                                                                        # "table": only a table; else 3 lines free below it
    "table_scale": 1.0, "table_pad": 1.6, "table_row": 1.15, "table_head_fill": 232,
    "table_text_dy": -2, "table_rule": 40, "table_after": 0.4,
    "circled_indent": 2.0, "numbered_indent": 2.0, "article_before": 0.25,  # indents: of the body size
    "header_ink": 80, "footer_dy": 1.0,                                 # footer_dy: of the body size, below the margin
    "header_rule_under": False, "header_rule_ink": 120, "header_rule_width": 1,  # under: the rule 3 pt under the
                                                                        # header's text, else 1.1 body sizes over the margin
}


def _natural_widths(draw: Any, rows: list[list[str]], fonts: tuple[Any, Any], pad: float) -> list[float]:
    """Each column's width: its widest cell (`fonts`: body, head) plus `pad`."""
    return [max(draw.textlength(row[c], font=fonts[1] if i == 0 else fonts[0]) for i, row in enumerate(rows)) + pad
            for c in range(len(rows[0]))]


def _fit(widths: list[float], width: float) -> list[float]:
    """`widths` scaled to add up to `width`."""
    return [w * width / sum(widths) for w in widths]


def _ruled_table(draw: Any, rows: list[list[str]], widths: list[float], x0: float, top: int, width: float, rh: int,
                 fonts: tuple[Any, Any], ink: int, head_fill: int, rule: int, text_dy: float, frame: int = 2,
                 sides: int = 1) -> int:
    """Draw `rows` as a ruled table from (`x0`, `top`), `width` wide: each cell's text centred (`fonts`: body, head),
    the head row shaded, rules 2 px under the head and `frame` px above and under the table, the outer sides
    `sides` px. Returns the y under the table."""
    y = top
    for i, row in enumerate(rows):
        if i == 0:
            draw.rectangle([x0, top, x0 + width, top + rh], fill=head_fill)
        x = x0
        for c, value in enumerate(row):
            face = fonts[1] if i == 0 else fonts[0]
            dx = (widths[c] - draw.textlength(value, font=face)) / 2
            draw.text((x + dx, y + (rh - face.size) / 2 + text_dy), value, font=face, fill=ink)
            x += widths[c]
        y += rh
    for i in range(len(rows) + 1):
        draw.line([x0, top + i * rh, x0 + width, top + i * rh], fill=rule,
                  width=frame if i in (0, len(rows)) else 2 if i == 1 else 1)
    x = x0
    for c in range(len(widths) + 1):
        draw.line([x, top, x, top + rh * len(rows)], fill=rule, width=sides if c in (0, len(widths)) else 1)
        if c < len(widths):
            x += widths[c]
    return y


def statute_items(parts: list[Part]) -> list[tuple[str, Any]]:
    """The (kind, value) lines of a statute scan: h1, h2, center, p (text) and table (rows)."""
    items: list[tuple[str, Any]] = []
    for part in parts:
        for block in part.blocks:
            if block.kind == "heading":
                items.append(("h1" if block.level == 1 else "h2", block.text))
            elif block.kind == "p" and block.style in ("", "center"):
                items.append((block.style or "p", block.text))
            elif block.kind == "table":
                items.append(("table", block.rows))
            else:
                what = f"::{block.style}" if block.style else block.kind
                raise SetError(f"a statute scan draws headings, paragraphs, ::center lines and tables, not {what!r}")
    return items


def render_statute(items: list[tuple[str, Any]], fonts: dict[str, Path], options: dict[str, Any]) -> list[Any]:
    """Clean greyscale pages of a Korean rules document (see the module's docstring)."""
    from PIL import Image, ImageDraw, ImageFont

    m: dict[str, Any] = {key: options.get(key, value) for key, value in STATUTE.items()}
    dpi = int(options.get("dpi", 200))
    page_in = options.get("page", [8.27, 11.69])
    margin_in = options.get("margin", [0.95, 0.85])
    size_pt = float(options.get("size_pt", 11.5))
    header, footer = options.get("header"), options.get("footer", "- {page} -")
    width_px, height_px = int(page_in[0] * dpi), int(page_in[1] * dpi)
    mx, my = int(margin_in[0] * dpi), int(margin_in[1] * dpi)

    def px(pt: float) -> int:
        return int(round(pt / 72 * dpi))

    def font(role: str, scale: float) -> Any:
        return ImageFont.truetype(str(fonts[role]), px(size_pt * scale))

    reg, bold = font("regular", 1), font("bold", 1)
    title, small = font("bold", float(m["title_scale"])), font("small", float(m["small_scale"]))
    hfont = font("heading", float(m["heading_scale"]))
    cell, cell_bold = font("table", float(m["table_scale"])), font("table_bold", float(m["table_scale"]))
    ink = int(m["ink"])
    lh = int(reg.size * float(m["line_gap"]))
    rh = int(lh * float(m["table_row"]))
    pages: list[tuple[Any, Any]] = []
    y = 0
    width = width_px - 2 * mx

    def new_page() -> None:
        nonlocal y
        image = Image.new("L", (width_px, height_px), 255)
        draw = ImageDraw.Draw(image)
        pages.append((image, draw))
        y = my
        if header:
            draw.text((mx, my - px(size_pt * 2.4)), header, font=small, fill=int(m["header_ink"]))
            rule_y = (my - px(size_pt * 2.4) + small.size + px(3)) if m["header_rule_under"] else my - px(size_pt * 1.1)
            draw.line([mx, rule_y, width_px - mx, rule_y], fill=int(m["header_rule_ink"]),
                      width=int(m["header_rule_width"]))

    def need(height: int) -> None:
        if y + height > height_px - my:
            new_page()

    def text(x: float, line: str, face: Any, fill: int = ink) -> None:
        pages[-1][1].text((x, y), line, font=face, fill=fill)

    new_page()
    for index, (kind, value) in enumerate(items):
        draw = pages[-1][1]
        if kind == "h1":
            y += px(size_pt * float(m["title_before"]))
            text((width_px - draw.textlength(value, font=title)) / 2, value, title)
            y += int(title.size * float(m["title_after"]))
        elif kind == "center":
            text((width_px - draw.textlength(value, font=small)) / 2, value, small, int(m["center_ink"]))
            y += int(small.size * float(m["center_after"]))
        elif kind == "h2":
            following = items[index + 1] if index + 1 < len(items) else None
            keep = m["keep_with_next"]
            if keep and following and following[0] == "table":
                need(int(lh * 2.2) + rh * len(following[1]) + lh)
            elif keep is True:
                need(int(lh * 2.2) + lh * 2)
            else:
                need(lh * 3)
            y += int(lh * float(m["heading_before"]))
            text(mx, value, hfont)
            y += int(lh * float(m["heading_after"]))
        elif kind == "p":
            mark = re.match(r"^([①-⑳] |\d+\. |※ )", value)
            article = re.match(r"^(제\d+조\([^)]*\))", value)
            base = mx
            if mark and re.match(r"^[①-⑳]", value):
                base = mx + px(size_pt * float(m["circled_indent"]))
            elif mark and mark.group(1)[0].isdigit():
                base = mx + px(size_pt * float(m["numbered_indent"]))
            hang = base + (int(draw.textlength(mark.group(1), font=reg)) if mark else 0)
            if article:
                y += int(lh * float(m["article_before"]))
            lines = _wrap(draw, reg, value, width_px - mx - base)
            first, rest = lines[0], " ".join(lines[1:])
            need(lh)
            if article and first.startswith(article.group(1)):
                text(base, article.group(1), bold)
                tail = first[len(article.group(1)):]
                if tail:
                    page_draw = pages[-1][1]
                    page_draw.text((base + int(page_draw.textlength(article.group(1), font=bold)), y), tail,
                                   font=reg, fill=ink)
            else:
                text(base, first, reg)
            y += lh
            for line in _wrap(draw, reg, rest, width_px - mx - hang) if rest else []:
                need(lh)
                text(hang, line, reg)
                y += lh
        elif kind == "table":
            rows: list[list[str]] = value
            widths = _fit(_natural_widths(draw, rows, (cell, cell), px(size_pt * float(m["table_pad"]))), width)
            need(rh * len(rows) + lh)
            y += int(lh * 0.2)
            y = _ruled_table(pages[-1][1], rows, widths, mx, y, width, rh, (cell, cell_bold), ink,
                             int(m["table_head_fill"]), int(m["table_rule"]), int(m["table_text_dy"]))
            y += int(lh * float(m["table_after"]))
        else:
            raise SetError(f"a statute scan has no {kind}")
    for k, (_, page_draw) in enumerate(pages):
        line = str(footer).format(page=k + 1, pages=len(pages))
        page_draw.text(((width_px - page_draw.textlength(line, font=small)) / 2,
                        height_px - my + px(size_pt * float(m["footer_dy"]))), line, font=small, fill=90)
    return [image for image, _ in pages]


#: The measures of the notice layout (options of the same name override them): sizes are multiples of the body
#: size, spaces multiples of the line height unless named otherwise, fills grey levels.
NOTICE: dict[str, Any] = {
    "line_gap": 1.6, "ink": 22,
    "title_scale": 1.55, "title_before": 0.4, "title_after": 1.9,        # before: of the body size; after: of the title
    "heading_scale": 1.08, "heading_before": 0.45, "heading_after": 1.1, "field_after": 0.95,
    "small_scale": 0.8, "header_ink": 70, "header_dy": 2.6, "header_rule_ink": 90,  # header_dy: of the body size
    "header_rule_dy": 3,                                                # points under the header's text
    "footer_ink": 80, "footer_dy": 1.4, "footer_rule_ink": 120,         # footer_dy: of the body size, below the margin
    "footer_rule_dy": 5,                                                # points over the footer's text
    "center_ink": 60, "center_after": 2.4,                              # after: of the small face's size
    "indent": 1.2, "numbered_indent": 2.6, "paragraph_after": 0.0,      # indents: of the body size
    "table_scale": 0.88, "table_pad": 1.4, "table_row": 2.0, "table_head_fill": 228,  # table_row: of the cell size
    "table_rule": 35, "table_before": 0.15, "table_after": 0.35, "right_before": 1.2,
    "table_indent": 1.2,                                                # of the body size
    "table_wrap": False,                                                # true: cells wrap, rows run over pages
    "table_line": 1.45, "table_row_pad": 0.7,                           # wrapped rows: line height of the cell size,
                                                                        # padding of the body size
}

#: The marks a notice paragraph hangs its lines from: 가. 1) 1. ① ※.
_NOTICE_MARK = re.compile(r"^([가-하]\. |\d+[.)] |[①-⑳] |※ )")


def notice_items(parts: list[Part]) -> list[tuple[str, Any]]:
    """The (kind, value) lines of a notice scan: h1, h2, field, center, p, flush, right, page (text) and table
    (rows)."""
    items: list[tuple[str, Any]] = []
    for part in parts:
        for block in part.blocks:
            if block.kind == "heading":
                items.append(("h1" if block.level == 1 else "h2", block.text))
            elif block.kind == "p" and block.style in ("", "field", "center", "flush", "right", "page"):
                items.append((block.style or "p", block.text))
            elif block.kind == "table":
                items.append(("table", block.rows))
            else:
                what = f"::{block.style}" if block.style else block.kind
                raise SetError(f"a notice scan draws headings, paragraphs, ::field, ::center, ::flush, ::right and "
                               f"::page lines and tables, not {what!r}")
    return items


def render_notice(items: list[tuple[str, Any]], fonts: dict[str, Path], options: dict[str, Any]) -> list[Any]:
    """Clean greyscale pages of a Korean internal notice (공문; see the module's docstring)."""
    from PIL import Image, ImageDraw, ImageFont

    m: dict[str, Any] = {key: options.get(key, value) for key, value in NOTICE.items()}
    dpi = int(options.get("dpi", 200))
    page_in = options.get("page", [8.27, 11.69])
    margin_in = options.get("margin", [0.95, 1.05, 1.0])
    size_pt = float(options.get("size_pt", 11.0))
    header, header_right = options.get("header", ""), options.get("header_right", "")
    footer, footer_left = options.get("footer", "- {page} / {pages} -"), options.get("footer_left", "")
    width_px, height_px = int(page_in[0] * dpi), int(page_in[1] * dpi)
    mx, top_px, bottom_px = (int(v * dpi) for v in margin_in)

    def px(pt: float) -> int:
        return int(round(pt / 72 * dpi))

    def font(role: str, scale: float) -> Any:
        return ImageFont.truetype(str(fonts[role]), px(size_pt * scale))

    reg, title, hfont = font("regular", 1), font("bold", float(m["title_scale"])), font("bold", float(m["heading_scale"]))
    small = font("small", float(m["small_scale"]))
    cell, cell_bold = font("table", float(m["table_scale"])), font("table_bold", float(m["table_scale"]))
    ink = int(m["ink"])
    lh = int(reg.size * float(m["line_gap"]))
    pages: list[tuple[Any, Any]] = []
    y = 0
    previous = ""

    def new_page() -> None:
        nonlocal y, previous
        image = Image.new("L", (width_px, height_px), 255)
        draw = ImageDraw.Draw(image)
        pages.append((image, draw))
        hy = top_px - px(size_pt * float(m["header_dy"]))
        draw.text((mx, hy), header, font=small, fill=int(m["header_ink"]))
        draw.text((width_px - mx - draw.textlength(header_right, font=small), hy), header_right, font=small,
                  fill=int(m["header_ink"]))
        rule_y = hy + small.size + px(float(m["header_rule_dy"]))
        draw.line([mx, rule_y, width_px - mx, rule_y], fill=int(m["header_rule_ink"]), width=2)
        y, previous = top_px, "page"

    def room(height: int) -> None:
        if y + height > height_px - bottom_px:
            new_page()

    def text(x: float, line: str, face: Any, fill: int = ink) -> None:
        pages[-1][1].text((x, y), line, font=face, fill=fill)

    def wrapped_table(rows: list[list[str]], x0: int) -> None:
        """A ruled table whose cells wrap and whose rows go on on the next page when they reach the bottom; in a
        table of two columns the first column's body cells are set flush left."""
        nonlocal y
        draw = pages[-1][1]
        width = width_px - mx - x0
        pad = px(size_pt * float(m["table_pad"]))
        faces = (cell, cell_bold)
        widths = _natural_widths(draw, rows, faces, pad)
        if sum(widths) <= width:
            widths = _fit(widths, width)
        else:  # the widest column gives way and its cells wrap
            wide = max(range(len(widths)), key=lambda c: widths[c])
            widths[wide] = width - (sum(widths) - widths[wide])
        line = int(cell.size * float(m["table_line"]))
        lines = [[_wrap(draw, faces[i == 0], value, widths[c] - pad) for c, value in enumerate(row)]
                 for i, row in enumerate(rows)]
        heights = [max(len(cell_lines) for cell_lines in row) * line + px(size_pt * float(m["table_row_pad"]))
                   for row in lines]
        inset = px(size_pt * float(m["table_row_pad"]) / 2)
        rule, last = int(m["table_rule"]), len(rows) - 1
        room(sum(heights[:2]) + lh)
        y += int(lh * float(m["table_before"]))
        for i, row_lines in enumerate(lines):
            room(heights[i])
            page_draw = pages[-1][1]
            if i == 0:
                page_draw.rectangle([x0, y, x0 + width, y + heights[i]], fill=int(m["table_head_fill"]))
            x: float = x0
            for c, cell_lines in enumerate(row_lines):
                for k, text_line in enumerate(cell_lines):
                    centred = i == 0 or c > 0 or len(widths) > 2
                    dx = (widths[c] - page_draw.textlength(text_line, font=faces[i == 0])) / 2 if centred else pad / 2
                    page_draw.text((x + dx, y + inset + k * line), text_line, font=faces[i == 0], fill=ink)
                x += widths[c]
            page_draw.line([x0, y, x0 + width, y], fill=rule, width=2 if i <= 1 else 1)
            x = x0
            for c in range(len(widths) + 1):
                page_draw.line([x, y, x, y + heights[i]], fill=rule, width=1)
                if c < len(widths):
                    x += widths[c]
            y += heights[i]
            page_draw.line([x0, y, x0 + width, y], fill=rule, width=2 if i == last else 1)
        y += int(lh * float(m["table_after"]))

    new_page()
    for kind, value in items:
        draw = pages[-1][1]
        if kind == "page":
            new_page()
        elif kind == "h1":
            y += px(size_pt * float(m["title_before"]))
            text((width_px - draw.textlength(value, font=title)) / 2, value, title)
            y += int(title.size * float(m["title_after"]))
        elif kind == "field":
            room(lh)
            text(mx, value, reg)
            y += int(lh * float(m["field_after"]))
        elif kind == "center":
            text((width_px - draw.textlength(value, font=small)) / 2, value, small, int(m["center_ink"]))
            y += int(small.size * float(m["center_after"]))
        elif kind == "h2":
            if previous == "field":  # a rule closes the lines of fields (수신, 참조, 시행일자) above the body
                draw.line([mx, y + px(4), width_px - mx, y + px(4)], fill=40, width=3)
                y += px(size_pt * 0.9)
            room(lh * 3)
            y += int(lh * float(m["heading_before"]))
            text(mx, value, hfont)
            y += int(lh * float(m["heading_after"]))
        elif kind in ("p", "flush"):
            mark = _NOTICE_MARK.match(value)
            base = mx + px(size_pt * float(m["indent"]))
            if mark and mark.group(1)[0].isdigit():
                base = mx + px(size_pt * float(m["numbered_indent"]))
            if kind == "flush":
                base = mx
            hang = base + (int(draw.textlength(mark.group(1), font=reg)) if mark else 0)
            lines = _wrap(draw, reg, value, width_px - mx - base)
            room(lh)
            text(base, lines[0], reg)
            y += lh
            rest = " ".join(lines[1:])
            for line in _wrap(draw, reg, rest, width_px - mx - hang) if rest else []:
                room(lh)
                text(hang, line, reg)
                y += lh
            y += int(lh * float(m["paragraph_after"]))
        elif kind == "right":
            y += int(lh * float(m["right_before"]))
            room(lh)
            text(width_px - mx - draw.textlength(value, font=hfont), value, hfont)
            y += lh
        elif kind == "table":
            rows: list[list[str]] = value
            x0 = mx + px(size_pt * float(m["table_indent"]))
            if m["table_wrap"]:
                wrapped_table(rows, x0)
            else:
                table_width = width_px - mx - x0
                pad = px(size_pt * float(m["table_pad"]))
                widths = _fit(_natural_widths(draw, rows, (cell, cell), pad), table_width)
                rh = int(cell.size * float(m["table_row"]))
                room(rh * len(rows) + lh)
                table_draw = pages[-1][1]
                y += int(lh * float(m["table_before"]))
                y = _ruled_table(table_draw, rows, widths, x0, y, table_width, rh, (cell, cell_bold), ink,
                                 int(m["table_head_fill"]), int(m["table_rule"]), -2)
                y += int(lh * float(m["table_after"]))
        else:
            raise SetError(f"a notice scan has no {kind}")
        if kind != "page":
            previous = kind
    for k, (_, page_draw) in enumerate(pages):
        fy = height_px - bottom_px + px(size_pt * float(m["footer_dy"]))
        rule_y = fy - px(float(m["footer_rule_dy"]))
        page_draw.line([mx, rule_y, width_px - mx, rule_y], fill=int(m["footer_rule_ink"]), width=1)
        page_draw.text((mx, fy), footer_left, font=small, fill=int(m["footer_ink"]))
        line = str(footer).format(page=k + 1, pages=len(pages))
        page_draw.text(((width_px - page_draw.textlength(line, font=small)) / 2, fy), line, font=small,
                       fill=int(m["footer_ink"]))
    return [image for image, _ in pages]


def photocopy(image: Any, seed: int) -> Any:
    """A degraded page made to look photocopied: a shadow along the binding edge, two punch-hole shadows and a
    faint toner streak."""
    import numpy as np
    from PIL import Image

    rng = random.Random(seed)
    a = np.asarray(image).astype(np.float32)
    h, w = a.shape
    xx = np.arange(w)[None, :]
    a -= 55 * np.exp(-xx / 38.0)
    yy = np.arange(h)[:, None]
    for cy in (int(h * 0.3), int(h * 0.7)):
        r2 = (xx - 70) ** 2 + (yy - cy) ** 2
        a = np.where(r2 < 34 ** 2, a * 0.35 + 40, a)
    sx = rng.randint(int(w * 0.55), int(w * 0.8))
    a[:, sx:sx + 3] -= 14
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def render_scan(parts: list[Part], fmt: str, options: dict[str, Any], cache: Path, out: Path) -> None:
    """Draw, degrade and save a scan (`fmt`: scan-pdf, scan-png or scan-tiff)."""
    from PIL import ImageOps

    regular, bold = options.get("regular"), options.get("bold")
    if not regular or not bold:
        raise SetError("a scan needs `regular` and `bold` font names")
    layout = options.get("layout", "plain")
    if layout == "statute":
        names = {"regular": regular, "bold": bold, "small": options.get("small", regular),
                 "heading": options.get("heading", bold), "table": options.get("table", regular),
                 "table_bold": options.get("table_bold", bold)}
        fonts = {role: font_path(str(name), cache) for role, name in names.items()}
        pages = render_statute(statute_items(parts), fonts, options)
    elif layout == "notice":
        names = {"regular": regular, "bold": bold, "small": options.get("small", regular),
                 "table": options.get("table", regular), "table_bold": options.get("table_bold", bold)}
        fonts = {role: font_path(str(name), cache) for role, name in names.items()}
        pages = render_notice(notice_items(parts), fonts, options)
    elif layout == "plain":
        names = {"regular": regular, "bold": bold, "mono": options.get("mono", regular)}
        fonts = {role: font_path(str(name), cache) for role, name in names.items()}
        pages = render_pages(items_of(parts), fonts, options)
    else:
        raise SetError(f"unknown scan layout {layout!r} (plain, statute, notice)")
    seed = int(options.get("seed", 0))
    scans = [degrade(page, seed + k, options) for k, page in enumerate(pages)]
    if options.get("photocopy"):
        scans = [photocopy(scan, seed + k) for k, scan in enumerate(scans)]
    dpi = int(options.get("dpi", 200))
    if "rescan_dpi" in options:
        ratio, dpi = int(options["rescan_dpi"]) / dpi, int(options["rescan_dpi"])
        scans = [s.resize((int(s.width * ratio), int(s.height * ratio))) for s in scans]
    if "binarize" in options:
        threshold = int(options["binarize"])
        scans = [s.point(lambda v: 255 if v > threshold else 0, mode="1") for s in scans]
    if "posterize" in options:
        scans = [ImageOps.posterize(s, int(options["posterize"])) for s in scans]
    if "levels" in options:
        step, scale = 256 // int(options["levels"]), 255 // (int(options["levels"]) - 1)
        scans = [s.point(lambda v: (v // step) * scale) for s in scans]
    if fmt == "scan-pdf":
        scans[0].save(out, "PDF", save_all=True, append_images=scans[1:], resolution=float(dpi),
                      quality=int(options.get("quality", 72)), creationDate=FIXED_TIME.timetuple(),
                      modDate=FIXED_TIME.timetuple(), producer="scanner")
    elif fmt == "scan-png":
        if len(scans) != 1:
            raise SetError(f"a PNG scan is one page; the text fills {len(scans)}")
        scans[0].save(out, dpi=(dpi, dpi), optimize=True)
    else:
        scans[0].save(out, "TIFF", save_all=True, append_images=scans[1:], dpi=(dpi, dpi),
                      compression=str(options.get("compression", "group4" if "binarize" in options else "tiff_lzw")))
