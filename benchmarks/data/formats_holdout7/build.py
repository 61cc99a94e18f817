#!/usr/bin/env python3
"""Rebuild formats_holdout7 from the downloaded public sources and the Korean texts written for this set,
then check the QA file against it.

    python build.py [--src /tmp/h7src] [--out DIR] [--fonts /usr/share/fonts/truetype] [--ko-fonts DIR]
                    [--qa FILE] [--no-rebuild-check] [--ocr]

--src must hold (see SOURCES.md for how they were downloaded):
    idna-3.20/  colorama-0.4.6/  blinker-1.9.0/  sortedcontainers-2.4.0/     (PyPI sdists, unpacked)
Fonts: NanumMyeongjo / NanumGothic (fonts-nanum; looked for in --ko-fonts, default FONTS/nanum, else
SRC/fonts/usr/share/fonts/truetype/nanum, where `dpkg-deb -x fonts-nanum_*.deb SRC/fonts` puts them),
DejaVu and Liberation (fonts-dejavu, fonts-liberation) under --fonts.
Needs python-hwpx, python-docx, python-pptx, openpyxl, Pillow, numpy, pypdf (the repo venv).

The six Korean documents are original writing for this set (ko_texts.py, an invented hospital). The four
English documents copy their sentences from the source files named in SOURCES.md; the build only re-arranges
them and adds layout. After building, every file is opened again with its own library and every item of the
QA file (../rag_formats_holdout7.jsonl, written by qa_items.py) is checked: the answer lies in the evidence,
the evidence occurs exactly once in the file and lies in a unit at the item's location (for the image-only
scans: on the item's pages, by the text the renderer drew there, kept in scan_pages.json); near misses have
null fields and 2-4 proxy strings none of which occurs in any file. Then everything is built a second time in
a temporary folder and compared by sha256. Any failure exits non-zero.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import shutil
import subprocess
import sys
import tempfile
from html import escape, unescape
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ next to the data
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py (benchmarks/data/fmtlib.py, used unchanged)
sys.path.insert(0, str(HERE))
import fmtlib as F  # noqa: E402
import ko_texts as K  # noqa: E402

SET = "formats_holdout7"
AUTHOR = f"{SET} build.py"
SCAN_PAGES: dict[str, list[list[str]]] = {}  # file name -> per page, the text lines drawn on it
SCAN_IMAGES: dict[str, list] = {}  # file name -> degraded page images (for the optional OCR check)

FILES = {
    "hwpx": "saegyeol_oncall_duty_rules_2026.hwpx",
    "hwp": "saegyeol_infection_control_plan_2026.hwp",
    "scan_ko": "saegyeol_medical_records_release_guideline_scan.pdf",
    "docx_ko": "saegyeol_new_nurse_orientation_manual.docx",
    "pptx": "saegyeol_patient_experience_report_2025h2.pptx",
    "xlsx": "saegyeol_equipment_inspection_2026q1.xlsx",
    "csv": "idna_release_history.csv",
    "docx_en": "colorama_windows_ansi_guide.docx",
    "html": "blinker_signals_documentation.html",
    "scan_en": "sortedcontainers_readme_scan.pdf",
}


# ---------------------------------------------------------------------------
# Korean originals: the small line markup of ko_texts.py -> parts
# ---------------------------------------------------------------------------
def ko_lines(text: str):
    """-> list of (kind, value): h1 / h2 / h3 / center / p / note / table(rows)."""
    out = []
    for line in text.strip("\n").split("\n"):
        if line.startswith("| "):
            cells = [c.strip() for c in line.strip()[1:-1].split("|")]
            if out and out[-1][0] == "table":
                assert len(cells) == len(out[-1][1][0]), line
                out[-1][1].append(cells)
            else:
                out.append(("table", [cells]))
        elif line.startswith("== "):
            out.append(("h2", line[3:]))
        elif line.startswith("= "):
            out.append(("h1", line[2:]))
        elif line.startswith("## "):
            out.append(("h3", line[3:]))
        elif line.startswith("# "):
            out.append(("h2", line[2:]))
        elif line.startswith("> "):
            out.append(("center", line[2:]))
        elif line.startswith("※ "):
            out.append(("note", line))
        elif line.strip():
            out.append(("p", line))
    return out


def hwp_parts(text: str):
    parts = []
    for kind, v in ko_lines(text):
        parts.append(("p", v) if kind in ("center", "note") else (kind, v))
    return parts


def build_hwpx(out: Path):
    return F.hwp_write(hwp_parts(K.ONCALL_RULES), out / FILES["hwpx"])


def build_hwp(out: Path):
    return F.hwp_write(hwp_parts(K.INFECTION_PLAN), out / FILES["hwp"])


# ---------------------------------------------------------------------------
# Korean scan: guideline with running header / footer, hanging indents and ruled tables
# ---------------------------------------------------------------------------
def render_ko_scan(lines, ko: Path, *, size_pt=11.0, dpi=200):
    from PIL import Image, ImageDraw
    W, H = int(8.27 * dpi), int(11.69 * dpi)
    mx, my = int(0.95 * dpi), int(1.0 * dpi)
    px = lambda pt: int(round(pt / 72 * dpi))
    reg = F._font(ko / "NanumMyeongjo.ttf", px(size_pt))
    bold = F._font(ko / "NanumMyeongjoBold.ttf", px(size_pt))
    title = F._font(ko / "NanumMyeongjoBold.ttf", px(size_pt * 1.65))
    hfont = F._font(ko / "NanumMyeongjoBold.ttf", px(size_pt * 1.08))
    small = F._font(ko / "NanumGothic.ttf", px(size_pt * 0.78))
    cell = F._font(ko / "NanumMyeongjo.ttf", px(size_pt * 0.95))
    cellb = F._font(ko / "NanumMyeongjoBold.ttf", px(size_pt * 0.95))
    lh = int(reg.size * 1.6)
    pages, drawn = [], []
    st = {"y": 0}

    def new_page():
        img = Image.new("L", (W, H), 255)
        d = ImageDraw.Draw(img)
        pages.append((img, d))
        drawn.append([])
        # running header: document number left, title right, rule below
        hy = my - px(size_pt * 2.6)
        d.text((mx, hy), K.SCAN_HEADER_LEFT, font=small, fill=70)
        d.text((W - mx - d.textlength(K.SCAN_HEADER_RIGHT, font=small), hy), K.SCAN_HEADER_RIGHT, font=small, fill=70)
        d.line([mx, hy + small.size + px(4), W - mx, hy + small.size + px(4)], fill=90, width=2)
        drawn[-1] += [K.SCAN_HEADER_LEFT, K.SCAN_HEADER_RIGHT]
        st["y"] = my

    def text(x, s, font, fill=20):
        pages[-1][1].text((x, st["y"]), s, font=font, fill=fill)
        drawn[-1].append(s)

    def need(h):
        if st["y"] + h > H - my:
            new_page()

    new_page()
    width = W - 2 * mx
    for kind, v in lines:
        d = pages[-1][1]
        if kind == "h1":
            st["y"] += px(size_pt * 0.4)
            text((W - d.textlength(v, font=title)) / 2, v, title)
            st["y"] += int(title.size * 1.6)
        elif kind == "center":
            text((W - d.textlength(v, font=small)) / 2, v, small, fill=60)
            st["y"] += int(small.size * 2.4)
        elif kind == "h2":
            need(lh * 3)
            st["y"] += int(lh * 0.55)
            text(mx, v, hfont)
            st["y"] += int(lh * 1.12)
        elif kind in ("p", "note"):
            m = re.match(r"^([①-⑳] |\d+\. |※ )", v)
            base = mx + px(size_pt * 0.6)
            if m and m.group(1)[0].isdigit():
                base = mx + px(size_pt * 1.6)
            hang = base + (int(d.textlength(m.group(1), font=reg)) if m else 0)
            ls = F._wrap(d, reg, v, W - mx - base)
            first, rest = ls[0], " ".join(ls[1:])
            need(lh)
            text(base, first, reg)
            st["y"] += lh
            if rest:
                for l in F._wrap(d, reg, rest, W - mx - hang if m else W - mx - base):
                    need(lh)
                    text(hang if m else base, l, reg)
                    st["y"] += lh
            st["y"] += int(lh * 0.12)
        elif kind == "table":
            rows = v
            ncol = len(rows[0])
            pad = px(size_pt * 1.2)
            nat = [max(d.textlength(r[c], font=cellb if i == 0 else cell) for i, r in enumerate(rows)) + pad
                   for c in range(ncol)]
            if sum(nat) <= width:
                colw = [w * width / sum(nat) for w in nat]
            else:  # the widest column gives way and its cells wrap
                wide = max(range(ncol), key=lambda c: nat[c])
                colw = list(nat)
                colw[wide] = width - (sum(nat) - nat[wide])
            cl = int(cell.size * 1.45)
            wrapped = [[F._wrap(d, cellb if i == 0 else cell, r[c], colw[c] - pad) for c in range(ncol)]
                       for i, r in enumerate(rows)]
            heights = [max(len(x) for x in wr) * cl + px(size_pt * 0.7) for wr in wrapped]
            need(sum(heights[:2]) + lh)
            st["y"] += int(lh * 0.15)
            top = st["y"]
            tops = []
            for i, r in enumerate(rows):
                if st["y"] + heights[i] > H - my:  # a table that runs over the page: go on on the next one
                    new_page()
                    top = st["y"]
                dd = pages[-1][1]
                tops.append((len(pages), st["y"]))
                if i == 0:
                    dd.rectangle([mx, st["y"], mx + width, st["y"] + heights[i]], fill=228)
                x = mx
                for c in range(ncol):
                    f = cellb if i == 0 else cell
                    for k, l in enumerate(wrapped[i][c]):
                        tw = dd.textlength(l, font=f)
                        cx = x + (colw[c] - tw) / 2 if (i == 0 or c > 0 or ncol > 2) else x + pad / 2
                        dd.text((cx, st["y"] + px(size_pt * 0.35) + k * cl), l, font=f, fill=20)
                    x += colw[c]
                drawn[-1].append(" ".join(r))
                dd.line([mx, st["y"], mx + width, st["y"]], fill=40, width=2 if i <= 1 else 1)
                xx = mx
                for c in range(ncol + 1):
                    dd.line([xx, st["y"], xx, st["y"] + heights[i]], fill=40, width=1)
                    if c < ncol:
                        xx += colw[c]
                st["y"] += heights[i]
                dd.line([mx, st["y"], mx + width, st["y"]], fill=40, width=2 if i == len(rows) - 1 else 1)
            st["y"] += int(lh * 0.45)
    imgs = [p[0] for p in pages]
    for k, (img, d) in enumerate(pages):
        t = K.SCAN_FOOTER.format(page=k + 1, pages=len(pages))
        fy = H - my + px(size_pt * 1.6)
        d.line([mx, fy - px(6), W - mx, fy - px(6)], fill=120, width=1)
        d.text((mx, fy), K.SCAN_FOOTER_LEFT, font=small, fill=90)
        d.text(((W - d.textlength(t, font=small)) / 2, fy), t, font=small, fill=90)
        drawn[k] += [K.SCAN_FOOTER_LEFT, t]
    return imgs, drawn


def build_scan_ko(ko: Path, out: Path):
    pages, drawn = render_ko_scan(ko_lines(K.RECORDS_GUIDE), ko)
    assert len(pages) in (2, 3), len(pages)
    scans = [F.degrade(p, seed=7301 + k, noise=6.0, specks=0.0005)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_ko"]
    F.save_pdf_scan(scans, path, quality=70)
    SCAN_PAGES[path.name] = drawn
    SCAN_IMAGES[path.name] = scans
    return path, len(pages)


# ---------------------------------------------------------------------------
# Korean DOCX manual
# ---------------------------------------------------------------------------
def docx_korean_fonts(doc, name="맑은 고딕"):
    from docx.oxml.ns import qn
    for st in ("Normal", "Heading 1", "Heading 2", "Title"):
        s = doc.styles[st]
        rpr = s.element.get_or_add_rPr()
        fonts = rpr.find(qn("w:rFonts"))
        if fonts is None:
            fonts = rpr.makeelement(qn("w:rFonts"), {})
            rpr.append(fonts)
        fonts.set(qn("w:eastAsia"), name)


def build_docx_ko(out: Path):
    from docx import Document
    from docx.enum.text import WD_ALIGN_PARAGRAPH
    from docx.shared import Cm, Pt
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.3)
    doc.styles["Normal"].font.size = Pt(10.5)
    docx_korean_fonts(doc)
    sec.header.paragraphs[0].text = "새결병원 간호부 · 신규 간호사 입문 매뉴얼 (2026년판) · 내부용"
    fns = F.DocxFootnotes(doc)
    docx_korean_fonts(doc)
    nfn = ntab = 0
    for kind, v in ko_lines(K.DOCX_MANUAL):
        if kind == "h1":
            doc.add_heading(v, level=0)
        elif kind == "center":
            p = doc.add_paragraph()
            p.alignment = WD_ALIGN_PARAGRAPH.CENTER
            p.add_run(v).italic = True
        elif kind == "h2":
            doc.add_heading(v, level=1)
        elif kind == "h3":
            doc.add_heading(v, level=2)
        elif kind == "table":
            F.docx_table(doc, v[0], v[1:], size=9.5)
            doc.add_paragraph()
            ntab += 1
        else:
            m = re.match(r"^(.*?)\{\{fn: (.*)\}\}$", v)
            p = doc.add_paragraph()
            p.add_run(m.group(1) if m else v)
            if m:
                fns.add(p, m.group(2))
                nfn += 1
    F.docx_core(doc, "신규 간호사 입문 매뉴얼", "새결병원 간호부 신규 간호사 입문 매뉴얼 2026년판", AUTHOR,
                "신규 간호사, 교대 근무, 프리셉터, 투약 확인, 환자안전")
    path = out / FILES["docx_ko"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, ntab, nfn


# ---------------------------------------------------------------------------
# Korean PPTX report
# ---------------------------------------------------------------------------
def build_pptx(out: Path):
    prs = F._pptx()
    for s in K.PPTX_SLIDES:
        if s["kind"] == "title":
            F.slide_title(prs, s["title"], s["subtitle"], notes=s["notes"])
        elif s["kind"] == "bullets":
            F.slide_bullets(prs, s["title"], s["bullets"], notes=s["notes"])
        else:
            F.slide_table(prs, s["title"], s["header"], s["rows"], s["widths"], notes=s["notes"], size=14)
    F.pptx_core(prs, K.PPTX_TITLE, "새결병원 고객지원팀 환자경험 평가 보고", AUTHOR)
    path = out / FILES["pptx"]
    prs.save(path)
    F.fix_zip_times(path)
    return path, len(prs.slides)


# ---------------------------------------------------------------------------
# Korean XLSX: two sheets with a header row
# ---------------------------------------------------------------------------
def build_xlsx(out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    wb = Workbook()
    fill = PatternFill("solid", fgColor="DDEBF7")

    def sheet(ws, header, rows, widths):
        ws.append(header)
        for r in rows:
            ws.append(r)
        for c in ws[1]:
            c.font, c.fill = Font(bold=True), fill
            c.alignment = Alignment(horizontal="center", vertical="center", wrap_text=True)
        for col, w in zip("ABCDEFGHIJK", widths):
            ws.column_dimensions[col].width = w
        ws.freeze_panes = "A2"
        ws.auto_filter.ref = f"A1:{chr(64 + len(header))}{len(rows) + 1}"

    ws = wb.active
    ws.title = K.SHEET1
    sheet(ws, K.SHEET1_HEADER, K.SHEET1_ROWS, [14, 18, 20, 20, 22, 12, 10, 12, 14, 9, 26])
    ws2 = wb.create_sheet(K.SHEET2)
    sheet(ws2, K.SHEET2_HEADER, K.SHEET2_ROWS, [12, 14, 18, 10, 13, 48, 9])
    wb.properties.creator = AUTHOR
    wb.properties.title = K.XLSX_TITLE
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / FILES["xlsx"]
    wb.save(path)
    F.fix_zip_times(path)
    return path, len(K.SHEET1_ROWS), len(K.SHEET2_ROWS)


# ---------------------------------------------------------------------------
# CSV: idna HISTORY.md, one row per entry (list item or "Thanks ..." paragraph)
# ---------------------------------------------------------------------------
def build_csv(idna: Path, out: Path):
    blocks = F.parse_md((idna / "HISTORY.md").read_text(encoding="utf-8"))
    rows = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^(\d+\.\d+) \((\d{4}-\d\d-\d\d)\)$", F.plain(title or ""))
        if not m:
            continue
        for b in body:
            if b[0] == "ul":
                for it in b[1]:
                    t = F.plain(" ".join(x[1] for x in it if x[0] == "p"))
                    rows.append([m.group(1), m.group(2), "change", t, "; ".join(re.findall(r"CVE-\d{4}-\d+", t))])
            elif b[0] == "p":
                t = F.plain(b[1])
                rows.append([m.group(1), m.group(2), "thanks" if t.startswith("Thanks") else "note", t, ""])
    path = out / FILES["csv"]
    F.write_csv(path, ["version", "release_date", "entry_type", "text", "cve"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# English DOCX: colorama README (0.4.6), three tables made from its literal blocks, links as footnotes
# ---------------------------------------------------------------------------
def dotted_underlines(text: str) -> str:
    """'Title' over a line of dots (a valid reST underline that fmtlib does not know) -> a '~' underline."""
    return re.sub(r"(?m)^(\S.*)\n\.{3,}[ \t]*$", lambda m: m.group(1) + "\n" + "~" * len(m.group(1)), text)


def build_docx_en(col: Path, out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    text = (col / "README.rst").read_text(encoding="utf-8")
    links = {m.group(1).strip(): m.group(2) for m in re.finditer(r"`([^`<]+?)\s*<(https?://[^>]+)>`_", text)}
    text = dotted_underlines(text)
    # paragraphs that start with "...or" are prose, not reST comments (".. "): escape the first dot for fmtlib
    text = re.sub(r"(?m)^\.\.\.(?=\S)", r"\\...", text)
    text = text.replace("please |donate| to", "please donate to")  # the PayPal button image, as its word
    # the Tidelift list-table (logo | text): keep its text as a paragraph
    m = re.search(r"(?m)^\.\. list-table::\n(?:   .*\n|\n)+?   \* - \|tideliftlogo\|\n     - ((?:.+\n)+)", text)
    text = text[:m.start()] + F.squash(m.group(1)) + "\n" + text[m.end():]
    targets: dict[str, str] = {}
    blocks = F.parse_rst(text, targets=targets)
    links.update({k: v for k, v in targets.items() if v.startswith("http")})
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    sec.header.paragraphs[0].text = "의료정보팀 참고자료 · Colorama 0.4.6 README (Windows ANSI colour support)"
    fns = F.DocxFootnotes(doc)
    used = set()

    def on_para(p, t):
        for name, url in links.items():
            mm = re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", F.plain(t), re.I)
            if name.lower() not in used and mm:
                used.add(name.lower())
                fns.add(p, f"{mm.group(0)}: {url}")

    ntab = 0
    first = True
    i = 0
    while i < len(blocks):
        b = blocks[i]
        if b[0] == "h":
            doc.add_heading(F.plain(b[2]), level=min(max(b[1] - 1, 0), 3))
            if first:
                p = doc.add_paragraph()
                p.add_run("Source: colorama 0.4.6 source distribution, README.rst. Badges and screenshots are left "
                          "out; the lists of formatting constants and of recognised ANSI sequences are given as "
                          "tables; link targets are given as footnotes.").italic = True
                first = False
            i += 1
            continue
        if b[0] == "p" and F.plain(b[1]).startswith("Available formatting constants are") and blocks[i + 1][0] == "code":
            F.docx_blocks(doc, [b], on_para=on_para)
            rows = [l.split(": ", 1) for l in blocks[i + 1][1].split("\n") if l.strip()]
            F.docx_table(doc, ["Constant", "Values"], rows, widths=[3.0, 13.0], size=9)
            ntab += 1
            i += 2
            continue
        if b[0] == "p" and F.plain(b[1]).startswith("These are fairly well supported") and blocks[i + 1][0] == "code":
            F.docx_blocks(doc, [b], on_para=on_para)
            rows = [l.split(": ", 1) for l in blocks[i + 1][1].split("\n") if l.strip()]
            F.docx_table(doc, ["Constant", "Values"], rows, widths=[3.0, 13.0], size=9)
            ntab += 1
            i += 2
            continue
        if b[0] == "p" and F.plain(b[1]).startswith("The only ANSI sequences that Colorama converts") \
                and blocks[i + 1][0] == "code":
            F.docx_blocks(doc, [b], on_para=on_para)
            rows, group = [], ""
            for l in blocks[i + 1][1].split("\n"):
                if not l.strip():
                    continue
                if l.startswith("#"):
                    group = l.lstrip("# ").rstrip(":").strip()
                    continue
                seq, note = [x.strip() for x in l.split("#", 1)]
                rows.append([group or "—", seq, note])
            F.docx_table(doc, ["Group", "Sequence", "Meaning"], rows, widths=[3.6, 3.6, 9.0], size=9)
            ntab += 1
            i += 2
            continue
        if b[0] == "p" and re.fullmatch(r"init\((\w+)=(\w+)\):", F.plain(b[1])):
            p = doc.add_paragraph()
            r = p.add_run(F.plain(b[1])[:-1])
            r.bold = True
            r.font.name = "Consolas"
            i += 1
            continue
        F.docx_blocks(doc, [b], on_para=on_para)
        i += 1
    F.docx_core(doc, "Colorama 0.4.6 README", "colorama 0.4.6 README.rst", AUTHOR,
                "colorama, ANSI, Windows console, just_fix_windows_console, init")
    path = out / FILES["docx_en"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, ntab, len(used)


# ---------------------------------------------------------------------------
# HTML: blinker docs/index.rst (+ the CHANGES.rst it includes and the LICENSE it shows), in a docs-site shell
# ---------------------------------------------------------------------------
HTML_TMPL = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} (1.9.x)</title>
<link rel="canonical" href="https://blinker.readthedocs.io/en/stable/">
<style>
body {{ margin: 0; font-family: Georgia, "Times New Roman", serif; color: #3e4349; background: #fff; font-size: 17px; }}
header.site {{ border-bottom: 1px solid #ddd; padding: 0.6em 2em; display: flex; gap: 1.6em; align-items: baseline; }}
header.site a {{ color: #004b6b; text-decoration: none; font-family: "Helvetica Neue", Arial, sans-serif; font-size: 0.85em; }}
header.site .brand {{ font-weight: bold; font-size: 1.1em; color: #3e4349; }}
.page {{ display: flex; max-width: 1140px; margin: 0 auto; }}
main.body {{ flex: 1; padding: 1.5em 2.5em; min-width: 0; }}
aside.sphinxsidebar {{ width: 240px; padding: 1.5em 1em; font-size: 0.85em; border-left: 1px solid #eee; }}
aside.sphinxsidebar h3 {{ font-weight: normal; font-size: 1.2em; margin: 1.2em 0 0.4em; }}
aside.sphinxsidebar ul {{ list-style: none; padding-left: 0.6em; }}
aside.sphinxsidebar a {{ color: #444; text-decoration: none; }}
pre {{ background: #eeffcc; padding: 0.7em 1em; overflow-x: auto; font-size: 0.8em; line-height: 1.3; }}
code {{ font-family: Consolas, Menlo, monospace; font-size: 0.9em; background: #ecf0f3; padding: 0 2px; }}
dl.py.data dt {{ font-family: Consolas, Menlo, monospace; }}
.ethical-ad {{ border: 1px solid #ddd; padding: 0.6em; font-size: 0.8em; color: #666; margin-top: 1.5em; }}
footer.site {{ max-width: 1140px; margin: 2em auto 0; padding: 1em 2.5em 4em; font-size: 0.75em; color: #888;
  border-top: 1px solid #eee; }}
#cookie-banner {{ position: fixed; bottom: 0; left: 0; right: 0; background: #f4f4f4; border-top: 1px solid #ccc;
  padding: 0.8em 2em; font-family: Arial, sans-serif; font-size: 0.8em; display: flex; gap: 1em; align-items: center; }}
</style>
</head>
<body>
<header class="site" role="banner">
  <a class="brand" href="index.html">Blinker</a>
  <nav aria-label="Site navigation">
    <a href="index.html">Documentation</a> ·
    <a href="#changes">Changes</a> ·
    <a href="#mit-license">License</a> ·
    <a href="https://github.com/pallets-eco/blinker/">GitHub</a>
  </nav>
  <span class="version">v1.9.x (stable)</span>
</header>
<div class="page">
<main class="body" role="main">
<article class="document" itemscope itemtype="http://schema.org/Article">
{body}
</article>
</main>
<aside class="sphinxsidebar" role="navigation" aria-label="Main">
  <h3>Project Links</h3>
  <ul>
    <li><a href="https://pypi.org/project/blinker/">PyPI Releases</a></li>
    <li><a href="https://github.com/pallets-eco/blinker/">Source Code</a></li>
    <li><a href="https://github.com/pallets-eco/blinker/issues/">Issue Tracker</a></li>
  </ul>
  <h3>Contents</h3>
  <ul>
{toc}
  </ul>
  <div id="searchbox" role="search">
    <h3 id="searchlabel">Quick search</h3>
    <form class="search" action="search.html" method="get">
      <input type="text" name="q" aria-labelledby="searchlabel" autocomplete="off" spellcheck="false">
      <input type="submit" value="Go">
    </form>
  </div>
  <div class="ethical-ad">Sponsored · Ads by EthicalAds. Read the Docs is funded by its community and by privacy-preserving ads.</div>
</aside>
</div>
<footer class="site" role="contentinfo">
  <p>© Copyright 2010 Jason Kirtland. Created using Sphinx with the Flask theme from Pallets Sphinx Themes.</p>
  <p>Hosted by Read the Docs. Page source: docs/index.rst of the blinker 1.9.0 source distribution.</p>
</footer>
<div id="cookie-banner" role="dialog" aria-label="Cookie notice">
  <span>We use cookies to measure how this documentation is read and to keep the site running. See our privacy policy for details.</span>
  <button type="button" id="cookie-accept">Accept all</button>
  <button type="button" id="cookie-reject">Only necessary</button>
</div>
<script>
['cookie-accept', 'cookie-reject'].forEach(function (id) {{
  document.getElementById(id).addEventListener('click', function () {{
    document.getElementById('cookie-banner').style.display = 'none';
  }});
}});
</script>
</body>
</html>
"""


