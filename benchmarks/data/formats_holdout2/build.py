#!/usr/bin/env python3
"""Rebuild formats_holdout2 from the downloaded public sources, then check the QA file against it.

    python build.py --src /tmp/fmt2_sources [--out DIR] [--fonts /usr/share/fonts/truetype] [--qa FILE]

--src must hold (see SOURCES.md for how they were downloaded):
    coverage-7.17.5/   marshmallow-4.4.0/   click-8.5.1/   attrs-26.1.0/   jinja2-3.1.6/   (sdists, unpacked)
    konlpy/data/corpus/kobill/1809891.txt, 1809892.txt, konlpy/data/corpus/kolaw/constitution.txt
                       (from the konlpy 0.6.0 wheel)
Fonts: fonts-nanum (NanumMyeongjo, NanumGothic) and fonts-dejavu / fonts-liberation.
Needs python-hwpx 6.9.0, python-docx, python-pptx, openpyxl, Pillow, numpy, pypdf (the repo venv).

Every sentence in the documents is copied from a source file; the build only re-arranges it and adds
layout (headings of tables, slide titles, web-page chrome, page footers). After building, every file is
opened again with its own library and every "answer" / "evidence" of the QA file (../rag_formats_holdout2.jsonl)
is looked up in that file's text, at the location or page the item names. For the image-only scans the
text of a page is what the renderer drew on it (recorded in scan_pages.json next to this script).
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py (an unchanged copy of benchmarks/data/fmtlib.py)
import fmtlib as F  # noqa: E402

SET = "formats_holdout2"
AUTHOR = f"{SET} build.py"
SCAN_PAGES: dict[str, list[list[str]]] = {}  # file name -> per page, the text lines drawn on it

FILES = {
    "hwpx": "constitution_assembly_and_government_ch3-4.hwpx",
    "hwp": "childcare_leave_bills_9891_9892.hwp",
    "docx": "coverage_commands_run_combine_erase_debug.docx",
    "pptx": "click_release_briefing_8.4.1-8.5.1.pptx",
    "xlsx": "marshmallow_changelog_4.0-4.4.xlsx",
    "csv": "coverage_changes_7.16-7.17.csv",
    "html": "attrs_initialization_guide.html",
    "scan_ko": "constitution_courts_ch5-6_scan.pdf",
    "scan_png": "jinja_readme_scan.png",
    "scan_pdf": "marshmallow_readme_scan.pdf",
}


# ---------------------------------------------------------------------------
# MyST (Markdown) roles and colon fences -> the CommonMark subset fmtlib reads
# ---------------------------------------------------------------------------
def myst(text: str) -> str:
    def role(m):
        r, body = m.group(1), m.group(2)
        if r in ("pr", "issue"):
            return "#" + body
        if r in ("term", "doc", "ref"):
            return F.plain(F._role(r, body))
        out = F.plain(F._role(r, body))
        return "`" + out + "`"
    text = re.sub(r"\{([a-z:-]+)\}`([^`]+)`", role, text)
    text = re.sub(r"(?m)^:::\{(\w+)\}\s*$", r"```{\1}", text)
    text = re.sub(r"(?m)^:::\s*$", "```", text)
    text = text.replace("```{doctest}", "```python")
    return text


# ---------------------------------------------------------------------------
# Korean: the constitution (kolaw) and two bills (kobill)
# ---------------------------------------------------------------------------
def constitution_lines(kolaw: Path, first: str, stop: str):
    lines = [l.strip() for l in (kolaw / "constitution.txt").read_text(encoding="utf-8").replace("\r", "").split("\n")]
    a = lines.index(first)
    b = lines.index(stop)
    return [l for l in lines[a:b] if l]


def build_hwpx(kolaw: Path, out: Path):
    src = (kolaw / "constitution.txt").read_text(encoding="utf-8")
    lines = constitution_lines(kolaw, "제3장 국회", "제5장 법원")
    parts = [("h1", "대한민국헌법 (제3장 국회 · 제4장 정부)")]
    for l in lines:
        if re.match(r"^제\d+장 ", l):
            parts.append(("h1", l))
        elif re.match(r"^제\d+[절관] ", l):
            parts.append(("h2", l))
        else:
            parts.append(("p", l))

    def line(start):
        hits = [l for l in lines if l.startswith(start)]
        assert len(hits) == 1, (start, hits)
        return hits[0]
    terms = [["구분", "조문", "원문"],
             ["국회의원", "제42조", line("제42조")],
             ["대통령", "제70조", line("제70조")],
             ["감사원장", "제98조제2항", line("②원장은 국회의 동의를")],
             ["감사위원", "제98조제3항", line("③감사위원은 원장의 제청으로")]]
    votes = [["구분", "조문", "원문"],
             ["일반 의결", "제49조", line("제49조")],
             ["법률안 재의결", "제53조제4항", line("④재의의 요구가 있을 때에는")],
             ["국무총리·국무위원 해임건의", "제63조제2항", line("②제1항의 해임건의는")],
             ["의원 제명", "제64조제3항", line("③의원을 제명하려면")],
             ["탄핵소추", "제65조제2항", line("②제1항의 탄핵소추는")],
             ["계엄 해제 요구", "제77조제5항", line("⑤국회가 재적의원 과반수의 찬성으로")]]
    parts += [("h1", "부록: 조문 정리표"), ("h2", "임기에 관한 조항"), ("table", terms),
              ("h2", "의결·발의 정족수에 관한 조항"), ("table", votes)]
    for p in parts:
        if p[0] == "p":
            assert F.check_in_source(p[1], src), p[1]
    return F.hwp_write(parts, out / FILES["hwpx"])


def member_header(b: F.Bill):
    raw = b.raw
    num = re.search(r"번 호\s*\n\s*\n?(\d{4})", raw).group(1)
    date = F.squash(re.search(r"발의연월일 : ([0-9. ]+)", raw).group(1))
    rep = F.squash(re.search(r"\((\S+의원) 대표발의 \)", raw).group(1))
    who = raw[raw.index("발  의  자 :") + len("발  의  자 :"):]
    who = who[: who.index("제안이유")]
    who = F.squash(" ".join(l.strip() for l in who.split("\n") if l.strip())).translate(F.KO_GLYPH_MAP)
    return rep, [["항목", "내용"], ["의안번호", num], ["발의연월일", date], ["대표발의", rep], ["발의자", who]]


def bill_parts(b: F.Bill, title: str):
    rep, head = member_header(b)
    parts = [("h1", title), ("p", f"({rep} 대표발의)"), ("table", head), ("h2", "제안이유 및 주요내용")]
    parts += [("p", p) for p in b.paras("제안이유 및 주요내용", "법률  제")[1:]]
    law = title.replace(" 일부개정법률안", "")
    body = b.paras(f"{law} 일부를 다음과 같이", "부      칙")
    parts += [("h2", "개정문")] + [("p", p) for p in body]
    parts += [("h2", "부칙")] + [("p", p) for p in b.paras("부      칙", "신 ·구조문대비표")[1:]]
    for p in parts:
        if p[0] == "p" and not p[1].startswith("("):
            assert F.check_in_source(p[1], b.raw), p[1]
    return parts


def build_hwp(kobill: Path, out: Path):
    b91 = F.Bill(kobill / "1809891.txt")
    b92 = F.Bill(kobill / "1809892.txt")
    parts = bill_parts(b91, "국가공무원법 일부개정법률안")
    parts += bill_parts(b92, "교육공무원법 일부개정법률안")
    # The 비용추계서 미첨부사유서 is the same text in both bills (only its title names the bill); it is given once.
    parts.append(("h1", "비용추계서 미첨부사유서 (국가공무원법 일부개정법률안 등)"))
    def sec(a, z, head=None, merge=()):
        ps = b92.paras(a, z, after="비용추계서 미첨부사유서", merge=merge)
        if head:  # the heading line was joined to the first paragraph
            assert ps[0].startswith(head), ps[0]
            ps[0] = ps[0][len(head):].strip()
        return ps
    parts += [("h2", "1. 재정수반요인")] + [("p", p) for p in sec("1.  재정수반요인", "2.  미첨부", "1. 재정수반요인",
                                                                merge=("제7조 중",))]
    rule = b92.cut("｢의안의 비용추계에 관한 규칙｣", "해당함.")
    parts += [("h2", "2. 미첨부 근거 규정"), ("p", rule)]
    reason = sec("3.  미첨부  사유", "발생비용 :", "3. 미첨부 사유")
    parts += [("h2", "3. 미첨부 사유")] + [("p", p) for p in reason]
    parts += [("p", F.squash(b92.lines_between("발생비용 :", "N\n")[0]))]
    parts += [("table", [["변수", "정의"], ["N", "육아휴직대상자의 수"], ["P", "육아휴직대상자의 월급여액"],
                         ["p", "육아휴직자가 발생한 경우 대체 고용할 확률"], ["X", "대체 고용한 인력에게 지급하는 월급여액"]])]
    parts += [("p", b92.cut("위의 수식에서 육아휴직급여액은", "[표]와 같다."))]
    parts += [("p", "[표] 육아휴직급여 수급자의 수 및 대체인력 고용 현황: 2007~2011년 (단위: 명, %)")]
    parts += [("table", [["구분", "2007", "2008", "2009", "2010", "2011", "평균"],
                         ["육아휴직급여 수급자(A)", "21,185", "29,145", "35,400", "41,291", "43,899", "34,184"],
                         ["대체인력 채용(B)", "796", "1,658", "1,957", "2,396", "2,836", "1,929"],
                         ["비율(B/A)", "3.8", "5.7", "5.5", "5.8", "6.5", "5.6"]])]
    parts += [("p", "자료: 고용노동부 자료를 바탕으로 국회예산정책처 작성")]
    parts += [("p", p) for p in sec("위의 [표]의 자료에 따라", "N×p×X + N×육아휴직급여액 - N×P > 0")]
    parts += [("p", "N×p×X + N×육아휴직급여액 - N×P > 0 (1)"), ("p", "N×5.6%×X + N×P×40% - N×P > 0 (2)"),
              ("p", "0.056×X > 0.6P (3)"), ("p", "X > 10.7×P (5)")]
    parts += [("p", p) for p in sec("위의 수식에 육아휴직자가 받는", "4.  작성자")]
    parts += [("h2", "4. 작성자"), ("p", "국회예산정책처 법안비용추계1팀"), ("p", "팀장 정문종"),
              ("p", "예산분석관 김태완 (02-788-4649, tanzania@assembly.go.kr)")]
    # the 사유서 must be the same text in both bills; the tables' cells must be source text too
    start = parts.index(("h1", "비용추계서 미첨부사유서 (국가공무원법 일부개정법률안 등)"))
    for b in (b91, b92):
        for p in parts[start:]:
            if p[0] == "p":
                t = re.sub(r" \([1-5]\)$", "", p[1])  # the formula numbers stand apart in the source
                assert F.check_in_source(t, b.raw), (b.path.name, t)
            elif p[0] == "table":
                for row in p[1][1:]:
                    for v in row:
                        assert F.check_in_source(v, b.raw), (b.path.name, v)
    return F.hwp_write(parts, out / FILES["hwp"])


def build_scan_ko(kolaw: Path, fonts_dir: Path, out: Path):
    src = (kolaw / "constitution.txt").read_text(encoding="utf-8")
    lines = constitution_lines(kolaw, "제5장 법원", "제7장 선거관리")
    items = [("title", "대한민국헌법"), ("center", "(제5장 법원 · 제6장 헌법재판소)"), ("gap", 0.6)]
    for l in lines:
        if re.match(r"^제\d+장 ", l):
            items.append(("h", l))
        else:
            assert F.check_in_source(l, src), l
            items.append(("p", l))
    items = [(k, t.translate(F.KO_GLYPH_MAP) if isinstance(t, str) else t) for k, t in items]
    fonts = F.Fonts(fonts_dir / "nanum/NanumMyeongjo.ttf", fonts_dir / "nanum/NanumMyeongjoBold.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=11.5, korean=True, footer="- {page} -")
    scans = [F.degrade(p, seed=9101 + k)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_ko"]
    F.save_pdf_scan(scans, path)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# scans: record the text drawn on each page
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
    drawn = [[t for i, t in calls if i == pid and t != "•"] for pid in ids]
    return pages, drawn


def clean_rst_readme(blocks):
    out = []
    for b in blocks:
        if b[0] == "p" and (re.fullmatch(r"[*=\-]+", F.plain(b[1]).strip()) or F.plain(b[1]).startswith("|")):
            continue
        out.append(b)
    return out


def build_scan_png(jinja: Path, fonts_dir: Path, out: Path):
    blocks = F.parse_md((jinja / "README.md").read_text(encoding="utf-8"))
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "dejavu/DejaVuSerif.ttf", fonts_dir / "dejavu/DejaVuSerif-Bold.ttf",
                    fonts_dir / "dejavu/DejaVuSansMono.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=10.5, page_in=(8.5, 11.0), margin_in=(0.9, 0.8),
                                 line_gap=1.4, footer="Jinja README — {page}")
    assert len(pages) == 1, len(pages)
    img = F.degrade(pages[0], seed=3161, noise=5.5, specks=0.0006)[0]
    img = img.point(lambda v: (v // 16) * 17)  # 16 grey levels, as a cheap scanner stores them
    path = out / FILES["scan_png"]
    img.save(path, dpi=(200, 200), optimize=True)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


def build_scan_pdf(mm: Path, fonts_dir: Path, out: Path):
    blocks = clean_rst_readme(F.parse_rst((mm / "README.rst").read_text(encoding="utf-8")))
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages, drawn = render_traced(items, fonts, size_pt=11, page_in=(8.27, 11.69), margin_in=(0.9, 0.85),
                                 footer="marshmallow README — page {page} of {pages}")
    scans = [F.degrade(p, seed=4400 + k)[0] for k, p in enumerate(pages)]
    path = out / FILES["scan_pdf"]
    F.save_pdf_scan(scans, path)
    SCAN_PAGES[path.name] = drawn
    return path, len(pages)


# ---------------------------------------------------------------------------
# DOCX: coverage.py commands (run, combine, erase, debug)
# ---------------------------------------------------------------------------
def ref_titles(doc_dir: Path) -> dict[str, str]:
    """label -> section title, for the `.. _label:` targets of the coverage docs (as Sphinx renders :ref:)."""
    out = {}
    for f in sorted(doc_dir.rglob("*.rst")):
        lines = f.read_text(encoding="utf-8").split("\n")
        for i, l in enumerate(lines):
            m = re.match(r"^\.\. _([\w-]+):\s*$", l)
            if not m:
                continue
            j = i + 1
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith(".. _")):
                j += 1
            if j + 1 < len(lines) and re.fullmatch(r"([=\-~.^\"'`#*+])\1{2,}", lines[j + 1].strip()):
                out[m.group(1)] = lines[j].strip().replace("``", "")
            elif j + 2 < len(lines) and re.fullmatch(r"([=\-~.^\"'`#*+])\1{2,}", lines[j].strip()):
                out[m.group(1)] = lines[j + 1].strip().replace("``", "")
    return out


def rst_prep(text: str, titles: dict[str, str]) -> str:
    """Markup only: '....' underlines -> '~~~~' (fmtlib knows no '.'), :ref:`label` -> :ref:`Title <label>`."""
    text = re.sub(r"(?m)^(\S.*)\n(\.{3,})[ \t]*$", lambda m: m.group(1) + "\n" + "~" * len(m.group(2)), text)
    text = re.sub(r":ref:`([\w-]+)`", lambda m: f":ref:`{titles[m.group(1)]} <{m.group(1)}>`" if m.group(1) in titles
                  else m.group(0), text)
    return text


def help_table(code: str):
    """Split a `coverage CMD --help` listing into (usage, description paragraphs, [(option, text)])."""
    lines = code.split("\n")
    usage = next(l for l in lines if l.startswith("Usage:"))
    k = lines.index(usage) + 1
    o = lines.index("Options:")
    desc = [F.squash(p) for p in "\n".join(lines[k:o]).split("\n\n") if p.strip()]
    rows = []
    for l in lines[o + 1:]:
        m = re.match(r"^  (-\S.*?)(?:\s{2,}(\S.*))?$", l)
        if m:
            rows.append([m.group(1), m.group(2) or ""])
        elif l.strip():
            rows[-1][1] = (rows[-1][1] + " " + l.strip()).strip()
    return usage, desc, rows


def build_docx(cov: Path, out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    sec.header.paragraphs[0].text = "사내 기술 참고자료 · coverage.py 7.17.5 documentation — doc/commands"
    fns = F.DocxFootnotes(doc)
    targets: dict[str, str] = {}
    used = set()

    def on_para(p, text):
        for name, url in targets.items():
            if name not in used and url.startswith("http") and re.search(r"(?<![\w-])" + re.escape(name) + r"(?![\w-])",
                                                                          F.plain(text)):
                used.add(name)
                fns.add(p, f"{name}: {url}")

    titles = ref_titles(cov / "doc")
    files = ["index.rst", "cmd_run.rst", "cmd_combine.rst", "cmd_erase.rst", "cmd_debug.rst"]
    first = True
    for fn in files:
        text = rst_prep((cov / "doc/commands" / fn).read_text(encoding="utf-8"), titles)
        blocks = F.parse_rst(text, targets=targets)
        # the env.py link target is named with a trailing underscore in the source
        blocks = [b for b in blocks if not (b[0] == "p" and re.fullmatch(r"[=\-.]+", F.plain(b[1]).strip()))]
        if fn == "index.rst":
            # drop the last section ("Commands": a toctree the document replaces with the pages themselves)
            cut = max(i for i, b in enumerate(blocks) if b[0] == "h" and F.plain(b[2]) == "Commands")
            blocks = blocks[:cut]
        for b in blocks:
            if b[0] == "h":
                lvl = b[1]
                if fn == "index.rst":
                    lvl = 1 if first else 2
                else:
                    lvl = lvl + 1
                if first:
                    doc.add_heading(F.plain(b[2]), level=1)
                    p = doc.add_paragraph()
                    p.add_run("Source: coverage.py 7.17.5 documentation, doc/commands/index.rst, cmd_run.rst, "
                              "cmd_combine.rst, cmd_erase.rst and cmd_debug.rst. Text copied from the original; "
                              "the options of each command's --help output are given as a table.").italic = True
                    first = False
                    continue
                doc.add_heading(F.plain(b[2]), level=min(lvl, 3))
            elif b[0] == "code" and "--help" in b[1].split("\n")[0] and "Options:" in b[1]:
                usage, desc, rows = help_table(b[1])
                F.docx_code(doc, b[1].split("\n")[0] + "\n" + usage)
                for d in desc:
                    doc.add_paragraph(d)
                F.docx_table(doc, ["Option", "Description"], rows, widths=[5.0, 12.5], size=9)
                doc.add_paragraph()
            else:
                F.docx_blocks(doc, [b], on_para=on_para)
    F.docx_core(doc, "coverage.py commands: run, combine, erase, debug", "coverage.py 7.17.5 doc/commands", AUTHOR,
                "coverage.py, command line, data files")
    path = out / FILES["docx"]
    doc.save(path)
    F.fix_zip_times(path)
    return path, len(used)


# ---------------------------------------------------------------------------
# PPTX: Click 8.4.1 – 8.5.1 release briefing
# ---------------------------------------------------------------------------
def click_changes(click: Path):
    blocks = F.parse_md(myst((click / "CHANGES.md").read_text(encoding="utf-8")))
    rel = {}
    order = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^Version (\S+)$", F.plain(title or ""))
        if not m:
            continue
        date = ""
        entries = []
        for b in body:
            if b[0] == "p" and F.plain(b[1]).startswith("Released"):
                date = F.plain(b[1]).replace("Released", "").strip()
            elif b[0] == "ul":
                entries += [F.plain(F.block_text(it)) for it in b[1]]
        rel[m.group(1)] = (date, entries)
        order.append(m.group(1))
    return rel, order


def build_pptx(click: Path, out: Path):
    rel, order = click_changes(click)
    vers = ["8.5.1", "8.5.0", "8.4.2", "8.4.1"]
    prs = F._pptx()
    F.slide_title(prs, "Click 8.4.1 – 8.5.1 릴리스 브리핑",
                  f"Changes in Click 8.4.1 ({rel['8.4.1'][0]}) to 8.5.1 ({rel['8.5.1'][0]})\n"
                  "Source: click 8.5.1 sdist, CHANGES.md",
                  notes="All slide text is copied from the Click changelog (CHANGES.md). Bullets give the first "
                        "sentence of each entry; the speaker notes hold the full entries with their issue and "
                        "pull request numbers.")
    rows = [[v, rel[v][0], str(len(rel[v][1]))] for v in vers]
    F.slide_table(prs, "Release timeline", ["Version", "Released", "Entries"], rows, [2.0, 3.0, 1.6],
                  notes="Release dates as given in CHANGES.md (\"Released YYYY-MM-DD\"). Click 8.4.0 "
                        f"({rel['8.4.0'][0]}) is not part of this briefing.")

    def slide(title, v, idx):
        es = [rel[v][1][i] for i in idx]
        F.slide_bullets(prs, title, [(0, F.first_sentence(F.split_refs(e)[0])) for e in es],
                        notes=f"{v} ({rel[v][0]})\n" + "\n".join("- " + e for e in es))
    e85 = rel["8.5.0"][1]
    n851, n850 = len(rel["8.5.1"][1]), len(e85)
    slide("8.5.1: help output and parameters", "8.5.1", range(0, 7))
    slide("8.5.1: help text and envvar display", "8.5.1", range(7, n851))
    slide("8.5.0: completion, styles and prompts", "8.5.0", range(0, 8))
    slide("8.5.0: help option, deprecations and typing", "8.5.0", range(8, 16))
    slide("8.5.0: pager fixes on Windows and more", "8.5.0", range(16, n850))
    slide(f"8.4.2 ({rel['8.4.2'][0]}): fixes", "8.4.2", range(len(rel["8.4.2"][1])))
    slide(f"8.4.1 ({rel['8.4.1'][0]}): fixes", "8.4.1", range(len(rel["8.4.1"][1])))
    F.pptx_core(prs, "Click 8.4.1 – 8.5.1 release briefing", "click 8.5.1 CHANGES.md", AUTHOR)
    path = out / FILES["pptx"]
    prs.save(path)
    F.fix_zip_times(path)
    return path, len(prs.slides)


# ---------------------------------------------------------------------------
# XLSX: marshmallow changelog 4.0.0 – 4.4.0
# ---------------------------------------------------------------------------
def marshmallow_changes(mm: Path):
    text = (mm / "CHANGELOG.rst").read_text(encoding="utf-8")
    text = re.sub(r":cve:`([^`]+)`", r"CVE-\1", text)
    blocks = F.parse_rst(text)
    rel = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^([\d.]+) \((\d{4}-\d\d-\d\d)\)$", F.plain(title or ""))
        if not m:
            continue
        sec = ""
        items = []
        for b in body:
            if b[0] == "p" and re.fullmatch(r"[A-Z][\w/ -]+:", F.plain(b[1]).strip()):
                sec = F.plain(b[1]).strip().rstrip(":")
            elif b[0] == "p":
                items.append((sec, "paragraph", F.plain(b[1])))
            elif b[0] == "ul":
                items += [(sec, "item", F.plain(F.block_text(it))) for it in b[1]]
        rel.append((m.group(1), m.group(2), items))
    return rel


def build_xlsx(mm: Path, out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    rel = [r for r in marshmallow_changes(mm) if r[0].startswith("4.")]
    wb = Workbook()
    ws = wb.active
    ws.title = "Changes"
    ws.append(["Version", "Date", "Section", "Kind", "Change", "PR / issue"])
    n = 0
    for ver, date, items in rel:
        for sec, kind, text in items:
            refs = ", ".join(re.findall(r"#\d+", text))
            ws.append([ver, date, sec, kind, text, refs])
            n += 1
    fill = PatternFill("solid", fgColor="DDEBF7")
    for c in ws[1]:
        c.font, c.fill = Font(bold=True), fill
    for row in ws.iter_rows(min_row=2):
        for c in row:
            c.alignment = Alignment(vertical="top", wrap_text=(c.column == 5))
    for col, w in zip("ABCDEF", [9, 12, 22, 10, 100, 16]):
        ws.column_dimensions[col].width = w
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:F{n + 1}"
    secs = []
    for _, _, items in rel:
        for s, k, _ in items:
            if k == "item" and s not in secs:
                secs.append(s)
    ws2 = wb.create_sheet("Releases")
    ws2.append(["Version", "Date"] + secs + ["Total items"])
    for ver, date, items in rel:
        cnt = [sum(1 for s, k, _ in items if s == sec and k == "item") for sec in secs]
        ws2.append([ver, date] + cnt + [sum(cnt)])
    for c in ws2[1]:
        c.font, c.fill = Font(bold=True), fill
    ws2.column_dimensions["A"].width = 10
    ws2.column_dimensions["B"].width = 12
    ws2.freeze_panes = "C2"
    wb.properties.creator = AUTHOR
    wb.properties.title = "marshmallow changelog 4.0.0 – 4.4.0"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / FILES["xlsx"]
    wb.save(path)
    F.fix_zip_times(path)
    return path, n


# ---------------------------------------------------------------------------
# CSV: coverage.py changes 7.16.0 – 7.17.5
# ---------------------------------------------------------------------------
def build_csv(cov: Path, out: Path):
    blocks = F.parse_rst((cov / "CHANGES.rst").read_text(encoding="utf-8"))
    rows = []
    cur = None
    for b in blocks:
        if b[0] == "h":
            m = re.match(r"^Version ([\d.]+) — (\d{4}-\d\d-\d\d)$", F.plain(b[2]))
            cur = m.groups() if m else None
            continue
        if cur is None:
            continue
        v = tuple(int(x) for x in cur[0].split("."))
        if not ((7, 16, 0) <= v <= (7, 17, 5)):
            continue
        texts = [F.plain(F.block_text(it)) for it in b[1]] if b[0] == "ul" else \
            ([F.plain(b[1])] if b[0] == "p" else [])
        for t in texts:
            m = re.match(r"^(Fix|Feature|Performance):", t)
            kind = m.group(1) if m else ""
            refs = "; ".join(re.findall(r"\b(?:issue|pull) \d+", t))
            rows.append([cur[0], cur[1], kind, t, refs])
    path = out / FILES["csv"]
    F.write_csv(path, ["version", "release_date", "type", "change", "references"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# HTML: attrs "Initialization"
# ---------------------------------------------------------------------------
HTML_TMPL = """<!doctype html>
<html lang="en" data-content_root="./">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="sphinx, furo">
<title>{title} - attrs 26.1.0 documentation</title>
<link rel="canonical" href="https://www.attrs.org/en/stable/init.html">
<style>
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; line-height: 1.6; color: #222; }}
.announcement {{ background: #3d1f6b; color: #fff; padding: 0.45em 1em; font-size: 0.85em; text-align: center; }}
.page {{ display: grid; grid-template-columns: 260px 1fr 230px; max-width: 1300px; margin: 0 auto; }}
nav.sidebar-drawer {{ padding: 1.2em; border-right: 1px solid #eee; font-size: 0.92em; }}
nav.sidebar-drawer p.caption {{ font-weight: bold; text-transform: uppercase; font-size: 0.75em; color: #777; margin: 1.2em 0 0.3em; }}
nav.sidebar-drawer a.current {{ font-weight: bold; }}
main.main {{ padding: 1.2em 2.6em; }}
aside.toc-drawer {{ padding: 1.2em; font-size: 0.85em; }}
pre {{ background: #f7f5fb; padding: 0.8em; overflow-x: auto; }}
.admonition {{ border-left: 4px solid #7e57c2; background: #f6f2fc; padding: 0.3em 1em; margin: 1em 0; }}
.admonition.warning {{ border-color: #f57c00; background: #fff5e6; }}
.cookie-banner {{ position: fixed; left: 0; right: 0; bottom: 0; background: #fafafa; border-top: 1px solid #ccc;
  padding: 0.8em 1.4em; font-size: 0.9em; display: flex; gap: 1em; align-items: center; }}
footer {{ grid-column: 1 / -1; border-top: 1px solid #eee; padding: 1em 2.6em; font-size: 0.8em; color: #666; }}
</style>
</head>
<body>
<div class="announcement" role="note">attrs 26.1.0 is out — see the changelog for what is new.</div>
<div class="page">
<nav class="sidebar-drawer" aria-label="Main navigation">
  <a class="sidebar-brand" href="index.html"><span class="sidebar-brand-text">attrs 26.1.0</span></a>
  <form class="sidebar-search-container" method="get" action="search.html" role="search">
    <input class="sidebar-search" placeholder="Search" name="q" aria-label="Search">
  </form>
{nav}
</nav>
<main class="main">
<div class="breadcrumbs"><a href="index.html">Home</a> / Explanations / {title}</div>
<article role="main" id="furo-main-content">
{body}
</article>
</main>
<aside class="toc-drawer" aria-label="On this page">
  <p class="toc-title">On this page</p>
  <ul>
{toc}
  </ul>
</aside>
<footer>
  <div class="related-pages">
    <a class="prev-page" href="types.html">Previous: Type Annotations</a> ·
    <a class="next-page" href="comparison.html">Next: Comparison</a>
  </div>
  <div class="copyright">Copyright (c) 2015 Hynek Schlawack and the attrs contributors (MIT License). Made with Sphinx and Furo.</div>
  <div class="source">Page source: docs/init.md in the attrs 26.1.0 source distribution.</div>
</footer>
</div>
<div class="cookie-banner" id="cookie-banner" role="region" aria-label="Cookie consent">
  <p><strong>Cookies on this site.</strong> We use cookies to remember your theme preference and to count page views. Choose whether to allow analytics cookies.</p>
  <button type="button" data-consent="accept">Allow all</button>
  <button type="button" data-consent="reject">Reject analytics</button>
</div>
<script>
document.querySelectorAll('#cookie-banner button').forEach(function (b) {{
  b.addEventListener('click', function () {{ document.getElementById('cookie-banner').hidden = true; }});
}});
</script>
</body>
</html>
"""

ATTRS_NAV = [("Getting Started", [("Overview", "overview"), ("Why not…", "why"), ("attrs by Example", "examples")]),
             ("Explanations", [("Type Annotations", "types"), ("Initialization", "init"), ("Comparison", "comparison"),
                               ("Hashing", "hashing")]),
             ("Reference", [("API Reference", "api"), ("API Reference for the attr Namespace", "api-attr"),
                            ("Glossary", "glossary")]),
             ("Advanced", [("Extending", "extending"), ("How Does It Work?", "how-does-it-work")]),
             ("Meta", [("On The Core API Names", "names"), ("License and Credits", "license"),
                       ("Changelog", "changelog")])]


def build_html(attrs: Path, out: Path):
    from html import escape
    blocks = F.parse_md(myst((attrs / "docs/init.md").read_text(encoding="utf-8")))
    title = F.plain(blocks[0][2])
    nav = []
    for cap, pages in ATTRS_NAV:
        nav.append(f'  <p class="caption">{escape(cap)}</p>\n  <ul>')
        for name, h in pages:
            cur = ' class="current"' if h == "init" else ""
            nav.append(f'    <li><a{cur} href="{h}.html">{escape(name)}</a></li>')
        nav.append("  </ul>")
    toc = "\n".join(f'    <li><a href="#{F.slug(b[2])}">{escape(F.plain(b[2]))}</a></li>'
                    for b in blocks if b[0] == "h" and b[1] == 2)
    html = HTML_TMPL.format(title=escape(title), nav="\n".join(nav), toc=toc, body=F.html_blocks(blocks))
    path = out / FILES["html"]
    path.write_text(html, encoding="utf-8")
    return path, sum(1 for b in blocks if b[0] == "h")


# ---------------------------------------------------------------------------
# reading the files back (own library per format) for the QA check
# ---------------------------------------------------------------------------
def norm(s: str) -> str:
    s = (s or "").replace("\u00a0", " ").replace("’", "'").replace("“", '"').replace("”", '"')
    return re.sub(r"\s+", "", s)


def read_units(path: Path):
    """Return (units, pages): units = list of (location, text) in reading order; pages = list of page texts."""
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
        for el in d.element.body.iterchildren():
            tag = el.tag.split("}")[1]
            if tag == "p":
                p = Paragraph(el, d)
                if p.style.name.startswith("Heading"):
                    head = p.text
                units.append((head, p.text))
            elif tag == "tbl":
                t = Table(el, d)
                for row in t.rows:
                    units.append((head, " ".join(c.text for c in row.cells)))
        # footnotes
        fpart = [r.target_part for r in d.part.rels.values() if r.reltype.endswith("/footnotes")]
        for fp in fpart:
            units.append(("footnotes", re.sub(r"<[^>]+>", "", fp.blob.decode("utf-8"))))
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
        from html.parser import HTMLParser
        head = [""]
        buf: list[str] = []
        state = {"in_h": False, "hbuf": []}

        class P(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag in ("h1", "h2", "h3", "h4"):
                    flush()
                    state["in_h"], state["hbuf"] = True, []
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd", "ul", "ol"):
                    flush()

            def handle_endtag(self, tag):
                if tag in ("h1", "h2", "h3", "h4"):
                    head[0] = "".join(state["hbuf"]).strip()
                    units.append((head[0], head[0]))
                    state["in_h"] = False
                elif tag in ("p", "li", "pre", "div", "tr", "dt", "dd"):
                    flush()

            def handle_data(self, data):
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
    if ext in (".pdf", ".png", ".tif", ".tiff"):
        pages = json.loads((HERE / "scan_pages.json").read_text(encoding="utf-8"))[path.name]
        return [], [" ".join(p) for p in pages]
    raise ValueError(path)


def check_qa(out: Path, qa: Path):
    items = [json.loads(l) for l in qa.read_text(encoding="utf-8").splitlines() if l.strip()]
    cache = {}
    bad = 0
    for it in items:
        f = out / it["file"]
        assert f.exists(), it["file"]
        if it["file"] not in cache:
            cache[it["file"]] = read_units(f)
        units, pages = cache[it["file"]]
        if it["kind"] == "near_miss":
            assert it["answer"] is None and it["evidence"] is None and it["pages"] == [] and it["location"] is None, it
            continue
        ans, ev = norm(it["answer"]), norm(it["evidence"])
        if pages is not None:
            assert it["pages"] and it["location"] is None, it["id"]
            text = norm(" ".join(pages[p - 1] for p in it["pages"]))
            ok = ev in text and ans in ev
            where = it["pages"]
        else:
            assert it["pages"] == [] and it["location"], it["id"]
            loc = it["location"]
            scope = [t for l, t in units if l == loc]
            if not scope:  # a heading's text: everything under it until the next heading of the same file
                scope = [t for l, t in units if norm(l) == norm(loc)]
            # the evidence is one whole unit (sentence, paragraph, bullet, table row, note line) or part of one;
            # the answer is in the evidence or in the same unit (a table row: the answer may be another cell)
            hits = [t for t in scope if ev in norm(t)]
            ok = bool(hits) and any(ans in ev or ans in norm(t) for t in hits)
            where = loc
        if not ok:
            bad += 1
            print(f"  FAIL {it['id']} {it['file']} @ {where}: answer/evidence not found\n      {it['evidence']}")
    print(f"  QA: {len(items)} items checked, {bad} failures")
    assert bad == 0


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/fmt2_sources", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    ap.add_argument("--qa", default=HERE.parent / "rag_formats_holdout2.jsonl", type=Path)
    a = ap.parse_args()
    s = a.src
    cov, mm, click = s / "coverage-7.17.5", s / "marshmallow-4.4.0", s / "click-8.5.1"
    attrs, jinja = s / "attrs-26.1.0", s / "jinja2-3.1.6"
    kobill, kolaw = s / "konlpy/data/corpus/kobill", s / "konlpy/data/corpus/kolaw"
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(kolaw, a.out))
    print(build_hwp(kobill, a.out))
    print(build_docx(cov, a.out))
    print(build_pptx(click, a.out))
    print(build_xlsx(mm, a.out))
    print(build_csv(cov, a.out))
    print(build_html(attrs, a.out))
    print(build_scan_ko(kolaw, a.fonts, a.out))
    print(build_scan_png(jinja, a.fonts, a.out))
    print(build_scan_pdf(mm, a.fonts, a.out))
    (HERE / "scan_pages.json").write_text(json.dumps(SCAN_PAGES, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    F.verify(a.out)
    if a.qa.exists():
        check_qa(a.out, a.qa)
    else:
        print(f"  (no QA file at {a.qa})")


if __name__ == "__main__":
    main()
