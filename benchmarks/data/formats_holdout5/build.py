#!/usr/bin/env python3
"""Rebuild formats_holdout5 from downloaded public sources and the Korean texts written for this set, then
check the QA file against the built files.

    python build.py [--src /tmp/h5src] [--out DIR] [--fonts /usr/share/fonts/truetype] [--ko-fonts DIR] [--qa FILE]

--src must hold (see SOURCES.md):
    tomlkit-0.15.3/  babel-2.19.0/  wrapt-2.5.2/     (PyPI sdists, unpacked)
Fonts: Liberation (fonts-liberation) under --fonts; NanumMyeongjo / NanumGothic (fonts-nanum, unpacked with
dpkg-deb -x) under --ko-fonts.
Needs python-hwpx, python-docx, python-pptx, openpyxl, Pillow, numpy, pypdf.

The six Korean documents (invented company 주식회사 온길물류) are original writing kept in ko_texts.py. The four
English documents copy their sentences from the sources; the build only re-arranges them and adds layout.
After building, every file is opened again with its own library and every item of the QA file
(../rag_formats_holdout5.jsonl, written by qa_items.py) is checked: answer inside evidence, evidence inside
the file's text at the named location / page (whitespace-insensitive), evidence unique in its file, and for
near-miss items: no answer fields, and none of the proxy strings of qa_items.NEAR_MISS_PROXIES anywhere in
the set. For the image-only scans the text of a page is what the renderer drew on it (scan_pages.json).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from html import escape
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True
# fmtlib.py (the shared, unchanged helper module), beside this set's folder: benchmarks/data/fmtlib.py
sys.path.insert(0, str(HERE.parent))
sys.path.insert(0, str(HERE))
import fmtlib as F  # noqa: E402
import ko_texts as K  # noqa: E402

SET = "formats_holdout5"
AUTHOR = "온길물류"
SCAN_PAGES: dict[str, list[list[str]]] = {}

FILES = {
    "hwpx": "ongil_safety_health_rules_2025.hwpx",
    "hwp": "ongil_heatwave_work_plan_2026.hwp",
    "scan_ko": "ongil_cargo_claim_rules_scan.pdf",
    "docx_ko": "ongil_owms32_inout_manual.docx",
    "pptx": "ongil_2025q4_operations_report.pptx",
    "xlsx": "ongil_2026-01_delivery_results.xlsx",
    "csv": "tomlkit_changes_0.14-0.15.3.csv",
    "docx_en": "babel_number_formatting.docx",
    "html": "babel_message_catalogs.html",
    "scan_en": "wrapt_readme_scan.pdf",
}


# ---------------------------------------------------------------------------
# Korean originals: small markup -> parts
# ---------------------------------------------------------------------------
def ko_lines(text: str):
    out = []
    for line in text.strip("\n").split("\n"):
        if line.startswith("| "):
            cells = [c.strip() for c in line[2:].rstrip(" |").split(" | ")]
            if out and out[-1][0] == "table":
                assert len(cells) == len(out[-1][1][0]), line
                out[-1][1].append(cells)
            else:
                out.append(("table", [cells]))
        elif line.startswith("=== "):
            out.append(("h3", line[4:]))
        elif line.startswith("== "):
            out.append(("h2", line[3:]))
        elif line.startswith("= "):
            out.append(("h1", line[2:]))
        elif line.startswith("# "):
            out.append(("H1", line[2:]))
        elif line.startswith("## "):
            out.append(("H2", line[3:]))
        elif line.startswith("^ "):
            out.append(("fn", line[2:]))
        elif line.startswith("> "):
            out.append(("center", line[2:]))
        elif line.startswith("※ "):
            out.append(("note", line))
        elif line.strip():
            out.append(("p", line))
    return out


def build_hwpx(out: Path):
    parts = [("p", v) if k in ("center", "note") else (k, v) for k, v in ko_lines(K.SAFETY_RULES)]
    return F.hwp_write(parts, out / FILES["hwpx"])


def build_hwp(out: Path):
    parts = []
    for k, v in ko_lines(K.HEAT_PLAN):
        if k in ("center", "note"):
            parts.append(("p", v))
        elif k == "h3":
            parts.append(("h2", v))
        elif k == "h2":
            parts.append(("h1", v))
        else:
            parts.append((k, v))
    return F.hwp_write(parts, out / FILES["hwp"])  # .hwp suffix: python-hwpx writes HWP 5.0 binary


# ---------------------------------------------------------------------------
# Korean scan: statute layout, running header on every page, page footer, 3 pages
# ---------------------------------------------------------------------------
def render_ko_rules(lines, ko_fonts: Path, *, header, size_pt=11.0, dpi=200, footer="- {page} / {pages} -"):
    from PIL import Image, ImageDraw
    W, H = int(8.27 * dpi), int(11.69 * dpi)
    mx, my = int(0.95 * dpi), int(0.95 * dpi)
    px = lambda pt: int(round(pt / 72 * dpi))
    reg = F._font(ko_fonts / "NanumMyeongjo.ttf", px(size_pt))
    bold = F._font(ko_fonts / "NanumMyeongjoBold.ttf", px(size_pt))
    title = F._font(ko_fonts / "NanumMyeongjoBold.ttf", px(size_pt * 1.7))
    small = F._font(ko_fonts / "NanumGothic.ttf", px(size_pt * 0.8))
    hfont = F._font(ko_fonts / "NanumMyeongjoBold.ttf", px(size_pt * 1.1))
    lh = int(reg.size * 1.62)
    pages, drawn = [], []
    st = {"y": 0}

    def new_page():
        img = Image.new("L", (W, H), 255)
        d = ImageDraw.Draw(img)
        pages.append((img, d))
        drawn.append([header])
        # running header: text at the left, a rule under it
        hy = my - px(size_pt * 2.4)
        d.text((mx, hy), header, font=small, fill=80)
        d.line([mx, hy + small.size + px(3), W - mx, hy + small.size + px(3)], fill=110, width=2)
        st["y"] = my

    def text(x, s, font, fill=20):
        pages[-1][1].text((x, st["y"]), s, font=font, fill=fill)
        drawn[-1].append(s)

    def need(h):
        if st["y"] + h > H - my:
            new_page()

    new_page()
    width = W - 2 * mx
    for n, (kind, v) in enumerate(lines):
        d = pages[-1][1]
        if kind == "h1":
            st["y"] += px(size_pt * 0.3)
            text((W - d.textlength(v, font=title)) / 2, v, title)
            st["y"] += int(title.size * 1.7)
        elif kind == "center":
            text((W - d.textlength(v, font=small)) / 2, v, small, fill=60)
            st["y"] += int(small.size * 1.6)
        elif kind == "h2":
            nxt = lines[n + 1] if n + 1 < len(lines) else None
            # a 별표 heading stays on the page of its table
            need(lh * 3 if not nxt or nxt[0] != "table" else int(lh * 2.2) + int(lh * 1.15) * len(nxt[1]) + lh)
            st["y"] += int(lh * 0.6)
            text(mx, v, hfont)
            st["y"] += int(lh * 1.15)
        elif kind in ("p", "note"):
            m = re.match(r"^([①-⑳] |\d+\. |※ )", v)
            art = re.match(r"^(제\d+조\([^)]*\))", v)
            base = mx + (px(size_pt * 1.0) if m and re.match(r"^[①-⑳]", v) else 0)
            if m and m.group(1)[0].isdigit():
                base = mx + px(size_pt * 2.0)
            hang = base + (int(d.textlength(m.group(1), font=reg)) if m else 0)
            if art:
                st["y"] += int(lh * 0.25)
            ls = F._wrap(d, reg, v, W - mx - base)
            first, rest = ls[0], " ".join(ls[1:])
            need(lh)
            if art and first.startswith(art.group(1)):
                text(base, art.group(1), bold)
                tail = first[len(art.group(1)):]
                if tail:
                    d2 = pages[-1][1]
                    d2.text((base + int(d2.textlength(art.group(1), font=bold)), st["y"]), tail, font=reg, fill=20)
                    drawn[-1][-1] = first
            else:
                text(base, first, reg)
            st["y"] += lh
            if rest:
                for l in F._wrap(d, reg, rest, W - mx - hang):
                    need(lh)
                    text(hang, l, reg)
                    st["y"] += lh
        elif kind == "table":
            rows = v
            ncol = len(rows[0])
            colw = [max(d.textlength(r[c], font=reg) for r in rows) + px(size_pt * 1.6) for c in range(ncol)]
            colw = [w * width / sum(colw) for w in colw]
            rh = int(lh * 1.15)
            need(rh * len(rows) + lh)
            st["y"] += int(lh * 0.2)
            top = st["y"]
            dd = pages[-1][1]
            for i, r in enumerate(rows):
                x = mx
                if i == 0:
                    dd.rectangle([mx, st["y"], mx + width, st["y"] + rh], fill=228)
                for c, cell in enumerate(r):
                    f = bold if i == 0 else reg
                    dd.text((x + (colw[c] - dd.textlength(cell, font=f)) / 2, st["y"] + (rh - reg.size) / 2 - 2),
                            cell, font=f, fill=20)
                    x += colw[c]
                drawn[-1].append(" ".join(r))
                st["y"] += rh
            for i in range(len(rows) + 1):
                dd.line([mx, top + i * rh, mx + width, top + i * rh], fill=40, width=2 if i in (0, 1, len(rows)) else 1)
            x = mx
            for c in range(ncol + 1):
                dd.line([x, top, x, top + rh * len(rows)], fill=40, width=1)
                if c < ncol:
                    x += colw[c]
            st["y"] += int(lh * 0.4)
    for k, (img, d) in enumerate(pages):
        t = footer.format(page=k + 1, pages=len(pages))
        d.text(((W - d.textlength(t, font=small)) / 2, H - my + px(size_pt * 1.2)), t, font=small, fill=90)
        drawn[k].append(t)
    return [p[0] for p in pages], drawn


def build_scan_ko(ko_fonts: Path, out: Path):
    pages, drawn = render_ko_rules(ko_lines(K.CARGO_RULES), ko_fonts, header=K.CARGO_HEADER)
    assert len(pages) == 3, len(pages)
    # a tired office copier: stronger blur / noise / specks than a clean scan, slight skew per page
    scans = [F.degrade(p, seed=5501 + k, noise=7.0, specks=0.0008, blur=0.75, paper=240)[0]
             for k, p in enumerate(pages)]
    path = out / FILES["scan_ko"]
    F.save_pdf_scan(scans, path, quality=60)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# Korean DOCX: OWMS 3.2 manual (headings, 3 tables, footnotes)
# ---------------------------------------------------------------------------
def build_docx_ko(out: Path):
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.oxml.ns import qn
    from docx.shared import Pt
    doc = Document()
    st = doc.styles["Normal"]
    st.font.name = "맑은 고딕"
    st.element.rPr.rFonts.set(qn("w:eastAsia"), "맑은 고딕")
    st.font.size = Pt(10.5)
    fns = F.DocxFootnotes(doc)
    last = None
    lines = ko_lines(K.WMS_MANUAL)
    for k, v in lines:
        if k == "h1":
            doc.add_heading(v, level=0)
        elif k == "center":
            p = doc.add_paragraph(v)
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
        elif k == "H1":
            doc.add_heading(v, level=1)
        elif k == "H2":
            doc.add_heading(v, level=2)
        elif k == "p":
            last = doc.add_paragraph(v)
        elif k == "fn":
            fns.add(last, v)
        elif k == "table":
            F.docx_table(doc, v[0], v[1:], size=9.5)
            doc.add_paragraph()
    sec = doc.sections[0]
    sec.header.paragraphs[0].text = "온길물류 물류혁신팀 | OWMS 3.2 입출고 처리 매뉴얼 | 사내 한정"
    F.docx_core(doc, "OWMS 3.2 입출고 처리 매뉴얼", "창고관리시스템 사용자 매뉴얼", AUTHOR, "OWMS, WMS, 입고, 출고")
    path = out / FILES["docx_ko"]
    doc.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# Korean PPTX: 2025 Q4 operations report, every slide with speaker notes
# ---------------------------------------------------------------------------
def build_pptx(out: Path):
    prs = F._pptx()
    for s in K.REPORT_SLIDES:
        kind = s[0]
        if kind == "title":
            F.slide_title(prs, s[1], s[2], notes=s[3])
        elif kind == "table":
            header, rows, widths = s[2]
            F.slide_table(prs, s[1], header, rows, widths, notes=s[3], size=16)
        else:
            F.slide_bullets(prs, s[1], s[2], notes=s[3], size=24)
    F.pptx_core(prs, K.REPORT_SLIDES[0][1], "분기 운영 실적", "온길물류 운영본부")
    path = out / FILES["pptx"]
    prs.save(path)
    F.fix_zip_times(path)
    return path, len(prs.slides)


# ---------------------------------------------------------------------------
# Korean XLSX: January 2026 delivery results, two sheets
# ---------------------------------------------------------------------------
def build_xlsx(out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    wb = Workbook()
    wb.remove(wb.active)
    for name, (header, rows) in K.XLSX_SHEETS.items():
        ws = wb.create_sheet(name)
        ws.append(header)
        for r in rows:
            ws.append(r)
        for c in ws[1]:
            c.font = Font(bold=True)
            c.fill = PatternFill("solid", fgColor="DDEBF7")
            c.alignment = Alignment(horizontal="center")
        for row in ws.iter_rows(min_row=2):
            for c in row:
                if isinstance(c.value, int) and c.value >= 1000:
                    c.number_format = "#,##0"
        for j, _ in enumerate(header):
            col = ws.cell(1, j + 1).column_letter
            ws.column_dimensions[col].width = 30 if header[j] in ("비고", "정비 내용") else 14
        ws.freeze_panes = "A2"
    wb.properties.creator = "온길물류 운영본부"
    wb.properties.title = "2026년 1월 배송 실적"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / FILES["xlsx"]
    wb.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# CSV: tomlkit CHANGELOG.md, releases 0.14.0 – 0.15.3
# ---------------------------------------------------------------------------
def tomlkit_rows(tk: Path):
    rows = []
    version = date = section = None
    for line in (tk / "CHANGELOG.md").read_text(encoding="utf-8").split("\n"):
        m = re.match(r"^## \[(\d[\w.]*)\] - (\d{4}-\d\d-\d\d)\s*$", line)
        if m:
            version, date, section = m.group(1), m.group(2), None
            if version == "0.13.3":
                break
            continue
        m = re.match(r"^#{2,3} (\w+)\s*$", line)  # "### Changed" (0.14.0 spells one "## Fixed")
        if m and version:
            section = m.group(1)
            continue
        if line.startswith("- ") and version and section:
            refs = re.findall(r"\[(#\d+)\]\(https://github\.com/python-poetry/tomlkit/(?:pull|issues)/\d+\)", line)
            text = F.plain(F.md_inline(line[2:]))
            text = re.sub(r"\s*\((?:#\d+(?:,\s*)?)+\)\s*$", "", text)  # the trailing "(#704)" link list
            text = re.sub(r",\s*$", ".", text)  # "…, (#527)" in the source
            rows.append([version, date, section, text, " ".join(refs)])
    return rows


def build_csv(tk: Path, out: Path):
    rows = tomlkit_rows(tk)
    path = out / FILES["csv"]
    F.write_csv(path, ["version", "release_date", "section", "change", "references"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# English DOCX: Babel "Number Formatting" (docs/numbers.rst) with its grid table as a Word table
# ---------------------------------------------------------------------------
def grid_tables(text: str):
    """Replace reStructuredText grid tables with a marker paragraph GRIDTABLEn; return (text, tables)."""
    lines = text.split("\n")
    out, tables, i = [], [], 0
    while i < len(lines):
        if re.match(r"^\s*\+-+\+", lines[i]):
            block = []
            while i < len(lines) and lines[i].strip().startswith(("+", "|")):
                block.append(lines[i].strip())
                i += 1
            rows, cur = [], None
            for l in block:
                if l.startswith("+"):
                    if cur is not None:
                        rows.append([F.squash(" ".join(c)) for c in cur])
                    cur = None
                    continue
                cells = [c.strip() for c in l.strip("|").split("|")]
                if cur is None:
                    cur = [[] for _ in cells]
                for k, c in enumerate(cells):
                    if c:
                        cur[k].append(c)
            tables.append([[F.rst_inline(c) for c in r] for r in rows])
            out += ["", f"GRIDTABLE{len(tables) - 1}", ""]
            continue
        out.append(lines[i])
        i += 1
    return "\n".join(out), tables


def no_overlines(text: str) -> str:
    """A title with an over- and underline (=====/Title/=====) -> title underlined with "#", a character the sections do not use, so it stays level 1."""
    return re.sub(r"(?m)^([=\-~^*#])\1{2,}[ \t]*\n(.+)\n\1{3,}[ \t]*$", lambda m: m.group(2) + "\n" + "#" * max(3, len(m.group(2))), text)


def put_tables(blocks, tables):
    res = []
    for b in blocks:
        if b[0] == "p" and re.fullmatch(r"GRIDTABLE\d+", b[1]):
            res.append(("table", tables[int(b[1][9:])]))
        else:
            res.append(b)
    return res


def build_docx_en(bb: Path, out: Path):
    from docx import Document
    from docx.shared import Pt
    text, tables = grid_tables(no_overlines((bb / "docs/numbers.rst").read_text(encoding="utf-8")))
    blocks = put_tables(F.parse_rst(text), tables)
    doc = Document()
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    F.docx_blocks(doc, blocks)
    doc.sections[0].header.paragraphs[0].text = "Babel 2.19.0 documentation — Number Formatting"
    F.docx_core(doc, "Number Formatting", "Babel 2.19.0 documentation", "The Babel Team", "babel, numbers")
    path = out / FILES["docx_en"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, len(tables)


# ---------------------------------------------------------------------------
# HTML: Babel "Working with Message Catalogs" (docs/messages.rst) in a documentation-site page
# ---------------------------------------------------------------------------
HTML_TMPL = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — Babel 2.19.0 documentation</title>
<link rel="canonical" href="https://babel.pocoo.org/en/latest/messages.html">
<style>
body {{ margin: 0; font-family: Georgia, "Times New Roman", serif; color: #222; background: #fff; }}
.site-header {{ border-bottom: 1px solid #ddd; padding: 0.6em 2em; display: flex; justify-content: space-between; align-items: center; }}
.site-header .logo {{ font-size: 1.6em; font-weight: bold; color: #444; text-decoration: none; }}
.site-header ul {{ list-style: none; display: flex; gap: 1.4em; margin: 0; padding: 0; font-family: sans-serif; font-size: 0.9em; }}
.site-header a {{ color: #2a5db0; text-decoration: none; }}
.layout {{ display: flex; max-width: 1100px; margin: 0 auto; }}
aside.sidebar {{ width: 240px; padding: 1.5em 1em; font-family: sans-serif; font-size: 0.85em; border-right: 1px solid #eee; }}
aside.sidebar h3 {{ font-size: 1em; text-transform: uppercase; color: #666; }}
aside.sidebar ul {{ padding-left: 1em; }}
aside.sidebar input {{ width: 95%; }}
main {{ flex: 1; padding: 1.5em 2.5em; line-height: 1.55; }}
pre {{ background: #f4f4f4; padding: 0.7em; overflow-x: auto; font-size: 0.85em; }}
.admonition {{ background: #fcf8e3; border-left: 4px solid #e0c060; padding: 0.4em 1em; }}
footer.site-footer {{ border-top: 1px solid #ddd; padding: 1em 2em; font-size: 0.8em; color: #777; font-family: sans-serif; }}
#cookie-notice {{ position: fixed; bottom: 1em; right: 1em; max-width: 340px; background: #333; color: #f0f0f0; padding: 1em;
  border-radius: 6px; font-family: sans-serif; font-size: 0.85em; }}
</style>
</head>
<body>
<header class="site-header">
  <a class="logo" href="index.html">Babel</a>
  <nav aria-label="Main">
    <ul>
      <li><a href="index.html">Documentation</a></li>
      <li><a href="installation.html">Installation</a></li>
      <li><a href="api/index.html">API Reference</a></li>
      <li><a href="changelog.html">Changelog</a></li>
      <li><a href="https://github.com/python-babel/babel">Source on GitHub</a></li>
    </ul>
  </nav>
</header>
<div class="layout">
<aside class="sidebar">
  <form class="search" action="search.html" method="get" role="search">
    <input type="text" name="q" placeholder="Quick search" aria-label="Quick search">
  </form>
  <nav aria-label="Table of contents">
  <h3>Table of Contents</h3>
  <ul>
{toc}
  </ul>
  <h3>Navigation</h3>
  <ul>
    <li>Previous: <a href="numbers.html">Number Formatting</a></li>
    <li>Next: <a href="cmdline.html">Command-Line Interface</a></li>
  </ul>
  </nav>
</aside>
<main>
<div class="related" role="navigation" aria-label="Breadcrumbs"><a href="index.html">Babel 2.19.0 documentation</a> » {title}</div>
<article class="body" role="main">
{body}
</article>
</main>
</div>
<footer class="site-footer">
  <p>© Copyright 2026, The Babel Team. Created using Sphinx.</p>
  <p>Page source: docs/messages.rst in the Babel 2.19.0 source distribution. Babel is released under the BSD 3-Clause licence.</p>
  <p><a href="privacy.html">Privacy</a> · <a href="https://github.com/python-babel/babel/issues">Report a problem</a></p>
</footer>
<div id="cookie-notice" role="dialog" aria-label="Cookie notice">
  <p>We use cookies to remember your preferences and to count visits to this documentation. You can accept all cookies or keep only the ones that are strictly necessary.</p>
  <button type="button" id="cookie-accept">Accept all</button>
  <button type="button" id="cookie-necessary">Necessary only</button>
</div>
<script>
['cookie-accept', 'cookie-necessary'].forEach(function (id) {{
  document.getElementById(id).addEventListener('click', function () {{
    document.getElementById('cookie-notice').hidden = true;
  }});
}});
</script>
</body>
</html>
"""


