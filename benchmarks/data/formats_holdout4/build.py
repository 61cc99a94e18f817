#!/usr/bin/env python3
"""Rebuild formats_holdout4 from the downloaded public sources and the Korean texts written for this set,
then check the QA file against the built files.

    python build.py [--src /tmp/h4src] [--out DIR] [--fonts DIR] [--qa FILE] [--fmtlib DIR]

--src must hold (see SOURCES.md for how they were downloaded):
    pluggy-1.7.0/  cachetools-8.0.2/  sqlparse-0.6.1/  humanize-4.17.0/   (PyPI sdists, unpacked)
--fonts: a truetype folder with nanum/ (fonts-nanum), liberation/ (fonts-liberation) and dejavu/.
--fmtlib: the folder holding fmtlib.py (benchmarks/data of the repo; used unchanged).
Needs python-hwpx, python-docx, python-pptx, openpyxl, Pillow, numpy, pypdf (the repo venv).

Six Korean documents of an invented company (주식회사 늘봄식품) are original writing kept in ko_texts.py.
The four English documents copy their sentences from the source files; the build only re-arranges them and
adds layout. After building, every file is opened again with its own library and every "answer" / "evidence"
of the QA file is looked up in that file's text at the location or page the item names. For the image-only
scans the text of a page is what the renderer drew on it (recorded in scan_pages.json next to this script).
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


def _fmtlib_dir() -> Path:
    for a, b in zip(sys.argv, sys.argv[1:]):
        if a == "--fmtlib":
            return Path(b)
    if (HERE.parent / "fmtlib.py").exists():  # benchmarks/data/fmtlib.py, beside this set's folder
        return HERE.parent
    raise SystemExit("fmtlib.py not found; pass --fmtlib DIR")


sys.path.insert(0, str(_fmtlib_dir()))
sys.path.insert(0, str(HERE))
import fmtlib as F  # noqa: E402
import ko_texts as K  # noqa: E402

SET = "formats_holdout4"
AUTHOR = f"{SET} build.py"
SCAN_PAGES: dict[str, list[list[str]]] = {}

FILES = {
    "hwpx": "neulbom_welfare_rules_2025.hwpx",
    "hwp": "neulbom_business_plan_2026.hwp",
    "scan_ko": "neulbom_security_rules_scan.pdf",
    "docx_ko": "neulbom_icheon_dc_manual.docx",
    "pptx": "neulbom_2025q3_sales_report.pptx",
    "xlsx": "neulbom_2026_budget_inventory.xlsx",
    "csv": "sqlparse_changes_0.5-0.6.csv",
    "html": "pluggy_plugin_guide.html",
    "docx_en": "cachetools_reference.docx",
    "scan_en": "humanize_readme_scan.pdf",
}


# ---------------------------------------------------------------------------
# Korean originals: markup -> parts
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
        elif line.startswith("== "):
            out.append(("h2", line[3:]))
        elif line.startswith("= "):
            out.append(("h1", line[2:]))
        elif line.startswith("> "):
            out.append(("center", line[2:]))
        elif line.startswith("※ "):
            out.append(("note", line))
        elif line.strip():
            out.append(("p", line))
    return out


def build_hwpx(out: Path):
    parts = [(k if k in ("h1", "h2", "table") else "p", v) for k, v in ko_lines(K.WELFARE_RULES)]
    return F.hwp_write(parts, out / FILES["hwpx"])


def build_hwp(out: Path):
    parts = [(k if k in ("h1", "h2", "table") else "p", v) for k, v in ko_lines(K.BUSINESS_PLAN)]
    return F.hwp_write(parts, out / FILES["hwp"])


# ---------------------------------------------------------------------------
# Korean scan: 보안 및 경비 규정, statute layout, 3 pages, photocopy-like
# ---------------------------------------------------------------------------
def render_statute(lines, fonts_dir: Path, *, size_pt=11.0, dpi=200, header=None, footer="- {page} -"):
    from PIL import Image, ImageDraw
    W, H = int(8.27 * dpi), int(11.69 * dpi)
    mx, my = int(1.0 * dpi), int(0.9 * dpi)
    px = lambda pt: int(round(pt / 72 * dpi))
    nanum = fonts_dir / "nanum"
    reg = F._font(nanum / "NanumMyeongjo.ttf", px(size_pt))
    bold = F._font(nanum / "NanumMyeongjoBold.ttf", px(size_pt))
    gothic = F._font(nanum / "NanumGothic.ttf", px(size_pt * 0.95))
    gothic_b = F._font(nanum / "NanumGothicBold.ttf", px(size_pt * 0.95))
    title = F._font(nanum / "NanumMyeongjoBold.ttf", px(size_pt * 1.75))
    small = F._font(nanum / "NanumGothic.ttf", px(size_pt * 0.8))
    hfont = F._font(nanum / "NanumGothicBold.ttf", px(size_pt * 1.05))
    lh = int(reg.size * 1.6)
    pages, drawn = [], []
    st = {"y": 0}

    def new_page():
        img = Image.new("L", (W, H), 255)
        d = ImageDraw.Draw(img)
        pages.append((img, d))
        drawn.append([])
        st["y"] = my
        if header:
            d.text((mx, my - px(size_pt * 2.4)), header, font=small, fill=80)
            d.line([mx, my - px(size_pt * 1.1), W - mx, my - px(size_pt * 1.1)], fill=120, width=1)
            drawn[-1].append(header)

    def text(x, s, font, fill=22):
        pages[-1][1].text((x, st["y"]), s, font=font, fill=fill)
        drawn[-1].append(s)

    def need(h):
        if st["y"] + h > H - my:
            new_page()

    new_page()
    width = W - 2 * mx
    for idx, (kind, v) in enumerate(lines):
        d = pages[-1][1]
        if kind == "h1":
            tw = d.textlength(v, font=title)
            text((W - tw) / 2, v, title)
            st["y"] += int(title.size * 1.6)
        elif kind == "center":
            tw = d.textlength(v, font=small)
            text((W - tw) / 2, v, small, fill=55)
            st["y"] += int(small.size * 2.0)
        elif kind == "h2":
            nxt = lines[idx + 1] if idx + 1 < len(lines) else None
            # a heading stays with what follows it (a whole table, or two lines of text)
            need(int(lh * 2.2) + (int(lh * 1.2) * len(nxt[1]) + lh if nxt and nxt[0] == "table" else lh * 2))
            st["y"] += int(lh * 0.5)
            text(mx, v, hfont)
            st["y"] += int(lh * 1.1)
        elif kind in ("p", "note"):
            m = re.match(r"^([①-⑳] |\d+\. |※ )", v)
            art = re.match(r"^(제\d+조\([^)]*\))", v)
            base = mx
            if m and re.match(r"^[①-⑳]", v):
                base = mx + px(size_pt * 0.9)
            elif m and m.group(1)[0].isdigit():
                base = mx + px(size_pt * 1.9)
            hang = base + (int(d.textlength(m.group(1), font=reg)) if m else 0)
            if art:
                st["y"] += int(lh * 0.3)
            first_lines = F._wrap(d, reg, v, W - mx - base, True)
            first, rest = first_lines[0], " ".join(first_lines[1:])
            need(lh)
            if art and first.startswith(art.group(1)):
                text(base, art.group(1), bold)
                tail = first[len(art.group(1)):]
                if tail:
                    d2 = pages[-1][1]
                    d2.text((base + int(d2.textlength(art.group(1), font=bold)), st["y"]), tail, font=reg, fill=22)
                    drawn[-1][-1] = first
            else:
                text(base, first, reg)
            st["y"] += lh
            if rest:
                for l in F._wrap(d, reg, rest, W - mx - hang, True):
                    need(lh)
                    text(hang, l, reg)
                    st["y"] += lh
        elif kind == "table":
            rows = v
            ncol = len(rows[0])
            colw = [max(d.textlength(r[c], font=gothic) for r in rows) + px(size_pt * 1.8) for c in range(ncol)]
            scale = width / sum(colw)
            colw = [w * scale for w in colw]
            rh = int(lh * 1.2)
            need(rh * len(rows) + lh)
            st["y"] += int(lh * 0.2)
            top = st["y"]
            dd = pages[-1][1]
            for i, r in enumerate(rows):
                x = mx
                if i == 0:
                    dd.rectangle([mx, st["y"], mx + width, st["y"] + rh], fill=225)
                for c, cell in enumerate(r):
                    f = gothic_b if i == 0 else gothic
                    tw = dd.textlength(cell, font=f)
                    dd.text((x + (colw[c] - tw) / 2, st["y"] + (rh - f.size) / 2 - 3), cell, font=f, fill=22)
                    x += colw[c]
                drawn[-1].append(" ".join(r))
                st["y"] += rh
            for i in range(len(rows) + 1):
                dd.line([mx, top + i * rh, mx + width, top + i * rh], fill=35, width=2 if i in (0, 1, len(rows)) else 1)
            x = mx
            for c in range(ncol + 1):
                dd.line([x, top, x, top + rh * len(rows)], fill=35, width=1)
                if c < ncol:
                    x += colw[c]
            st["y"] += int(lh * 0.5)
    for k, (img, d) in enumerate(pages):
        t = footer.format(page=k + 1, pages=len(pages))
        d.text(((W - d.textlength(t, font=small)) / 2, H - my + px(size_pt * 1.2)), t, font=small, fill=90)
        drawn[k].append(t)
    return [p[0] for p in pages], drawn


def photocopy(img, *, seed):
    """A copier/scanner look on top of fmtlib.degrade: darker grey paper, a shadow along the binding edge,
    two punch-hole shadows and a faint toner streak."""
    import random
    import numpy as np
    from PIL import Image
    g, _ = F.degrade(img, seed=seed, noise=6.5, specks=0.0007, blur=0.7, paper=238)
    a = np.asarray(g).astype(np.float32)
    h, w = a.shape
    rng = random.Random(seed)
    xx = np.arange(w)[None, :]
    a -= 55 * np.exp(-xx / 38.0)  # binding edge shadow
    yy = np.arange(h)[:, None]
    for cy in (int(h * 0.3), int(h * 0.7)):
        cx = 70
        r2 = (xx - cx) ** 2 + (yy - cy) ** 2
        a = np.where(r2 < 34 ** 2, a * 0.35 + 40, a)
    sx = rng.randint(int(w * 0.55), int(w * 0.8))
    a[:, sx:sx + 3] -= 14  # toner streak
    return Image.fromarray(np.clip(a, 0, 255).astype(np.uint8))


def build_scan_ko(fonts_dir: Path, out: Path):
    lines = ko_lines(K.SECURITY_RULES)
    pages, drawn = render_statute(lines, fonts_dir, header="늘봄식품 사내 규정집 · 제4편 총무 · 보안 및 경비 규정")
    assert len(pages) == 3, len(pages)
    scans = [photocopy(p, seed=4401 + k) for k, p in enumerate(pages)]
    path = out / FILES["scan_ko"]
    F.save_pdf_scan(scans, path, dpi=200, quality=65)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# Korean DOCX: 이천 물류센터 입출고 업무 매뉴얼
# ---------------------------------------------------------------------------
def manual_parts(text: str):
    out, fns = [], {}
    for line in text.strip("\n").split("\n"):
        if line.startswith("^"):
            n, t = line[1:].split(" ", 1)
            fns[n] = t
        elif line.startswith("| "):
            cells = [c.strip() for c in line[2:].rstrip(" |").split(" | ")]
            if out and out[-1][0] == "table":
                out[-1][1].append(cells)
            else:
                out.append(("table", [cells]))
        elif line.startswith("T "):
            out.append(("title", line[2:]))
        elif line.startswith("~ "):
            out.append(("meta", line[2:]))
        elif line.startswith("## "):
            out.append(("h2", line[3:]))
        elif line.startswith("# "):
            out.append(("h1", line[2:]))
        elif line.startswith("- "):
            out.append(("li", line[2:]))
        elif line.strip():
            out.append(("p", line))
    return out, fns


def _korean_fonts(doc, name="맑은 고딕"):
    from docx.oxml.ns import qn
    for sname in ("Normal", "Title", "Heading 1", "Heading 2", "List Bullet"):
        st = doc.styles[sname]
        st.font.name = name
        rpr = st.element.get_or_add_rPr()
        rfonts = rpr.find(qn("w:rFonts"))
        if rfonts is None:
            rfonts = rpr.makeelement(qn("w:rFonts"), {})
            rpr.append(rfonts)
        rfonts.set(qn("w:eastAsia"), name)


def build_docx_ko(out: Path):
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Cm, Pt
    parts, fns = manual_parts(K.MANUAL)
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.3)
    doc.styles["Normal"].font.size = Pt(10.5)
    _korean_fonts(doc)
    sec.header.paragraphs[0].text = "주식회사 늘봄식품 · 물류운영팀 · 사내 한정"
    sec.footer.paragraphs[0].text = "NB-LOG-M-003 (개정 4판)"
    sec.footer.paragraphs[0].alignment = WD_ALIGN_PARAGRAPH.CENTER
    fn = F.DocxFootnotes(doc)
    for kind, v in parts:
        if kind == "title":
            doc.add_heading(v, level=0)
        elif kind == "meta":
            p = doc.add_paragraph()
            p.add_run(v).italic = True
        elif kind in ("h1", "h2"):
            doc.add_heading(v, level=1 if kind == "h1" else 2)
        elif kind == "li":
            doc.add_paragraph(v, style="List Bullet")
        elif kind == "p":
            m = re.search(r"\[\^(\d+)\]$", v)
            text = v[:m.start()] if m else v
            p = doc.add_paragraph(text)
            if m:
                fn.add(p, fns[m.group(1)])
        elif kind == "table":
            F.docx_table(doc, v[0], v[1:], size=9.5, style="Table Grid")
            doc.add_paragraph()
    F.docx_core(doc, "이천 물류센터 입출고 업무 매뉴얼", "NB-LOG-M-003 개정 4판", "늘봄식품 물류운영팀",
                "입고, 검수, 보관, 출고, 반품, WMS")
    path = out / FILES["docx_ko"]
    doc.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# Korean PPTX: 2025년 3분기 영업 실적 보고
# ---------------------------------------------------------------------------
def build_pptx(out: Path):
    prs = F._pptx()
    for s in K.Q3_SLIDES:
        if s[0] == "title":
            F.slide_title(prs, s[1], s[2], notes=s[3])
        elif s[0] == "bullets":
            F.slide_bullets(prs, s[1], s[2], notes=s[3], size=24)
        elif s[0] == "table":
            F.slide_table(prs, s[1], s[2], s[3], [2.6, 2.4, 2.0, 2.6], notes=s[4], size=16)
    F.pptx_core(prs, "2025년 3분기 영업 실적 보고", "영업본부 경영회의 보고자료", "늘봄식품 영업본부")
    path = out / FILES["pptx"]
    prs.save(path)
    F.fix_zip_times(path)
    return path, len(prs.slides)


# ---------------------------------------------------------------------------
# Korean XLSX: 2026년 예산 및 재고 현황
# ---------------------------------------------------------------------------
def build_xlsx(out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    wb = Workbook()
    fill = PatternFill("solid", fgColor="DDEBF7")
    ws = wb.active
    ws.title = "부서별예산"
    ws.append(K.BUDGET_HEADER)
    for r in K.BUDGET_ROWS:
        ws.append(r)
    ws2 = wb.create_sheet("재고현황")
    ws2.append(K.STOCK_HEADER)
    for r in K.STOCK_ROWS:
        ws2.append(r)
    ws3 = wb.create_sheet("작성기준")
    for r in K.NOTES_ROWS:
        ws3.append(r)
    for w, widths in ((ws, [12, 12, 12, 12, 9, 9, 36]), (ws2, [10, 30, 8, 9, 6, 9, 9, 8, 14]), (ws3, [14, 44])):
        for c in w[1]:
            c.font, c.fill = Font(bold=True), fill
            c.alignment = Alignment(horizontal="center")
        for k, wd in enumerate(widths):
            w.column_dimensions[chr(65 + k)].width = wd
        w.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:G{len(K.BUDGET_ROWS) + 1}"
    wb.properties.creator = "늘봄식품 경영기획팀"
    wb.properties.title = "2026년 예산 및 재고 현황"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / FILES["xlsx"]
    wb.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# CSV: sqlparse CHANGELOG, releases 0.5.0 – 0.6.1
# ---------------------------------------------------------------------------
def sqlparse_rows(sp: Path):
    text = (sp / "CHANGELOG").read_text(encoding="utf-8")
    rels = list(re.finditer(r"(?m)^Release (\S+) \(([^)]*)\)\n-+\n", text))
    rows = []
    for k, m in enumerate(rels):
        ver, date = m.group(1), m.group(2)
        if not (ver.startswith("0.5.") or ver.startswith("0.6.")):
            continue
        body = text[m.end(): rels[k + 1].start() if k + 1 < len(rels) else len(text)]
        section = ""
        for para in re.split(r"\n\s*\n", body):
            lines = [l for l in para.split("\n") if l.strip()]
            if not lines:
                continue
            if len(lines) == 1 and not lines[0].startswith("* ") and not lines[0].rstrip().endswith("."):
                section = lines[0].strip()
                continue
            if lines[0].startswith("* "):
                items, cur = [], []
                for l in lines:
                    if l.startswith("* "):
                        if cur:
                            items.append(cur)
                        cur = [l[2:].strip()]
                    else:
                        cur.append(l.strip())
                items.append(cur)
                for it in items:
                    t = " ".join(it)
                    refs = "; ".join(re.findall(r"\b(?:issue|pr)\d+\b|CVE-\d{4}-\d+", t))
                    rows.append([ver, date, section, t, refs])
            else:
                rows.append([ver, date, section, " ".join(l.strip() for l in lines), ""])
    return rows


def build_csv(sp: Path, out: Path):
    rows = sqlparse_rows(sp)
    path = out / FILES["csv"]
    F.write_csv(path, ["release", "date", "section", "entry", "references"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# HTML: pluggy docs/index.rst in a documentation-site page
# ---------------------------------------------------------------------------
HTML_TMPL = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — pluggy 1.7 documentation</title>
<style>
body {{ margin: 0; font-family: Georgia, "Times New Roman", serif; color: #3e4349; background: #fff; }}
.site-header {{ border-bottom: 1px solid #ddd; padding: 0.7em 2em; display: flex; justify-content: space-between;
  align-items: center; font-family: "Helvetica Neue", Arial, sans-serif; }}
.site-header nav a {{ margin-left: 1.3em; color: #004b6b; text-decoration: none; font-size: 0.9em; }}
.layout {{ display: flex; max-width: 1100px; margin: 0 auto; }}
.body {{ flex: 1; padding: 1.5em 2.5em; }}
aside.sidebar {{ width: 250px; padding: 1.5em 1em; font-size: 0.88em; border-left: 1px solid #eee; }}
aside.sidebar h3 {{ font-size: 1em; margin: 1.2em 0 0.4em; }}
aside.sidebar ul {{ padding-left: 1.1em; }}
aside.sidebar a {{ color: #444; text-decoration: none; }}
pre {{ background: #eeffcc; padding: 0.8em; font-size: 0.85em; overflow-x: auto; }}
div.admonition {{ background: #fafafa; border: 1px solid #ccc; padding: 0.4em 1em; margin: 1em 0; }}
p.admonition-title {{ font-weight: bold; }}
.site-footer {{ border-top: 1px solid #ddd; margin-top: 2em; padding: 1em 2em; font-size: 0.8em; color: #888;
  font-family: "Helvetica Neue", Arial, sans-serif; }}
#cookie-notice {{ position: fixed; left: 1em; right: 1em; bottom: 1em; background: #1d2b36; color: #f2f2f2;
  padding: 1em 1.4em; border-radius: 6px; font-family: Arial, sans-serif; font-size: 0.9em; }}
#cookie-notice button {{ margin-left: 0.6em; }}
</style>
</head>
<body>
<div id="cookie-notice" role="dialog" aria-live="polite" aria-label="Cookie notice">
  <p>We use essential cookies to keep this documentation site working and optional analytics cookies to see which
  pages are read. You can change your choice at any time under "Privacy settings" in the footer.</p>
  <button type="button" id="cookie-accept">Accept all</button>
  <button type="button" id="cookie-essential">Essential only</button>
  <a href="privacy.html">Privacy policy</a>
</div>
<header class="site-header">
  <a class="logo" href="index.html"><strong>pluggy</strong> 1.7</a>
  <nav aria-label="Main">
    <a href="index.html">Home</a>
    <a href="api_reference.html">API Reference</a>
    <a href="changelog.html">Changelog</a>
    <a href="https://github.com/pytest-dev/pluggy">Source code</a>
    <a href="https://github.com/pytest-dev/pluggy/issues">Issue tracker</a>
  </nav>
</header>
<div class="layout">
<main class="body" role="main">
<article class="document">
{body}
</article>
</main>
<aside class="sidebar" role="navigation" aria-label="Table of contents">
  <form class="search" action="search.html" method="get" role="search">
    <input type="text" name="q" aria-label="Quick search" placeholder="Quick search">
    <input type="submit" value="Go">
  </form>
  <h3>Table of Contents</h3>
  <ul>
{toc}
  </ul>
  <h3>Related Topics</h3>
  <ul>
    <li><a href="index.html">Documentation overview</a></li>
    <li>Next: <a href="api_reference.html">API Reference</a></li>
  </ul>
  <h3>Useful links</h3>
  <ul>
    <li><a href="https://pypi.org/project/pluggy/">pluggy @ PyPI</a></li>
    <li><a href="https://github.com/pytest-dev/pluggy">pluggy @ GitHub</a></li>
  </ul>
</aside>
</div>
<footer class="site-footer">
  <p>&copy; 2016, Holger Krekel. Licensed under the MIT license.</p>
  <p>Page source: docs/index.rst of the pluggy 1.7.0 source distribution; examples from docs/examples.
  Powered by Sphinx. <a href="privacy.html">Privacy settings</a></p>
</footer>
<script>
['cookie-accept', 'cookie-essential'].forEach(function (id) {{
  document.getElementById(id).addEventListener('click', function () {{
    document.getElementById('cookie-notice').style.display = 'none';
  }});
}});
</script>
</body>
</html>
"""


