#!/usr/bin/env python3
"""Rebuild formats_holdout6 from the downloaded public sources and the Korean texts written for this set,
then check the QA file against it.

    python build.py [--src /tmp/h6src] [--out DIR] [--fonts /usr/share/fonts/truetype] [--qa FILE]
                    [--no-rebuild-check]

--src must hold (see SOURCES.md for how they were downloaded):
    backoff-2.2.1/  loguru-0.7.3/  schedule-1.2.2/  waitress-3.0.2/     (PyPI sdists, unpacked)
    fonts/          (optional: the Debian package fonts-nanum unpacked with dpkg-deb -x, used when NanumMyeongjo
                     is not installed under --fonts)
Fonts: NanumMyeongjo / NanumGothic (fonts-nanum), DejaVu (fonts-dejavu), Liberation (fonts-liberation).
Needs python-hwpx, python-docx, python-pptx, openpyxl, Pillow, numpy, pypdf (the repo venv).

The six Korean documents of the invented company 주식회사 단우건설 are original writing (ko_texts.py next to
this script); the build only lays them out. The four English documents copy their sentences from the source
files; the build only re-arranges them and adds layout. After building, every file is opened again with its own
library, the build is repeated in a temporary folder and compared byte for byte, and every item of the QA file
(../rag_formats_holdout6.jsonl) is checked: the answer lies in the evidence, the evidence occurs exactly once in
its file and lies in a unit at the item's location (or on the item's pages of a scan, whose drawn text is
recorded in scan_pages.json next to this script); near misses have null fields and proxy strings (qa_items.py)
that occur in no file. Any failure ends the script with a non-zero exit status.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
from html import escape
from html.parser import HTMLParser
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.dont_write_bytecode = True  # no __pycache__ next to the data
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py (benchmarks/data/fmtlib.py, used unchanged)
sys.path.insert(0, str(HERE))
import fmtlib as F  # noqa: E402
import ko_texts as K  # noqa: E402

SET = "formats_holdout6"
AUTHOR = f"{SET} build.py"
SCAN_PAGES: dict[str, list[list[str]]] = {}  # file name -> per page, the text lines drawn on it

FILES = {
    "hwpx": "danwoo_site_safety_rules_2026.hwpx",
    "hwp": "danwoo_partner_evaluation_guideline_2026.hwp",
    "scan_ko": "danwoo_winter_safety_plan_scan.pdf",
    "docx_ko": "danwoo_progress_billing_manual.docx",
    "pptx": "danwoo_2025q3_site_report.pptx",
    "xlsx": "danwoo_equipment_rental_2025.xlsx",
    "csv": "schedule_changelog_0.1-1.2.2.csv",
    "docx_en": "backoff_retry_decorators_guide.docx",
    "html": "loguru_readme_docs_page.html",
    "scan_en": "waitress_reverse_proxy_scan.pdf",
}


class BuildError(Exception):
    pass


def need(cond, msg):
    if not cond:
        raise BuildError(msg)


# ---------------------------------------------------------------------------
# Korean originals: the small markup of ko_texts.py -> (kind, value)
# ---------------------------------------------------------------------------
def ko_lines(text: str):
    out = []
    for line in text.strip("\n").split("\n"):
        if line.startswith("| "):
            cells = [c.strip() for c in line[2:].split(" | ")]
            if out and out[-1][0] == "table":
                need(len(cells) == len(out[-1][1][0]), f"table row width: {line}")
                out[-1][1].append(cells)
            else:
                out.append(("table", [cells]))
        elif line.startswith("== "):
            out.append(("h2", line[3:]))
        elif line.startswith("= "):
            out.append(("h1", line[2:]))
        elif line.strip() == "<<page>>":
            out.append(("page", ""))
        elif line.startswith(">> "):
            out.append(("right", line[3:]))
        elif line.startswith("> "):
            out.append(("center", line[2:]))
        elif line.startswith("::"):
            out.append(("field", line[2:]))
        elif line.startswith("※ "):
            out.append(("note", line))
        elif line.strip():
            out.append(("p", line))
    return out


def hwp_parts(text: str):
    parts = []
    for kind, v in ko_lines(text):
        if kind != "page":
            parts.append(("p", v) if kind in ("center", "note", "right", "field") else (kind, v))
    return parts


def build_hwpx(out: Path):
    return F.hwp_write(hwp_parts(K.SAFETY_RULES), out / FILES["hwpx"])


def build_hwp(out: Path):
    path = F.hwp_write(hwp_parts(K.PARTNER_GUIDELINE), out / FILES["hwp"])
    need(path.read_bytes()[:8] == bytes.fromhex("d0cf11e0a1b11ae1"), "the .hwp is not an OLE (HWP 5) file")
    return path


# ---------------------------------------------------------------------------
# Korean scan: an internal notice (공문) with a running header and footer on every page
# ---------------------------------------------------------------------------
def ko_font_dir(fonts_dir: Path, src: Path) -> Path:
    for d in (fonts_dir, src / "fonts/usr/share/fonts/truetype"):
        if (d / "nanum/NanumMyeongjo.ttf").exists():
            return d
    raise BuildError("NanumMyeongjo.ttf not found (install fonts-nanum or unpack it into SRC/fonts)")


def render_notice(lines, kdir: Path, *, size_pt=11.0, dpi=200):
    from PIL import Image, ImageDraw
    W, H = int(8.27 * dpi), int(11.69 * dpi)
    mx, my_top, my_bot = int(0.95 * dpi), int(1.05 * dpi), int(1.0 * dpi)
    px = lambda pt: int(round(pt / 72 * dpi))
    f = lambda name, pt: F._font(kdir / "nanum" / name, px(pt))
    reg, bold = f("NanumMyeongjo.ttf", size_pt), f("NanumMyeongjoBold.ttf", size_pt)
    title = f("NanumMyeongjoBold.ttf", size_pt * 1.55)
    h2f = f("NanumMyeongjoBold.ttf", size_pt * 1.08)
    gsmall = f("NanumGothic.ttf", size_pt * 0.8)
    gcell = f("NanumGothic.ttf", size_pt * 0.88)
    gcellb = f("NanumGothicBold.ttf", size_pt * 0.88)
    lh = int(reg.size * 1.6)
    pages, drawn = [], []
    st = {"y": 0}

    def new_page():
        img = Image.new("L", (W, H), 255)
        d = ImageDraw.Draw(img)
        pages.append((img, d))
        drawn.append([])
        left, right = K.WINTER_NOTICE_HEADER
        hy = my_top - px(size_pt * 2.6)
        d.text((mx, hy), left, font=gsmall, fill=70)
        d.text((W - mx - d.textlength(right, font=gsmall), hy), right, font=gsmall, fill=70)
        d.line([mx, hy + gsmall.size + px(3), W - mx, hy + gsmall.size + px(3)], fill=90, width=2)
        drawn[-1] += [left, right]
        st["y"] = my_top

    def put(x, s, font, fill=22):
        pages[-1][1].text((x, st["y"]), s, font=font, fill=fill)
        drawn[-1].append(s)

    def room(h):
        if st["y"] + h > H - my_bot:
            new_page()

    new_page()
    width = W - 2 * mx
    for kind, v in lines:
        d = pages[-1][1]
        if kind == "page":
            new_page()
        elif kind == "h1":
            st["y"] += px(size_pt * 0.4)
            put((W - d.textlength(v, font=title)) / 2, v, title)
            st["y"] += int(title.size * 1.9)
        elif kind == "field":
            room(lh)
            put(mx, v, reg)
            st["y"] += int(lh * 0.95)
        elif kind == "h2":
            if drawn[-1] and drawn[-1][-1].startswith("시행일자"):
                d.line([mx, st["y"] + px(4), W - mx, st["y"] + px(4)], fill=40, width=3)
                st["y"] += px(size_pt * 0.9)
            room(lh * 3)
            st["y"] += int(lh * 0.45)
            put(mx, v, h2f)
            st["y"] += int(lh * 1.1)
        elif kind in ("p", "note"):
            m = re.match(r"^([가-하]\. |\d+\) |※ )", v)
            base = mx + px(size_pt * 1.2)
            if m and m.group(1)[0].isdigit():
                base = mx + px(size_pt * 2.6)
            elif m and m.group(1).startswith("※"):
                base = mx + px(size_pt * 1.2)
            if v.startswith("붙임"):
                base = mx
            hang = base + (int(d.textlength(m.group(1), font=reg)) if m else 0)
            first_lines = F._wrap(d, reg, v, W - mx - base)
            room(lh)
            put(base, first_lines[0], reg)
            st["y"] += lh
            rest = " ".join(first_lines[1:])
            if rest:
                for l in F._wrap(d, reg, rest, W - mx - hang):
                    room(lh)
                    put(hang, l, reg)
                    st["y"] += lh
        elif kind == "right":
            st["y"] += int(lh * 1.2)
            room(lh)
            put(W - mx - d.textlength(v, font=h2f), v, h2f)
            st["y"] += lh
        elif kind == "table":
            rows = v
            ncol = len(rows[0])
            x0 = mx + px(size_pt * 1.2)
            tw = W - mx - x0
            colw = [max(d.textlength(r[c], font=gcell) for r in rows) + px(size_pt * 1.4) for c in range(ncol)]
            colw = [w * tw / sum(colw) for w in colw]
            rh = int(gcell.size * 2.0)
            room(rh * len(rows) + lh)
            dd = pages[-1][1]
            st["y"] += int(lh * 0.15)
            top = st["y"]
            for i, r in enumerate(rows):
                if i == 0:
                    dd.rectangle([x0, top, x0 + tw, top + rh], fill=228)
                x = x0
                for c, cell in enumerate(r):
                    fnt = gcellb if i == 0 else gcell
                    cw = dd.textlength(cell, font=fnt)
                    dd.text((x + (colw[c] - cw) / 2, st["y"] + (rh - fnt.size) / 2 - 2), cell, font=fnt, fill=22)
                    x += colw[c]
                drawn[-1].append(" ".join(r))
                st["y"] += rh
            for i in range(len(rows) + 1):
                dd.line([x0, top + i * rh, x0 + tw, top + i * rh], fill=35, width=2 if i in (0, 1, len(rows)) else 1)
            x = x0
            for c in range(ncol + 1):
                dd.line([x, top, x, top + rh * len(rows)], fill=35, width=1)
                if c < ncol:
                    x += colw[c]
            st["y"] += int(lh * 0.35)
    n = len(pages)
    for k, (img, d) in enumerate(pages):
        left, center = K.WINTER_NOTICE_FOOTER
        center = center.format(page=k + 1, pages=n)
        fy = H - my_bot + px(size_pt * 1.4)
        d.line([mx, fy - px(5), W - mx, fy - px(5)], fill=120, width=1)
        d.text((mx, fy), left, font=gsmall, fill=80)
        d.text(((W - d.textlength(center, font=gsmall)) / 2, fy), center, font=gsmall, fill=80)
        drawn[k] += [left, center]
    return [p[0] for p in pages], drawn


def build_scan_ko(fonts_dir: Path, src: Path, out: Path):
    pages, drawn = render_notice(ko_lines(K.WINTER_NOTICE), ko_font_dir(fonts_dir, src))
    need(len(pages) == 3, f"Korean scan has {len(pages)} pages")
    scans = [F.degrade(p, seed=6101 + k, noise=5.5, specks=0.0005)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_ko"]
    F.save_pdf_scan(scans, path, quality=70)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# Korean DOCX manual (headings, tables, footnotes)
# ---------------------------------------------------------------------------
def build_docx_ko(out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    from docx.oxml.ns import qn
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.3)
    normal = doc.styles["Normal"]
    normal.font.name = "Malgun Gothic"
    normal.font.size = Pt(10.5)
    normal.element.rPr.rFonts.set(qn("w:eastAsia"), "맑은 고딕")
    sec.header.paragraphs[0].text = "주식회사 단우건설 · 공무팀 사내 매뉴얼 · 문서번호 공무-MN-003"
    sec.footer.paragraphs[0].text = "본 매뉴얼은 사내 업무용이며 무단 배포를 금합니다."
    fns = F.DocxFootnotes(doc)
    nfn = ntab = 0
    for b in K.MANUAL:
        k = b[0]
        if k == "title":
            doc.add_heading(b[1], level=0)
        elif k == "sub":
            p = doc.add_paragraph()
            p.add_run(b[1]).italic = True
        elif k in ("h1", "h2"):
            doc.add_heading(b[1], level=1 if k == "h1" else 2)
        elif k in ("p", "li", "q"):
            m = re.match(r"^(.*?)(?:\[\[fn:(.*)\]\])?$", b[1], re.S)
            p = doc.add_paragraph(style="List Number" if k == "li" else None)
            r = p.add_run(m.group(1))
            r.bold = k == "q"
            if m.group(2):
                fns.add(p, m.group(2))
                nfn += 1
        elif k == "table":
            F.docx_table(doc, b[1][0], b[1][1:], size=9.5)
            doc.add_paragraph()
            ntab += 1
    F.docx_core(doc, K.MANUAL_TITLE, "기성 청구와 설계변경 처리 절차", "단우건설 공무팀", "기성, 설계변경, 물가변동")
    path = out / FILES["docx_ko"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, ntab, nfn


# ---------------------------------------------------------------------------
# Korean PPTX report (titles, tables, speaker notes)
# ---------------------------------------------------------------------------
def build_pptx(out: Path):
    prs = F._pptx()
    for s in K.REPORT_SLIDES:
        if s[0] == "title":
            F.slide_title(prs, s[1], s[2], notes=s[3])
        elif s[0] == "bullets":
            F.slide_bullets(prs, s[1], s[2], notes=s[3], size=22)
        elif s[0] == "table":
            F.slide_table(prs, s[1], s[2], s[3], s[4], notes=s[5], size=14)
    F.pptx_core(prs, "2025년 3분기 현장 운영 실적 보고", "공사관리본부 분기 보고", "단우건설 공사관리본부")
    path = out / FILES["pptx"]
    prs.save(path)
    F.fix_zip_times(path)
    return path, len(prs.slides)


# ---------------------------------------------------------------------------
# Korean XLSX (2 sheets, header row)
# ---------------------------------------------------------------------------
def build_xlsx(out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    wb = Workbook()
    fill = PatternFill("solid", fgColor="DDEBF7")
    sheets = [("장비임차", K.EQUIP_HEADER, K.EQUIP_ROWS, [11, 14, 20, 22, 13, 12, 12, 9, 13, 8, 30]),
              ("임차업체", K.VENDOR_HEADER, K.VENDOR_ROWS, [14, 30, 13, 15, 15, 10, 30])]
    for n, (name, header, rows, widths) in enumerate(sheets):
        ws = wb.active if n == 0 else wb.create_sheet(name)
        ws.title = name
        ws.append(header)
        for r in rows:
            ws.append([v if v != "" else None for v in r])
        for c in ws[1]:
            c.font, c.fill = Font(bold=True), fill
            c.alignment = Alignment(horizontal="center")
        for row in ws.iter_rows(min_row=2):
            for c in row:
                if isinstance(c.value, int):
                    c.number_format = "#,##0"
        for j, w in enumerate(widths):
            ws.column_dimensions[chr(65 + j)].width = w
        ws.freeze_panes = "A2"
        ws.auto_filter.ref = f"A1:{chr(64 + len(header))}{len(rows) + 1}"
    wb.properties.creator = "단우건설 장비팀"
    wb.properties.title = "2025년 건설장비 임차 현황"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / FILES["xlsx"]
    wb.save(path)
    F.fix_zip_times(path)
    return path, len(K.EQUIP_ROWS), len(K.VENDOR_ROWS)


# ---------------------------------------------------------------------------
# English CSV: schedule 1.2.2 HISTORY.rst, one row per entry
# ---------------------------------------------------------------------------
def src_norm(text: str) -> str:
    """Source text as the documents show it: no rst backticks / emphasis stars, no whitespace."""
    return re.sub(r"\s+", "", text.replace("``", "").replace("*", ""))


def build_csv(sch: Path, out: Path):
    raw = (sch / "HISTORY.rst").read_text(encoding="utf-8")
    blocks = F.parse_rst(raw)
    rows = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^(\d+\.\d+\.\d+) \((\d{4}-\d\d-\d\d)\)$", F.plain(title or ""))
        if not m:
            continue
        group = ""
        for b in body:
            if b[0] == "p":  # a label paragraph over a list ("Other changes:")
                group = F.plain(b[1]).strip().rstrip(":")
            elif b[0] == "ul":
                for it in b[1]:
                    t = F.plain(" ".join(x[1] for x in it if x[0] == "p"))
                    issues = "; ".join(dict.fromkeys(re.findall(r"#\d+", t)))
                    thanks = "; ".join(dict.fromkeys(re.findall(r"@[\w-]+", t.split("Thanks", 1)[1]
                                                                 if "Thanks" in t else
                                                                 (t.split(" by ", 1)[1] if " by @" in t else ""))))
                    rows.append([m.group(1), m.group(2), group, t, issues, thanks])
    need(len(rows) > 60, f"CSV rows: {len(rows)}")
    src = src_norm(raw)
    for r in rows:
        need(re.sub(r"\s+", "", r[3]) in src, f"CSV change not in source: {r[3]}")
        need(not r[2] or re.sub(r"\s+", "", r[2]) in src, r[2])
    path = out / FILES["csv"]
    F.write_csv(path, ["version", "date", "group", "change", "issues", "thanks"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# English DOCX: backoff 2.2.1 README.rst as a guide (headings, code, a table, footnotes for the links)
# ---------------------------------------------------------------------------
def build_docx_en(bo: Path, out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    raw = (bo / "README.rst").read_text(encoding="utf-8")
    links = {}
    for mm in re.finditer(r"`([^`<>]+?)\s*<(https?://[^>\s]+)>`__?", raw):
        links.setdefault(F.squash(mm.group(1)), mm.group(2))
    blocks = F.parse_rst(raw)
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    sec.header.paragraphs[0].text = "플랫폼개발팀 참고자료 · backoff 2.2.1 README (PyPI sdist)"
    fns = F.DocxFootnotes(doc)
    used = set()

    def on_para(p, t):
        for name, url in links.items():
            if name.lower() in used:
                continue
            if re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])", F.plain(t)):
                used.add(name.lower())
                fns.add(p, f"{name}: {url}")

    seen_h2 = False
    src = src_norm(re.sub(r"`([^`<>]+?)\s*<https?://[^>\s]+>`__?", r"\1", raw).replace("`", ""))
    ntab = 0
    for i, b in enumerate(blocks):
        if b[0] == "h":
            doc.add_heading(F.plain(b[2]), level=b[1])
            seen_h2 = seen_h2 or b[1] == 2
            if i == 0:
                p = doc.add_paragraph()
                p.add_run("Source: backoff 2.2.1, README.rst of the PyPI source distribution. The badges are left "
                          "out and the keys of the details dict are shown as a table.").italic = True
            continue
        if b[0] == "p" and re.fullmatch(r"\x03[^\x03\x04]+\x04", b[1]) and seen_h2:
            doc.add_heading(F.plain(b[1]), level=3)  # a bold line used as a sub-heading
            continue
        if b[0] == "ul" and all(re.match(r"^\w+: ", F.plain(it[0][1])) for it in b[1]):
            rows = [F.plain(it[0][1]).split(": ", 1) for it in b[1]]
            F.docx_table(doc, ["Key", "Meaning"], rows, widths=[3.0, 13.0], size=9.5)
            doc.add_paragraph()
            ntab += 1
            for r in rows:
                need(src_norm(r[0] + ": " + r[1]) in src, r)
            continue
        if b[0] in ("p", "ul", "ol"):
            for t in ([b[1]] if b[0] == "p" else [x[1] for it in b[1] for x in it if x[0] == "p"]):
                need(src_norm(F.plain(t)) in src, f"DOCX text not in source: {F.plain(t)[:80]}")
        F.docx_blocks(doc, [b], on_para=on_para)
    F.docx_core(doc, "backoff — function decoration for backoff and retry", "backoff 2.2.1 README.rst", AUTHOR,
                "backoff, retry, on_exception, on_predicate, jitter")
    path = out / FILES["docx_en"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, ntab, len(used)


# ---------------------------------------------------------------------------
# English HTML: loguru 0.7.3 README.md in a documentation-site shell
# ---------------------------------------------------------------------------
HTML_TMPL = """<!DOCTYPE html>
<html lang="en" data-theme="auto">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="Sphinx with the Furo theme">
<title>Overview — loguru documentation</title>
<link rel="canonical" href="https://loguru.readthedocs.io/en/stable/overview.html">
<style>
:root {{ --accent: #0f766e; --side: #f8f9fb; --border: #e5e7eb; }}
body {{ margin: 0; font-family: -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif;
  color: #1f2328; line-height: 1.55; }}
.announcement {{ background: var(--accent); color: #fff; text-align: center; font-size: 0.85em; padding: 0.4em; }}
.announcement a {{ color: #fff; }}
.page {{ display: flex; }}
aside.sidebar-drawer {{ width: 270px; background: var(--side); border-right: 1px solid var(--border);
  padding: 1.2em; font-size: 0.9em; min-height: 100vh; }}
aside.sidebar-drawer a {{ color: #333; text-decoration: none; }}
.sidebar-brand {{ font-weight: 700; font-size: 1.2em; display: block; margin-bottom: 0.8em; }}
.sidebar-search {{ width: 92%; padding: 0.45em; border: 1px solid var(--border); border-radius: 4px; }}
.caption-text {{ display: block; font-weight: 700; text-transform: uppercase; font-size: 0.78em; color: #666;
  margin: 1.4em 0 0.4em; }}
main.main {{ flex: 1; max-width: 48em; padding: 1.5em 3em 4em; }}
.breadcrumbs {{ font-size: 0.8em; color: #666; margin-bottom: 1em; }}
pre {{ background: #f6f8fa; border: 1px solid var(--border); border-radius: 4px; padding: 0.8em;
  overflow-x: auto; font-size: 0.85em; }}
code {{ font-family: "SFMono-Regular", Menlo, Consolas, monospace; font-size: 0.92em; }}
aside.toc-drawer {{ width: 230px; font-size: 0.82em; padding: 1.5em 1em; border-left: 1px solid var(--border); }}
aside.toc-drawer a {{ color: #555; text-decoration: none; display: block; margin: 0.2em 0; }}
footer.site-footer {{ border-top: 1px solid var(--border); margin-top: 3em; padding-top: 1em; font-size: 0.8em;
  color: #666; }}
.related-pages {{ display: flex; justify-content: space-between; margin-bottom: 1em; }}
#cookie-banner {{ position: fixed; left: 1em; right: 1em; bottom: 1em; background: #fff; border: 1px solid #ccc;
  box-shadow: 0 2px 12px rgba(0,0,0,.15); padding: 1em 1.4em; font-size: 0.88em; display: flex; gap: 1em;
  align-items: center; }}
</style>
</head>
<body>
<div class="announcement" role="note">Loguru 0.7.3 is the current stable release. <a href="project/changelog.html">See what changed</a>.</div>
<div class="page">
<aside class="sidebar-drawer">
  <nav class="sidebar-tree" aria-label="Main navigation">
    <a class="sidebar-brand" href="index.html">loguru</a>
    <form class="sidebar-search-container" method="get" action="search.html" role="search">
      <input class="sidebar-search" placeholder="Search" name="q" aria-label="Search">
    </form>
    <span class="caption-text">Table of contents</span>
    <ul>
      <li class="current"><a href="overview.html">Overview</a></li>
      <li><a href="api.html">API Reference</a></li>
      <li><a href="resources.html">Help &amp; Guides</a></li>
      <li><a href="project.html">Project Information</a></li>
    </ul>
    <span class="caption-text">Project links</span>
    <ul>
      <li><a href="https://github.com/Delgan/loguru">Source code on GitHub</a></li>
      <li><a href="https://pypi.org/project/loguru/">Package on PyPI</a></li>
      <li><a href="https://github.com/Delgan/loguru/issues">Issue tracker</a></li>
    </ul>
  </nav>
</aside>
<main class="main">
<div class="breadcrumbs" role="navigation" aria-label="Breadcrumbs"><a href="index.html">loguru</a> / Overview · <a href="_sources/overview.rst.txt">Show source</a></div>
<article role="main" id="furo-main-content">
{body}
</article>
<footer class="site-footer">
  <div class="related-pages">
    <a class="prev-page" href="index.html">« Previous: Home</a>
    <a class="next-page" href="api.html">Next: API Reference »</a>
  </div>
  <p>Copyright © Delgan. Made with Sphinx and the Furo theme. Released under the MIT license.</p>
  <p>Page source: README.md of the loguru 0.7.3 source distribution.</p>
</footer>
</main>
<aside class="toc-drawer" aria-label="On this page">
  <span class="caption-text">On this page</span>
{toc}
</aside>
</div>
<div id="cookie-banner" role="dialog" aria-live="polite" aria-label="Cookie notice">
  <span>We use cookies to measure how this documentation is used and to improve it. You can accept or refuse analytics cookies; essential cookies are always on.</span>
  <button type="button" data-consent="accept">Accept</button>
  <button type="button" data-consent="refuse">Refuse</button>
  <a href="privacy.html">Privacy policy</a>
</div>
<script>
document.querySelectorAll('#cookie-banner button').forEach(function (b) {{
  b.addEventListener('click', function () {{ document.getElementById('cookie-banner').remove(); }});
}});
</script>
</body>
</html>
"""


def build_html(lg: Path, out: Path):
    raw = (lg / "README.md").read_text(encoding="utf-8")
    summary = re.search(r"(?m)^Summary: (.+)$", (lg / "PKG-INFO").read_text(encoding="utf-8")).group(1).strip()
    text = re.sub(r"<!--.*?-->", "", raw, flags=re.S)
    # the struck-out feature and heading: keep the strike-through as a marker the writer turns into <s>
    text = re.sub(r"<s>\[([^\]]+)\]\([^)]*\)</s>", r"[\1](#struck)", text)
    text = re.sub(r"<s>\s*\n+(###[^\n]+)\n+\s*</s>", r"\1 {struck}", text)
    blocks = F.parse_md(text)
    struck = set()
    for i, b in enumerate(blocks):
        if b[0] == "h" and b[2].endswith("{struck}"):
            blocks[i] = ("h", b[1], b[2][: -len("{struck}")].strip())
            struck.add(blocks[i][2])
    blocks = [("h", 1, "Loguru"), ("p", summary)] + blocks
    body = F.html_blocks(blocks)
    for s in struck:
        body = body.replace(f">{escape(s, quote=False)}</h3>", f"><s>{escape(s, quote=False)}</s></h3>")
        body = body.replace(f"<li>{escape(s, quote=False)}</li>", f"<li><s>{escape(s, quote=False)}</s></li>")
    toc = []
    for b in blocks:
        if b[0] == "h" and b[1] in (2, 3):
            pad = "" if b[1] == 2 else ' style="padding-left:1em"'
            toc.append(f'  <a href="#{F.slug(b[2])}"{pad}>{escape(F.plain(b[2]))}</a>')
    src = src_norm(re.sub(r"\]\([^)]*\)", "", raw).replace("`", "").replace("[", ""))
    for b in blocks[2:]:
        if b[0] in ("p", "h"):
            need(src_norm(F.plain(b[-1])) in src, f"HTML text not in source: {F.plain(b[-1])[:80]}")
    html = HTML_TMPL.format(body=body, toc="\n".join(toc))
    path = out / FILES["html"]
    path.write_text(html, encoding="utf-8")
    return path, sum(1 for b in blocks if b[0] == "h")


# ---------------------------------------------------------------------------
# English scan: waitress 3.0.2 docs/reverse-proxy.rst, 2 pages
# ---------------------------------------------------------------------------
def render_traced(items, fonts, **kw):
    """fmtlib.render_pages, recording every string drawn on each page (header and footer included)."""
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


def build_scan_en(wt: Path, fonts_dir: Path, out: Path):
    raw = (wt / "docs/reverse-proxy.rst").read_text(encoding="utf-8")
    blocks = [b for b in F.parse_rst(raw) if not (b[0] == "p" and re.fullmatch(r"=+", F.plain(b[1])))]
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=10.5, page_in=(8.5, 11.0), margin_in=(0.9, 0.85),
                                 line_gap=1.36, header="Waitress 3.0.2 documentation » Using Behind a Reverse Proxy",
                                 footer="docs/reverse-proxy.rst — page {page} of {pages}")
    need(len(pages) == 2, f"English scan has {len(pages)} pages")
    scans = [F.degrade(p, seed=6201 + k, noise=4.5)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_en"]
    F.save_pdf_scan(scans, path, quality=72)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ").replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", "", s)


def read_units(path: Path, scan_pages: dict):
    """-> (units, pages): units = [(location, text)] in reading order; pages = page texts of a scan, else None."""
    ext = path.suffix.lower()
    units: list[tuple[str, str]] = []
    if ext in (".hwpx", ".hwp"):
        from hwpx import HwpxDocument
        d = HwpxDocument.open(path)
        head = ""
        for p in d.paragraphs:
            t = p.text if isinstance(p.text, str) else str(p.text)
            m = re.match(r"^(제\d+조(?:의\d+)?)[ (]", t)
            if t.strip() and str(p.style_id_ref) not in ("0", "None", ""):  # add_heading styles
                head = t.strip()
            elif m:
                head = m.group(1)
            for tb in p.tables:
                for r in range(tb.row_count):
                    units.append((head, " ".join(tb.cell(r, c).text for c in range(tb.column_count))))
            if t.strip():
                units.append((head, t))
        return units, None
    if ext == ".docx":
        from docx import Document
        from docx.table import Table
        from docx.text.paragraph import Paragraph
        d = Document(path)
        head = ""
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading"):
                    head = p.text
                units.append((head, p.text))
            elif tag == "tbl":
                for row in Table(el, d).rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        for rel in d.part.rels.values():
            if rel.reltype.endswith("/footnotes"):
                xml = rel.target_part.blob.decode("utf-8")
                for fn in re.findall(r"<w:footnote [^>]*>(.*?)</w:footnote>", xml, re.S):
                    t = re.sub(r"<[^>]+>", "", fn).strip()
                    if t:
                        units.append(("footnotes", t))
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
        st = {"in_h": False, "hbuf": [], "skip": 0}

        def flush():
            t = "".join(buf).strip()
            if t:
                units.append((head[0], t))
            buf.clear()

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag in ("script", "style"):
                    st["skip"] += 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    flush()
                    st["in_h"], st["hbuf"] = True, []
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "ul", "ol", "a", "span", "button"):
                    flush()

            def handle_endtag(self, tag):
                if tag in ("script", "style"):
                    st["skip"] -= 1
                elif tag in ("h1", "h2", "h3", "h4"):
                    head[0] = "".join(st["hbuf"]).strip()
                    units.append((head[0], head[0]))
                    st["in_h"] = False
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "span", "button"):
                    flush()

            def handle_data(self, data):
                if not st["skip"]:
                    (st["hbuf"] if st["in_h"] else buf).append(data)
        P(convert_charrefs=True).feed(path.read_text(encoding="utf-8"))
        flush()
        return units, None
    if ext == ".pdf":
        from pypdf import PdfReader
        r = PdfReader(path)
        need(not "".join((pg.extract_text() or "") for pg in r.pages).strip(), f"{path.name} has a text layer")
        pages = scan_pages[path.name]
        need(len(pages) == len(r.pages), f"{path.name}: scan_pages.json has {len(pages)} pages, PDF {len(r.pages)}")
        return [], [" ".join(p) for p in pages]
    raise BuildError(f"unknown format {path}")


def check_qa(out: Path, qa: Path, scan_pages: dict) -> int:
    import qa_items
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    docs = {p.name: read_units(p, scan_pages) for p in sorted(out.iterdir()) if p.name in FILES.values()}
    need(set(docs) == set(FILES.values()), "missing documents")
    # the whole text of each file: units kept apart by a separator; scan pages joined (evidence may cross a page)
    whole = {name: norm("\u241e".join(t for _, t in u)) if pg is None else norm(" ".join(pg))
             for name, (u, pg) in docs.items()}
    bad = 0
    seen_ids = set()

    def fail(it, msg):
        nonlocal bad
        bad += 1
        print(f"  FAIL {it['id']} {it['file']}: {msg}")

    fields = ["id", "file", "question", "answer", "pages", "location", "evidence", "kind", "lang"]
    for it in items:
        if list(it) != fields:
            fail(it, f"fields {list(it)}")
            continue
        if it["id"] in seen_ids or it["file"] not in docs:
            fail(it, "duplicate id or unknown file")
            continue
        seen_ids.add(it["id"])
        units, pages = docs[it["file"]]
        if it["kind"] == "near_miss":
            if not (it["answer"] is None and it["evidence"] is None and it["location"] is None and it["pages"] == []):
                fail(it, "near miss with non-null fields")
            prox = qa_items.PROXIES.get(it["id"], [])
            if not 2 <= len(prox) <= 4:
                fail(it, f"{len(prox)} proxy strings")
            for pstr in prox:  # case and whitespace ignored
                hit = [n for n, w in whole.items() if norm(pstr).lower() in w.lower()]
                if hit:
                    fail(it, f"proxy {pstr!r} occurs in {hit}")
            continue
        ans, ev = norm(it["answer"]), norm(it["evidence"])
        if not ans or not ev or ans not in ev:
            fail(it, "answer not inside evidence")
        n = whole[it["file"]].count(ev)
        if n != 1:
            fail(it, f"evidence occurs {n} times in the file")
        if pages is not None:
            if not it["pages"] or it["location"] is not None:
                fail(it, "scan item needs pages and a null location")
                continue
            if ev not in norm(" ".join(pages[p - 1] for p in it["pages"])):
                fail(it, f"evidence not on pages {it['pages']}")
            if len(it["pages"]) > 1 and any(ev in norm(pages[p - 1]) for p in it["pages"]):
                fail(it, "evidence lies on one page, but more pages are listed")
        else:
            if it["pages"] != [] or not it["location"]:
                fail(it, "non-scan item needs a location and no pages")
                continue
            scope = [t for l, t in units if l == it["location"]]
            if not scope:
                fail(it, f"no unit at location {it['location']!r}")
            elif not any(ev in norm(t) for t in scope):
                fail(it, f"evidence not in a unit at {it['location']!r}")
    kinds = {}
    for it in items:
        kinds[it["kind"]] = kinds.get(it["kind"], 0) + 1
    print(f"  QA: {len(items)} items {kinds}, {bad} failures")
    per_file = {n: sum(1 for it in items if it["file"] == n and it["kind"] != "near_miss") for n in docs}
    for n, c in per_file.items():
        if c < 4:
            print(f"  FAIL {n}: only {c} answerable items")
            bad += 1
    return bad


# ---------------------------------------------------------------------------
def build_all(src: Path, out: Path, fonts: Path, quiet=False):
    SCAN_PAGES.clear()
    out.mkdir(parents=True, exist_ok=True)
    say = (lambda *a: None) if quiet else print
    say(build_hwpx(out))
    say(build_hwp(out))
    say(build_scan_ko(fonts, src, out))
    say(build_docx_ko(out))
    say(build_pptx(out))
    say(build_xlsx(out))
    say(build_csv(src / "schedule-1.2.2", out))
    say(build_docx_en(src / "backoff-2.2.1", out))
    say(build_html(src / "loguru-0.7.3", out))
    say(build_scan_en(src / "waitress-3.0.2", fonts, out))
    return json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n"


def digests(folder: Path):
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())
            if p.name in FILES.values()}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/h6src", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--qa", default=HERE.parent / f"rag_{SET}.jsonl", type=Path)
    ap.add_argument("--no-rebuild-check", action="store_true", help="skip the second build and byte comparison")
    a = ap.parse_args()
    try:
        scan_json = build_all(a.src, a.out, a.fonts)
        (HERE / "scan_pages.json").write_text(scan_json, encoding="utf-8")
        F.verify(a.out)
        d1 = digests(a.out)
        for name, h in d1.items():
            print(f"  sha256 {h}  {name}")
        if not a.no_rebuild_check:
            with tempfile.TemporaryDirectory() as tmp:
                scan_json2 = build_all(a.src, Path(tmp), a.fonts, quiet=True)
                d2 = digests(Path(tmp))
            diff = [n for n in d1 if d1[n] != d2.get(n)]
            need(not diff and scan_json2 == scan_json, f"rebuild differs: {diff}")
            print(f"  rebuild: {len(d2)} files and scan_pages.json byte-identical")
        scan_pages = json.loads((HERE / "scan_pages.json").read_text(encoding="utf-8"))
        if not a.qa.exists():
            raise BuildError(f"no QA file at {a.qa} (run qa_items.py first)")
        bad = check_qa(a.out, a.qa, scan_pages)
        need(bad == 0, f"{bad} QA failures")
    except (BuildError, AssertionError) as e:
        print(f"BUILD FAILED: {e}", file=sys.stderr)
        sys.exit(1)
    print("  all checks passed")


if __name__ == "__main__":
    main()