def build_html(bb: Path, out: Path):
    blocks = F.parse_rst(no_overlines((bb / "docs/messages.rst").read_text(encoding="utf-8")))
    title = F.plain(next(b for b in blocks if b[0] == "h")[2])
    toc = []
    for b in blocks:
        if b[0] == "h" and b[1] in (2, 3):
            ind = "    " if b[1] == 2 else "      "
            toc.append(f'{ind}<li><a href="#{F.slug(b[2])}">{escape(F.plain(b[2]))}</a></li>')
    html = HTML_TMPL.format(title=escape(title), toc="\n".join(toc), body=F.html_blocks(blocks))
    path = out / FILES["html"]
    path.write_text(html, encoding="utf-8")
    return path, sum(1 for b in blocks if b[0] == "h")


# ---------------------------------------------------------------------------
# English scan: wrapt README.md, 2 pages
# ---------------------------------------------------------------------------
def render_traced(items, fonts, **kw):
    from PIL import ImageDraw
    calls = []
    orig = ImageDraw.ImageDraw.text

    def text(self, xy, t, *a, **k):
        calls.append((id(self.im), t))
        return orig(self, xy, t, *a, **k)
    ImageDraw.ImageDraw.text = text
    try:
        pages = F.render_pages(items, fonts, **kw)
    finally:
        ImageDraw.ImageDraw.text = orig
    ids = [id(p.im) for p in pages]
    return pages, [[t for i, t in calls if i == pid and t != "•"] for pid in ids]