def blinker_text(bl: Path) -> str:
    text = (bl / "docs/index.rst").read_text(encoding="utf-8")
    # ".. function:: signal(name, doc=None)" with its :param: fields, shown as Sphinx does (Parameters / Return type)
    m = re.search(r"(?m)^\.\. function:: (.+)\n\n((?:    .*\n|\n)+?)(?=\S)", text)
    body = [l[4:] for l in m.group(2).split("\n")]
    prose, params, rtype = [], {}, ""
    for l in body:
        f = re.match(r"^:(param|type) (\w+): (.*)$", l)
        if f:
            params.setdefault(f.group(2), {})[f.group(1)] = f.group(3)
        elif l.startswith(":rtype: "):
            rtype = l[len(":rtype: "):]
        else:
            prose.append(l)
    fields = "\n".join(f"- ``{k}`` ({v['type']}) – {v['param']}" for k, v in params.items())
    new = (f".. data:: {m.group(1)}\n\n" + "\n".join("    " + l if l.strip() else "" for l in prose).rstrip()
           + "\n\n    Parameters:\n\n" + "\n".join("    " + l for l in fields.split("\n"))
           + f"\n\n    Return type: {rtype}\n\n")
    text = text[:m.start()] + new + text[m.end():]
    # the included changelog and the literal LICENSE, as the built page shows them
    text = text.replace(".. include:: ../CHANGES.rst", (bl / "CHANGES.rst").read_text(encoding="utf-8"))
    lic = (bl / "LICENSE.txt").read_text(encoding="utf-8").rstrip("\n")
    text = re.sub(r"(?m)^\.\. literalinclude:: \.\./LICENSE\.txt\n    :language: text\n",
                  lambda _: ".. code-block:: text\n\n" + "\n".join("    " + l if l else "" for l in lic.split("\n"))
                  + "\n", text)
    return text