def pluggy_text(pl: Path) -> str:
    text = (pl / "docs/index.rst").read_text(encoding="utf-8")

    def incl(m):
        ind = m.group(1)
        src = (pl / "docs" / m.group(2).strip()).read_text(encoding="utf-8").rstrip("\n")
        return f"{ind}.. code-block:: python\n\n" + "\n".join((ind + "    " + l) if l.strip() else "" for l in src.split("\n")) + "\n"
    text = re.sub(r"(?m)^([ \t]*)\.\. literalinclude:: (.+)\n(?:\1[ \t]+:\w[\w-]*:.*\n)*", incl, text)
    return text


def build_html(pl: Path, out: Path):
    blocks = F.parse_rst(pluggy_text(pl))
    title = F.plain(next(b for b in blocks if b[0] == "h")[2])
    toc = []
    for b in blocks:
        if b[0] == "h" and b[1] == 3:
            toc.append(f'    <li><a href="#{F.slug(b[2])}">{escape(F.plain(b[2]))}</a></li>')
    html = HTML_TMPL.format(title=escape(title), toc="\n".join(toc), body=F.html_blocks(blocks))
    path = out / FILES["html"]
    path.write_text(html, encoding="utf-8")
    return path, sum(1 for b in blocks if b[0] == "h")