def build_scan_en(wr: Path, fonts_dir: Path, out: Path):
    text = (wr / "README.md").read_text(encoding="utf-8")
    text = text[: text.index("## Links")]  # the closing link list and the 14-link blog list are left out
    blocks = F.parse_md(text)
    items = F.blocks_to_items(blocks)
    lib = fonts_dir / "liberation"
    fonts = F.Fonts(lib / "LiberationSerif-Regular.ttf", lib / "LiberationSerif-Bold.ttf", lib / "LiberationMono-Regular.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=9.0, page_in=(8.27, 11.69), margin_in=(0.8, 0.7),
                                 line_gap=1.28, header="wrapt 2.5.2 — README (printed copy)",
                                 footer="wrapt README — page {page} of {pages}")
    assert len(pages) == 2, len(pages)
    scans = [F.degrade(p, seed=5601 + k, noise=6.0, specks=0.0006)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_en"]
    F.save_pdf_scan(scans, path, quality=65)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ").replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", "", s)


def read_units(path: Path):
    """(units, pages): units = [(location, text)] in reading order; pages = page texts (scans) or None."""
    ext = path.suffix.lower()
    units: list[tuple[str, str]] = []
    if ext in (".hwpx", ".hwp"):
        from hwpx import HwpxDocument
        d = HwpxDocument.open(path)
        head = None
        for p in d.paragraphs:
            t = p.text if isinstance(p.text, str) else str(p.text)
            if not t.strip() and not p.tables:
                continue
            m = re.match(r"^(제\d+조(?:의\d+)?)[ (]", t)
            if str(p.style_id_ref) not in ("0", "None", ""):  # a heading (add_heading styles)
                head = t.strip()
            elif m:
                head = m.group(1)
            for tb in p.tables:
                for r in range(tb.row_count):
                    units.append((head or "", " ".join(tb.cell(r, c).text for c in range(tb.column_count))))
            if t.strip():
                units.append((head or "", t))
        return units, None
    if ext == ".docx":
        from docx import Document
        from docx.table import Table
        from docx.text.paragraph import Paragraph
        d = Document(path)
        head = ""
        fn_head = {}
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading") or p.style.name == "Title":
                    head = p.text
                units.append((head, p.text))
                for fid in re.findall(r'footnoteReference w:id="(\d+)"', el.xml):
                    fn_head[fid] = head
            elif tag == "tbl":
                for row in Table(el, d).rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        for r in d.part.rels.values():
            if r.reltype.endswith("/footnotes"):
                xml = r.target_part.blob.decode("utf-8")
                for fid, body in re.findall(r'<w:footnote [^>]*w:id="(\d+)"[^>]*>(.*?)</w:footnote>', xml, re.S):
                    if fid in fn_head:  # a footnote belongs to the section of the paragraph that cites it
                        units.append((fn_head[fid], re.sub(r"<[^>]+>", "", body).strip()))
        return units, None
    if ext == ".pptx":
        from pptx import Presentation
        pr = Presentation(path)
        for k, s in enumerate(pr.slides, 1):
            loc = f"슬라이드 {k}"
            for sh in s.shapes:
                if sh.has_text_frame:
                    for p in sh.text_frame.paragraphs:
                        units.append((loc, "".join(r.text for r in p.runs)))
                if sh.has_table:
                    for row in sh.table.rows:
                        units.append((loc, " ".join(c.text for c in row.cells)))
            if s.has_notes_slide:
                for line in s.notes_slide.notes_text_frame.text.split("\n"):
                    units.append((loc, line))
        return units, None
    if ext == ".xlsx":
        from openpyxl import load_workbook
        wb = load_workbook(path)
        for ws in wb:
            for i, row in enumerate(ws.iter_rows(values_only=True), 1):
                units.append((f"{ws.title}!{i}", " ".join("" if v is None else str(v) for v in row)))
        return units, None
    if ext == ".csv":
        import csv
        with open(path, encoding="utf-8", newline="") as f:
            for i, row in enumerate(csv.reader(f), 1):
                units.append((f"{path.stem}!{i}", " ".join(row)))
        return units, None
    if ext == ".html":
        head = [""]
        buf: list[str] = []
        state = {"in_h": False, "hbuf": [], "skip": 0}

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag in ("script", "style"):
                    state["skip"] += 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    flush()
                    state["in_h"], state["hbuf"] = True, []
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "ul", "ol", "button"):
                    flush()

            def handle_endtag(self, tag):
                if tag in ("script", "style"):
                    state["skip"] -= 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    head[0] = "".join(state["hbuf"]).strip()
                    units.append((head[0], head[0]))
                    state["in_h"] = False
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "button"):
                    flush()

            def handle_data(self, data):
                if not state["skip"]:
                    (state["hbuf"] if state["in_h"] else buf).append(data)

        def flush():
            t = "".join(buf).strip()
            if t:
                units.append((head[0], t))
            buf.clear()
        P().feed(path.read_text(encoding="utf-8"))
        flush()
        return units, None
    if ext == ".pdf":
        from pypdf import PdfReader
        r = PdfReader(path)
        assert not "".join((pg.extract_text() or "") for pg in r.pages).strip(), f"{path.name} has a text layer"
        pages = json.loads((HERE / "scan_pages.json").read_text(encoding="utf-8"))[path.name]
        assert len(pages) == len(r.pages), path.name
        return [], [" ".join(p) for p in pages]
    raise ValueError(path)