def build_html(bl: Path, out: Path):
    blocks = F.parse_rst(blinker_text(bl))
    title = F.plain(next(b for b in blocks if b[0] == "h")[2])
    toc = []
    ids: dict[str, int] = {}
    for b in blocks:
        if b[0] == "h" and b[1] in (1, 2):
            sid = F.slug(b[2])
            if sid in ids:
                ids[sid] += 1
                sid = f"{sid}-{ids[sid]}"
            else:
                ids[sid] = 0
            if b[1] == 1 or not F.plain(b[2]).startswith("Version "):
                toc.append(f'    <li class="toctree-l{b[1]}"><a href="#{sid}">{escape(F.plain(b[2]))}</a></li>')
    html = HTML_TMPL.format(title=escape(title), toc="\n".join(toc), body=F.html_blocks(blocks))
    path = out / FILES["html"]
    path.write_text(html, encoding="utf-8")
    return path, sum(1 for b in blocks if b[0] == "h")


# ---------------------------------------------------------------------------
# English scan: sortedcontainers README, 2 pages, with a running header and footer
# ---------------------------------------------------------------------------
def render_traced(items, fonts, **kw):
    """fmtlib.render_pages, recording the strings drawn on each page."""
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
    drawn = [[t for i, t in calls if i == pid and t != "•"] for pid in ids]
    return pages, drawn