# ---------------------------------------------------------------------------
# English DOCX: cachetools docs/index.rst, API entries as Sphinx shows them
# ---------------------------------------------------------------------------
def cachetools_text(ct: Path) -> str:
    text = (ct / "docs/index.rst").read_text(encoding="utf-8")
    text = re.sub(r"(?m)^:tocdepth: \d+\n", "", text)
    text = re.sub(r"(?m)^(\*{5,})\n(.+)\n\1\n", r"\2\n\1\n", text)  # over- and underlined titles
    text = re.sub(r"(?m)^(\s*):returns: ", r"\1Returns: ", text)
    text = re.sub(r"(?m)^(\s*)\.\. (testcode|doctest)::.*$", r"\1.. code-block:: python", text)
    text = re.sub(r"(?m)^(\s*)\.\. (testsetup|testoutput)::", r"\1.. raw:: \2", text)
    text = re.sub(r"(?m)^(\s*)\.\. autoclass:: ", r"\1.. data:: class cachetools.", text)
    text = re.sub(r"(?m)^(\s*)\.\. decorator:: ", r"\1.. data:: @", text)
    text = re.sub(r"(?m)^(\s*)\.\. autofunction:: ", r"\1.. data:: ", text)
    text = re.sub(r"(?m)^(\s*)\.\. method:: ", r"\1.. data:: ", text)
    return text


