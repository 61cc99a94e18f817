"""Scanned documents: text drawn on pages with pinned fonts, made to look scanned, saved without a text layer.

Options (`[document.options]` of a `scan-pdf`, `scan-png` or `scan-tiff` document):
    regular, bold, mono     font names of `sources.FONTS` (mono defaults to regular)
    size_pt, line_gap       body size in points, line height as a multiple of the size (12, 1.45)
    page, margin            page and margins in inches ([8.27, 11.69], [0.95, 0.9])
    dpi                     pixels per inch (200)
    header, footer          a line on every page; `{page}` and `{pages}` are filled in
    seed                    page k is degraded with seed + k; noise, specks, blur, paper, angle tune it
    binarize                turn pages black and white at this threshold
    posterize               keep this many bits of grey
    quality                 JPEG quality of the pages of a PDF (72)
Markup: `#` is the title, `##` and deeper are headings, `-` items; `::subtitle`, `::center`, `::right` and
`::bold` paragraphs; `::gap 1.5` leaves that many lines of space.
"""

from __future__ import annotations

import datetime as dt
import random
from pathlib import Path
from typing import Any

from ai_llm.evals.sets.markup import Part
from ai_llm.evals.sets.sources import font_path
from ai_llm.evals.sets.spec import SetError

FIXED_TIME = dt.datetime(2026, 1, 5, 9, 0, 0)
_KINDS = ("title", "subtitle", "h", "p", "li", "code", "center", "right", "bold", "gap")


def items_of(parts: list[Part]) -> list[tuple[str, str]]:
    """The (kind, text) lines a scan draws, from the document's markup."""
    items: list[tuple[str, str]] = []
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


def render_pages(items: list[tuple[str, str]], fonts: dict[str, Path], options: dict[str, Any]) -> list[Any]:
    """Clean greyscale pages (PIL images) with the items drawn in order."""
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


def render_scan(parts: list[Part], fmt: str, options: dict[str, Any], cache: Path, out: Path) -> None:
    """Draw, degrade and save a scan (`fmt`: scan-pdf, scan-png or scan-tiff)."""
    from PIL import ImageOps

    names = {"regular": options.get("regular"), "bold": options.get("bold"),
             "mono": options.get("mono", options.get("regular"))}
    if not names["regular"] or not names["bold"]:
        raise SetError("a scan needs `regular` and `bold` font names")
    fonts = {role: font_path(str(name), cache) for role, name in names.items()}
    pages = render_pages(items_of(parts), fonts, options)
    seed = int(options.get("seed", 0))
    scans = [degrade(page, seed + k, options) for k, page in enumerate(pages)]
    if "binarize" in options:
        threshold = int(options["binarize"])
        scans = [s.point(lambda v: 255 if v > threshold else 0, mode="1") for s in scans]
    if "posterize" in options:
        scans = [ImageOps.posterize(s, int(options["posterize"])) for s in scans]
    dpi = int(options.get("dpi", 200))
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