def build_scan_en(sc: Path, fonts_dir: Path, out: Path):
    text = dotted_underlines((sc / "README.rst").read_text(encoding="utf-8"))
    # the link-list sections (Documentation with its three guides, Talks, Resources) are left out
    a, z = text.index("Documentation\n-------------"), text.index("Sorted Containers License\n")
    text = text[:a] + text[z:]
    blocks = F.parse_rst(text)
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=10.5, page_in=(8.27, 11.69), margin_in=(0.9, 0.85),
                                 line_gap=1.4, header="sortedcontainers 2.4.0 — README.rst (printed copy)",
                                 footer="Python Sorted Containers — page {page} of {pages}")
    assert len(pages) == 2, len(pages)
    scans = [F.degrade(p, seed=7201 + k, noise=5.5, specks=0.0004)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_en"]
    F.save_pdf_scan(scans, path)
    SCAN_PAGES[path.name] = drawn
    SCAN_IMAGES[path.name] = scans
    return path, len(pages)


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ").replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", "", s)


def read_units(path: Path, scan_pages: dict):
    """(units, pages): units = [(location, text)] in reading order; pages = page texts for scans, else None."""
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
        for sec in d.sections:
            for p in sec.header.paragraphs:
                if p.text.strip():
                    units.append(("header", p.text))
        head = ""
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading"):
                    head = p.text
                if p.text.strip():
                    units.append((head, p.text))
            elif tag == "tbl":
                for row in Table(el, d).rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        for r in d.part.rels.values():
            if r.reltype.endswith("/footnotes"):
                xml = r.target_part.blob.decode("utf-8")
                for fn in re.findall(r"<w:footnote [^>]*w:id=\"(\d+)\"[^>]*>(.*?)</w:footnote>", xml, re.S):
                    if int(fn[0]) > 0:
                        units.append(("footnotes", unescape(re.sub(r"<[^>]+>", "", fn[1]))))
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

        def flush():
            t = "".join(buf).strip()
            if t:
                units.append((head[0], t))
            buf.clear()

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag in ("style", "script"):
                    state["skip"] += 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    flush()
                    state["in_h"], state["hbuf"] = True, []
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "ul", "ol", "header", "footer", "nav",
                             "aside", "main", "article", "form", "button", "span", "title"):
                    flush()

            def handle_endtag(self, tag):
                if tag in ("style", "script"):
                    state["skip"] -= 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    head[0] = "".join(state["hbuf"]).strip()
                    units.append((head[0], head[0]))
                    state["in_h"] = False
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "header", "footer", "nav", "aside",
                             "main", "article", "form", "button", "span", "title"):
                    flush()

            def handle_data(self, data):
                if not state["skip"]:
                    (state["hbuf"] if state["in_h"] else buf).append(data)
        P(convert_charrefs=True).feed(path.read_text(encoding="utf-8"))
        flush()
        return units, None
    if ext == ".pdf":
        from pypdf import PdfReader
        r = PdfReader(path)
        assert not "".join((pg.extract_text() or "") for pg in r.pages).strip(), f"{path.name} has a text layer"
        pages = scan_pages[path.name]
        assert len(r.pages) == len(pages), path.name
        return [], [" ".join(p) for p in pages]
    raise ValueError(path)