def build_docx_en(ct: Path, out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    blocks = F.parse_rst(cachetools_text(ct))
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    sec.header.paragraphs[0].text = "플랫폼팀 라이브러리 검토 자료 · cachetools 8.0.2 documentation (docs/index.rst)"
    F.docx_blocks(doc, blocks)
    F.docx_core(doc, "cachetools — Extensible memoizing collections and decorators", "cachetools 8.0.2 docs/index.rst",
                AUTHOR, "cachetools, LRUCache, TTLCache, cached, cachedmethod")
    path = out / FILES["docx_en"]
    doc.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# English scan: humanize README, 2 pages, image-only PDF
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


def humanize_items(hz: Path):
    text = (hz / "README.md").read_text(encoding="utf-8")
    text = re.sub(r"<!--.*?-->\n?", "", text)
    blocks = F.parse_md(text)
    items = []
    skip = False
    for b in blocks:
        if b[0] == "h":  # two example-only subsections are left out so that the scan keeps to two pages
            skip = F.plain(b[2]) in ("Smaller units", "Scientific notation")
        if skip:
            continue
        if b[0] == "ul" and len(b[1]) > 20:  # the list of locales: four per line, as a compact list
            names = [F.plain(it[0][1]) for it in b[1]]
            for k in range(0, len(names), 4):
                items.append(("li", "    ".join(names[k:k + 4])))
            continue
        items.extend(F.blocks_to_items([b]))
    return items


def build_scan_en(hz: Path, fonts_dir: Path, out: Path):
    items = humanize_items(hz)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSans-Regular.ttf", fonts_dir / "liberation/LiberationSans-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=9.0, page_in=(8.5, 11.0), margin_in=(0.8, 0.55),
                                 line_gap=1.25, footer="humanize 4.17.0 — README.md — {page}/{pages}")
    assert len(pages) == 2, len(pages)
    scans = [F.degrade(p, seed=5501 + k, noise=7.0, specks=0.0006, blur=0.65, paper=240)[0] for k, p in enumerate(pages)]
    scans = [s.resize((int(s.width * 0.75), int(s.height * 0.75))) for s in scans]  # scanned at 150 dpi
    path = out / FILES["scan_en"]
    F.save_pdf_scan(scans, path, dpi=150, quality=70)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ").replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", "", s)