def check_qa(out: Path, qa: Path):
    import qa_items
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    cache = {f: read_units(out / f) for f in FILES.values()}
    full = {f: norm("".join(t for _, t in u) if p is None else "".join(p)) for f, (u, p) in cache.items()}
    bad = []
    ids = set()
    keys = {"id", "file", "question", "answer", "pages", "location", "evidence", "kind", "lang"}
    for it in items:
        assert set(it) == keys, it
        assert it["id"] not in ids, it["id"]
        ids.add(it["id"])
        assert it["file"] in cache, it["file"]
        assert it["kind"] in ("ko", "en", "ko_about_en", "en_about_ko", "near_miss"), it
        assert it["lang"] in ("ko", "en"), it
        units, pages = cache[it["file"]]
        if it["kind"] == "near_miss":
            ok = it["answer"] is None and it["evidence"] is None and it["pages"] == [] and it["location"] is None
            proxies = qa_items.NEAR_MISS_PROXIES.get(it["id"]) or []
            hits = [(px_, f) for px_ in proxies for f, t in full.items() if norm(px_) in t]
            if not ok or not proxies or hits:
                bad.append((it, "near-miss fields not null" if not ok else ("no proxies" if not proxies else f"proxy found: {hits}")))
            continue
        ans, ev = norm(it["answer"]), norm(it["evidence"])
        if not ans or ans not in ev:
            bad.append((it, "answer not inside evidence"))
            continue
        n = full[it["file"]].count(ev)
        if n != 1:
            bad.append((it, f"evidence occurs {n} times in the file"))
            continue
        if pages is not None:
            if not it["pages"] or it["location"] is not None:
                bad.append((it, "scan item needs pages and a null location"))
                continue
            ok = ev in norm(" ".join(pages[p - 1] for p in it["pages"]))
            where = it["pages"]
        else:
            if it["pages"] != [] or not it["location"]:
                bad.append((it, "non-scan item needs pages [] and a location"))
                continue
            loc = it["location"]
            scope = [t for l, t in units if norm(l) == norm(loc)]
            ok = any(ev in norm(t) for t in scope)
            where = loc
        if not ok:
            bad.append((it, f"evidence not found at {where}"))
    kinds = {}
    for it in items:
        kinds[it["kind"]] = kinds.get(it["kind"], 0) + 1
    per_file = {}
    for it in items:
        per_file.setdefault(it["file"], [0, 0])[it["kind"] == "near_miss"] += 1
    print(f"  QA: {len(items)} items; by kind: " + ", ".join(f"{k} {v}" for k, v in sorted(kinds.items())))
    for f in FILES.values():
        a, nm = per_file.get(f, [0, 0])
        print(f"      {f:44s} answerable {a:2d}  near_miss {nm}")
        if a < 4:
            bad.append(({"id": "-", "file": f, "evidence": ""}, "fewer than 4 answerable items"))
    for it, why in bad:
        print(f"  FAIL {it['id']} {it['file']}: {why}\n       {it.get('evidence')}")
    print(f"  QA: {len(bad)} failures")
    if bad:
        raise SystemExit(1)


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/h5src", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--ko-fonts", default=None, type=Path)
    ap.add_argument("--qa", default=HERE.parent / "rag_formats_holdout5.jsonl", type=Path)
    a = ap.parse_args()
    ko_fonts = a.ko_fonts
    if ko_fonts is None:
        for cand in (a.fonts / "nanum", a.src / "fonts/usr/share/fonts/truetype/nanum"):
            if (cand / "NanumMyeongjo.ttf").exists():
                ko_fonts = cand
                break
    assert ko_fonts and (ko_fonts / "NanumMyeongjo.ttf").exists(), "NanumMyeongjo.ttf not found (--ko-fonts)"
    s = a.src
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(a.out))
    print(build_hwp(a.out))
    print(build_scan_ko(ko_fonts, a.out))
    print(build_docx_ko(a.out))
    print(build_pptx(a.out))
    print(build_xlsx(a.out))
    print(build_csv(s / "tomlkit-0.15.3", a.out))
    print(build_docx_en(s / "babel-2.19.0", a.out))
    print(build_html(s / "babel-2.19.0", a.out))
    print(build_scan_en(s / "wrapt-2.5.2", a.fonts, a.out))
    (HERE / "scan_pages.json").write_text(json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    F.verify(a.out)
    if a.qa.exists():
        check_qa(a.out, a.qa)
    else:
        print(f"  (no QA file at {a.qa})")


if __name__ == "__main__":
    main()