def check_qa(out: Path, qa: Path, scan_pages: dict, proxies: dict) -> int:
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    cache = {p.name: read_units(p, scan_pages) for p in sorted(out.iterdir()) if p.name in FILES.values()}
    assert set(cache) == set(FILES.values()), sorted(set(FILES.values()) - set(cache))
    full = {n: [norm(t) for _, t in u] if pg is None else [norm(" ".join(pg))] for n, (u, pg) in cache.items()}
    bad = 0
    ids = [it["id"] for it in items]
    assert ids == [f"fh7-{k:03d}" for k in range(1, len(items) + 1)], "ids must run fh7-001, fh7-002, ..."
    fields = {"id", "file", "question", "answer", "pages", "location", "evidence", "kind", "lang"}
    for it in items:
        problems = []
        assert set(it) == fields, (it["id"], set(it) ^ fields)
        if it["file"] not in cache:
            problems.append("unknown file")
            units, pages = [], None
        else:
            units, pages = cache[it["file"]]
        if it["kind"] == "near_miss":
            if not (it["answer"] is None and it["evidence"] is None and it["pages"] == [] and it["location"] is None):
                problems.append("near miss with non-null fields")
            px = proxies.get(it["id"])
            if not px or not 2 <= len(px) <= 4:
                problems.append("near miss needs 2-4 proxy strings")
            for s in px or []:
                hit = [n for n, ts in full.items() if any(norm(s) in t for t in ts)]
                if hit:
                    problems.append(f"proxy {s!r} occurs in {hit}")
        else:
            ans, ev = norm(it["answer"]), norm(it["evidence"])
            if not ans or ans not in ev:
                problems.append("answer not inside evidence")
            n = sum(t.count(ev) for t in full.get(it["file"], []))
            if n != 1:
                problems.append(f"evidence occurs {n} times in the file")
            if pages is not None:
                if not it["pages"] or it["location"] is not None:
                    problems.append("scan item needs pages and a null location")
                elif ev not in norm(" ".join(pages[p - 1] for p in it["pages"])):
                    problems.append(f"evidence not on pages {it['pages']}")
            else:
                if it["pages"] != [] or not it["location"]:
                    problems.append("non-scan item needs a location and no pages")
                scope = [t for l, t in units if l == it["location"]]
                if not any(ev in norm(t) for t in scope):
                    problems.append(f"evidence not in a unit at {it['location']!r}")
        if problems:
            bad += 1
            print(f"  FAIL {it['id']} {it['file']}: " + "; ".join(problems))
    from collections import Counter
    per_file = Counter(it["file"] for it in items if it["kind"] != "near_miss")
    for f in FILES.values():
        if per_file[f] < 4:
            bad += 1
            print(f"  FAIL {f}: only {per_file[f]} answerable items")
    kinds = Counter(it["kind"] for it in items)
    print(f"  QA: {len(items)} items ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))}), {bad} failures")
    return bad