def read_units(path: Path):
    """(units, pages): units = [(location, text)] in reading order; pages = list of page texts (scans)."""
    ext = path.suffix.lower()
    units: list[tuple[str, str]] = []
    if ext in (".hwpx", ".hwp"):
        from hwpx import HwpxDocument
        d = HwpxDocument.open(path)
        rules = path.suffix == ".hwpx"
        head = None
        for p in d.paragraphs:
            t = p.text if isinstance(p.text, str) else str(p.text)
            if not t.strip() and not p.tables:
                continue
            m = re.match(r"^(제\d+조(?:의\d+)?)\(", t)
            if str(p.style_id_ref) not in ("0", "None", ""):
                head = t.strip()
            elif m and rules:
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
        fn_head: dict[str, str] = {}  # footnote id -> heading of the section whose paragraph refers to it
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading"):
                    head = p.text
                units.append((head, p.text))
                for ref in el.iter("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}footnoteReference"):
                    fn_head[ref.get("{http://schemas.openxmlformats.org/wordprocessingml/2006/main}id")] = head
            elif tag == "tbl":
                for row in Table(el, d).rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        for r in d.part.rels.values():
            if r.reltype.endswith("/footnotes"):
                for fid, fn in re.findall(r'<w:footnote w:id="([1-9]\d*)"[^>]*>(.*?)</w:footnote>',
                                          r.target_part.blob.decode("utf-8"), re.S):
                    units.append((fn_head.get(fid, "footnotes"), re.sub(r"<[^>]+>", "", fn).strip()))
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
                if tag in ("h1", "h2", "h3", "h4"):
                    flush()
                    state["in_h"], state["hbuf"] = True, []
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "ul", "ol"):
                    flush()

            def handle_endtag(self, tag):
                if tag in ("script", "style"):
                    state["skip"] -= 1
                if tag in ("h1", "h2", "h3", "h4"):
                    head[0] = "".join(state["hbuf"]).strip()
                    units.append((head[0], head[0]))
                    state["in_h"] = False
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd"):
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
    if ext in (".pdf", ".png", ".tif", ".tiff", ".jpg"):
        pages = json.loads((HERE / "scan_pages.json").read_text(encoding="utf-8"))[path.name]
        return [], [" ".join(p) for p in pages]
    raise ValueError(path)


def all_text(units, pages) -> str:
    return norm(" ".join(t for _, t in units) + " " + " ".join(pages or []))


KINDS = {"ko", "en", "ko_about_en", "en_about_ko", "near_miss"}


def check_qa(out: Path, qa: Path):
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    cache = {}
    for f in sorted(out.iterdir()):
        if f.suffix not in (".py", ".md"):
            cache[f.name] = read_units(f)
    whole = {name: all_text(*v) for name, v in cache.items()}
    bad = 0
    ids = set()
    for it in items:
        errs = []
        assert it["id"] not in ids, it["id"]
        ids.add(it["id"])
        assert set(it) == {"id", "file", "question", "answer", "pages", "location", "evidence", "kind", "lang"}, it["id"]
        assert it["kind"] in KINDS and it["lang"] in ("ko", "en"), it["id"]
        assert it["file"] in cache, it["file"]
        units, pages = cache[it["file"]]
        if it["kind"] == "near_miss":
            if not (it["answer"] is None and it["evidence"] is None and it["pages"] == [] and it["location"] is None):
                errs.append("near_miss must have null answer/evidence/location and no pages")
        else:
            ans, ev = norm(it["answer"]), norm(it["evidence"])
            if not ans or not ev:
                errs.append("empty answer or evidence")
            elif ans not in ev:
                errs.append("answer not inside evidence")
            if pages is not None:
                if not it["pages"] or it["location"] is not None:
                    errs.append("scan items need pages and a null location")
                else:
                    text = norm(" ".join(pages[p - 1] for p in it["pages"]))
                    if ev not in text:
                        errs.append(f"evidence not on page(s) {it['pages']}")
            else:
                if it["pages"] != [] or not it["location"]:
                    errs.append("non-paged items need a location and pages []")
                else:
                    scope = [t for l, t in units if norm(l) == norm(it["location"])]
                    if not scope:
                        errs.append(f"no unit at location {it['location']!r}")
                    elif not any(ev in norm(t) for t in scope):
                        errs.append(f"evidence not in any unit at {it['location']!r}")
            if ev and ev in whole[it["file"]]:
                n = whole[it["file"]].count(ev)
                if n > 1:
                    errs.append(f"evidence occurs {n} times in the file")
        if errs:
            bad += 1
            print(f"  FAIL {it['id']} {it['file']}: {'; '.join(errs)}\n       evidence: {it['evidence']}")
    # near-miss questions: the hand-written 'probe' strings (the fact a wrong answer would quote) must be absent
    import qa_items
    probes = qa_items.PROBES
    for iid, strings in probes.items():
        for s in strings:
            for name, t in whole.items():
                if norm(s) in t:
                    bad += 1
                    print(f"  FAIL {iid}: near-miss probe {s!r} found in {name}")
    from collections import Counter
    print("  QA by kind:", dict(Counter(i["kind"] for i in items)))
    print("  QA by file:", dict(Counter(i["file"] for i in items)))
    print(f"  QA: {len(items)} items checked, {len(probes)} near-miss probe sets, {bad} failures")
    if bad:
        raise SystemExit("QA check failed")


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/h4src", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/tmp/h4src/fonts/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--qa", default=HERE.parent / f"rag_{SET}.jsonl", type=Path)
    ap.add_argument("--fmtlib", default=None)
    a = ap.parse_args()
    s = a.src
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(a.out))
    print(build_hwp(a.out))
    print(build_scan_ko(a.fonts, a.out))
    print(build_docx_ko(a.out))
    print(build_pptx(a.out))
    print(build_xlsx(a.out))
    print(build_csv(s / "sqlparse-0.6.1", a.out))
    print(build_html(s / "pluggy-1.7.0", a.out))
    print(build_docx_en(s / "cachetools-8.0.2", a.out))
    print(build_scan_en(s / "humanize-4.17.0", a.fonts, a.out))
    (HERE / "scan_pages.json").write_text(json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    F.verify(a.out)
    if a.qa.exists():
        check_qa(a.out, a.qa)
    else:
        print(f"  (no QA file at {a.qa})")


if __name__ == "__main__":
    main()