def check_sources(qa: Path, src: Path) -> int:
    """English items: every word (4+ letters) of the evidence occurs in the source file(s) the document was made from."""
    sources = {FILES["csv"]: [src / "idna-3.20/HISTORY.md"],
               FILES["docx_en"]: [src / "colorama-0.4.6/README.rst"],
               FILES["html"]: [src / "blinker-1.9.0/docs/index.rst", src / "blinker-1.9.0/CHANGES.rst"],
               FILES["scan_en"]: [src / "sortedcontainers-2.4.0/README.rst"]}
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    bad = n = 0
    for it in items:
        if it["file"] not in sources or not it["evidence"]:
            continue
        n += 1
        words = set(re.findall(r"[A-Za-z]{4,}", " ".join(p.read_text(encoding="utf-8") for p in sources[it["file"]])))
        ev = it["evidence"]
        if it["file"] == FILES["csv"]:  # the version / date / entry_type cells are not prose of the source
            ev = re.sub(r"^\S+ \S+ (change|thanks|note) ", "", ev)
        missing = [w for w in re.findall(r"[A-Za-z]{4,}", ev) if w not in words]
        if missing:
            bad += 1
            print(f"  FAIL {it['id']}: evidence words not in the source: {missing}")
    print(f"  source check: {n} English evidence strings, {bad} with words not in their source")
    return bad


# ---------------------------------------------------------------------------
# legibility (optional): tesseract on the scans, character agreement with the drawn text
# ---------------------------------------------------------------------------
def ocr_check(qa: Path):
    import difflib
    if not shutil.which("tesseract"):
        print("  (tesseract not found: OCR legibility check skipped)")
        return
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()] if qa.exists() else []
    for name, imgs in SCAN_IMAGES.items():
        lang = "kor" if name == FILES["scan_ko"] else "eng"
        texts = []
        for k, img in enumerate(imgs):
            with tempfile.TemporaryDirectory() as td:
                p = Path(td) / "page.png"
                img.save(p)
                r = subprocess.run(["tesseract", str(p), "-", "-l", lang, "--psm", "3"], capture_output=True, text=True)
            got, want = norm(r.stdout), norm(" ".join(SCAN_PAGES[name][k]))
            texts.append(got)
            ratio = difflib.SequenceMatcher(None, want, got, autojunk=False).ratio()
            print(f"  OCR {name} page {k + 1} ({lang}, --psm 3): {ratio * 100:.1f}% character agreement")
        ans = [it for it in items if it["file"] == name and it["answer"]]
        found = sum(1 for it in ans if norm(it["answer"]) in "".join(texts[p - 1] for p in it["pages"]))
        print(f"  OCR {name}: {found} of {len(ans)} answers read verbatim")


# ---------------------------------------------------------------------------
def ko_font_dir(a) -> Path:
    for d in ([a.ko_fonts] if a.ko_fonts else []) + [a.fonts / "nanum", a.src / "fonts/usr/share/fonts/truetype/nanum"]:
        if (d / "NanumMyeongjo.ttf").exists():
            return d
    sys.exit("NanumMyeongjo.ttf not found: apt-get download fonts-nanum && dpkg-deb -x fonts-nanum_*.deb SRC/fonts")


def build_all(a, out: Path):
    SCAN_PAGES.clear()
    SCAN_IMAGES.clear()
    out.mkdir(parents=True, exist_ok=True)
    ko, s = ko_font_dir(a), a.src
    print(build_hwpx(out))
    print(build_hwp(out))
    print(build_scan_ko(ko, out))
    print(build_docx_ko(out))
    print(build_pptx(out))
    print(build_xlsx(out))
    print(build_csv(s / "idna-3.20", out))
    print(build_docx_en(s / "colorama-0.4.6", out))
    print(build_html(s / "blinker-1.9.0", out))
    print(build_scan_en(s / "sortedcontainers-2.4.0", a.fonts, out))
    return json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n"


def digests(out: Path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(out.iterdir()) if p.is_file()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/h7src", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--ko-fonts", default=None, type=Path)
    ap.add_argument("--qa", default=HERE.parent / "rag_formats_holdout7.jsonl", type=Path)
    ap.add_argument("--no-rebuild-check", action="store_true", help="skip the second build and sha256 comparison")
    ap.add_argument("--ocr", action="store_true", help="also run tesseract on the scans (legibility only)")
    a = ap.parse_args()
    if a.out.exists():
        for p in a.out.iterdir():
            if p.is_file() and p.name not in FILES.values():
                sys.exit(f"unexpected file in {a.out}: {p.name}")
    pages_json = build_all(a, a.out)
    (HERE / "scan_pages.json").write_text(pages_json, encoding="utf-8")
    failures = 0
    try:
        F.verify(a.out)
    except AssertionError as e:
        print(f"  FAIL verify: {e}")
        failures += 1
    if a.qa.exists():
        import qa_items
        failures += check_qa(a.out, a.qa, json.loads(pages_json), qa_items.NEAR_MISS_PROXIES)
        failures += check_sources(a.qa, a.src)
    else:
        print(f"  FAIL: no QA file at {a.qa} (run qa_items.py first)")
        failures += 1
    if a.ocr:
        ocr_check(a.qa)
    if not a.no_rebuild_check:
        first = digests(a.out)
        with tempfile.TemporaryDirectory() as td:
            again = build_all(a, Path(td))
            second = digests(Path(td))
        same = first == second and again == pages_json
        for n in sorted(set(first) | set(second)):
            if first.get(n) != second.get(n):
                print(f"  FAIL rebuild differs: {n}")
        if again != pages_json:
            print("  FAIL rebuild differs: scan_pages.json")
        print(f"  rebuild check: {len(first)} files and scan_pages.json " + ("byte-identical" if same else "DIFFER"))
        failures += not same
        for n, h in first.items():
            print(f"    {h}  {n}")
    if failures:
        print(f"FAILED ({failures})")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
