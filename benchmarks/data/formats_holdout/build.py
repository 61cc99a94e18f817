#!/usr/bin/env python3
"""Rebuild benchmarks/data/formats_holdout from the downloaded public sources.

    python build.py --src /tmp/fmt_sources [--out DIR] [--fonts /usr/share/fonts/truetype]

--src must hold (see SOURCES.md for how they were downloaded):
    black-26.10.1/          (black sdist, unpacked)
    urllib3-2.8.0/          (urllib3 sdist, unpacked)
    httpx-0.28.1/           (httpx sdist, unpacked)
    konlpy/data/corpus/kobill/   (from the konlpy 0.6.0 wheel)
Fonts: fonts-nanum (NanumMyeongjo) and fonts-dejavu / fonts-liberation.
Needs python-hwpx 6.9.0, python-docx, python-pptx, openpyxl, Pillow, numpy (the repo venv).
None of these sources is used by formats_dev (which uses flask, requests and bills 9890/9893/9894/9896).
"""
from __future__ import annotations

import argparse
import datetime as dt
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py, shared by both format sets
import fmtlib as F  # noqa: E402

SET = "formats_holdout"
AUTHOR = f"{SET} build.py"


# ---------------------------------------------------------------------------
# Korean bills
# ---------------------------------------------------------------------------
def member_bill_header(b: F.Bill):
    raw = b.raw
    num = re.search(r"번 호\s*\n\s*\n?(\d{4})", raw).group(1)
    date = F.squash(re.search(r"발의연월일 : ([0-9. ]+)", raw).group(1))
    rep = F.squash(re.search(r"\((\S+의원) 대표발의 \)", raw).group(1))
    who = raw[raw.index("발  의  자 :") + len("발  의  자 :"):]
    who = who[: who.index("제안이유")]
    who = F.squash(" ".join(l.strip() for l in who.split("\n") if l.strip()))
    return [["항목", "내용"], ["의안번호", num], ["발의연월일", date], ["대표발의", rep], ["발의자", who]]


def gov_bill_header(b: F.Bill):
    raw = b.raw
    num = re.search(r"\n(\d{4})\n번호", raw).group(1)
    date = F.squash(re.search(r"제출연월일 :\s*([0-9. ]+)", raw).group(1))
    who = F.squash(re.search(r"제  출  자 :\s*(.+)", raw).group(1)).replace(" ", "")
    return [["항목", "내용"], ["의안번호", num], ["제출연월일", date], ["제출자", who]]


def build_hwpx(kobill: Path, out: Path):
    b = F.Bill(kobill / "1809899.txt")
    parts = [("h1", "결혼중개업의 관리에 관한 법률 일부개정법률안"), ("p", "(한선교의원 대표발의)"),
             ("table", member_bill_header(b))]
    parts += [("h2", "제안이유")] + [("p", p) for p in b.paras("제안이유", "주요내용")[1:]]
    points = b.paras("주요내용", "법률  제")[1:]
    parts += [("h2", "주요내용"), ("table", F.main_points_table(points))]
    body = b.paras("법률 제10301호 결혼중개업의", "부      칙")
    parts += [("h2", "개정 조문 (법률 제    호 결혼중개업의 관리에 관한 법률 일부개정법률안)")] + [("p", p) for p in body]
    parts += [("h2", "부칙")] + [("p", p) for p in b.paras("부      칙", "신ㆍ구조문대비표")[1:]]
    # 벌칙 (제26조) before/after, read from the amending sentence for 제26조 and 주요내용 마.
    pen = [["조항", "현행", "개정안", "근거 (개정문)"],
           ["제26조제1항 (징역)", "3년", "5년", "제26조제1항 각 호 외의 부분 중 “3년”을 “5년”으로"],
           ["제26조제1항 (벌금)", "2천만원", "5천만원", "“2천만원”을 “5천만원”으로"],
           ["제26조제2항 (징역)", "2년", "3년", "같은 조 제2항 각 호 외의 부분 중 “2년”을 “3년”으로"],
           ["제26조제2항 (벌금)", "1천만원", "2천만원", "“1천만원”을 “2천만원”으로"]]
    for r in pen[1:]:
        assert F.check_in_source(r[3], b.raw), r
    parts += [("h2", "벌칙 강화 내용 (제26조)"), ("table", pen)]
    # 제18조 (등록취소 등) new items
    items = [p for p in body if re.match(r"^(10|11|20|22)\. ", p)]
    rows = [["신설 호", "내용"]] + [[p.split(". ", 1)[0] + "호", p.split(". ", 1)[1]] for p in items]
    parts += [("h2", "제18조제1항 신설 호 (영업정지·등록취소 사유)"), ("table", rows)]
    for p in parts:
        if p[0] == "p" and not p[1].startswith("("):
            assert F.check_in_source(p[1], b.raw), p[1]
    return F.hwp_write(parts, out / "marriage_brokerage_act_amendment_9899.hwpx")


def dispatch_bill(b: F.Bill, title: str, consent_start: str, consent_end: str, cost_rows, detail_rows,
                  detail_title: str, funding: str):
    split = (r"(?<=추진)국군부대의", r"(?<=동의안)UAE군 교육훈련", r"(?<=동의안)헌법 제60조",
             r"(?<=파견목적)UAE측", r"(?<=의결)2\. 기본 계획", r"(?<=제공)3\. 예산 소요")
    merge = ("한국군이 통제하고", "( 유엔 안보리결의 1851호 )")
    parts = [("h1", title), ("table", gov_bill_header(b))]
    ps = b.paras("제안이유", "비용추계서", split=split, merge=merge)
    ps = [p for p in ps if p != title]
    heads = {"제안이유", "주요내용", "참고사항", "1. 국군부대 파견 목적 및 경과", "2. 기본 계획", "3. 예산 소요"}
    consent = b.cut(consent_start, consent_end)
    assert consent in ps, consent
    for p in ps:
        if p in heads:
            parts.append(("h2", p))
            continue
        if p == consent:
            parts.append(("h2", "동의안"))
        parts.append(("p", p))
    parts += [("h2", "비용추계서"), ("p", "비용추계 결과 (단위: 백만원)"), ("table", cost_rows),
              ("p", f"{detail_title} (단위: 백만원)"), ("table", detail_rows), ("p", funding),
              ("p", "작성자: 국방부 국제평화협력과장 대령 유재익 (연락처 02) 748 - 6350)")]
    for r in cost_rows[1:] + detail_rows[1:]:
        for v in r[1:]:
            assert v == "-" or v in b.raw, v
    for p in parts:
        if p[0] == "p" and not p[1].startswith(("비용추계 결과", "작성자:", detail_title)):
            assert F.check_in_source(p[1], b.raw), p[1]
    return parts


def build_hwp(kobill: Path, out: Path):
    b97 = F.Bill(kobill / "1809897.txt")
    b98 = F.Bill(kobill / "1809898.txt")
    parts = dispatch_bill(
        b97, "국군부대의 아랍에미리트(UAE)군 교육훈련 지원 등에 관한 파견 동의안",
        "UAE군 교육훈련 지원 등을 위해 150명", "동의한다.",
        [["구분", "2011", "2012", "합계"], ["인건비", "2,398", "2,398", "4,796"], ["운영비", "11,312", "5,383", "16,695"],
         ["소계 (지출 a)", "13,710", "7,781", "21,491"], ["수입 (b)", "-", "-", "-"], ["총 비용 (a-b)", "13,710", "7,781", "21,491"]],
        [["구분", "2011", "2012"], ["해외파견근무수당", "2,398", "2,398"], ["증식/피복비", "1,335", "1,315"],
         ["수송비", "1,772", "1,072"], ["장비/물자 획득‧유지비", "6,074", "913"], ["기타 부대 운영비", "2,131", "2,083"],
         ["계", "13,710", "7,781"]],
        "비용추계 상세내역: 부대 운영/유지 비용 21,491백만원",
        b97.cut("국군부대의 UAE군 교육훈련 지원 등에 관한 파견 동의안에 따른", "지출할 예정임."))
    parts += dispatch_bill(
        b98, "국군부대의 소말리아 해역 파견연장 동의안",
        "헌법 제60조제2항의 규정에 따라 소말리아", "동의한다.",
        [["구분", "2011", "2012 이후", "합계"], ["인건비", "12,712", "-", "12,712"], ["운영비", "22,000", "-", "22,000"],
         ["소계 (지출 a)", "34,712", "-", "34,712"], ["수입 (b)", "-", "-", "-"], ["총 비용 (a-b)", "34,712", "-", "34,712"]],
        [["구분", "2011"], ["해외파견근무수당", "12,712"], ["증식/피복비", "2,172"], ["유류비", "14,407"],
         ["장비/물자 획득", "1,697"], ["기타 부대 운영비", "3,724"], ["계", "34,712"]],
        "비용추계 상세내역: 부대 운영/유지 비용 34,712백만원",
        b98.cut("국군부대의 소말리아 해역 파견연장 동의안에 따른 소요예산은", "지출할 예정임."))
    return F.hwp_write(parts, out / "troop_dispatch_motions_9897_9898.hwp")


# ---------------------------------------------------------------------------
# DOCX: Black "The basics" (usage and configuration)
# ---------------------------------------------------------------------------
def build_docx(black: Path, out: Path):
    from docx import Document
    from docx.shared import Cm, Pt
    F.MD_LINKS.clear()
    src = black / "docs/usage_and_configuration/the_basics.md"
    blocks = F.parse_md(src.read_text(encoding="utf-8"), collect_links=True)
    links = {}
    for txt, url in F.MD_LINKS:
        if url.startswith("http") and "github.com/psf/black/issues" not in url:
            links.setdefault(txt, url)
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    sec.header.paragraphs[0].text = "사내 기술 참고자료 · Black 26.10.1 documentation — usage_and_configuration/the_basics.md"
    fns = F.DocxFootnotes(doc)
    used = set()

    def on_para(p, text):
        for txt, url in links.items():
            if txt not in used and txt in F.plain(text):
                used.add(txt)
                fns.add(p, f"{txt}: {url}")

    # group the level-4 option headings into tables
    out_blocks, cur_table, cur = [], None, None
    for bl in blocks:
        if bl[0] == "h" and bl[1] == 4:
            if cur_table is None:
                cur_table = []
                out_blocks.append(("opttable", cur_table))
            cur = [bl[2], []]
            cur_table.append(cur)
            continue
        if bl[0] == "h":
            cur_table, cur = None, None
            out_blocks.append(bl)
            continue
        if cur is not None:
            if bl[0] == "p":
                cur[1].append(bl[1])
            elif bl[0] in ("ul", "ol"):
                cur[1].append("; ".join(F.block_text(it) for it in bl[1]))
            elif bl[0] == "admon":
                cur[1].append(f"{bl[1]}: " + F.block_text(bl[2]))
            # console examples are left out of the table
            continue
        out_blocks.append(bl)
    first = True
    for bl in out_blocks:
        if bl[0] == "opttable":
            head = "Option" if any(F.plain(r[0]).startswith("-") for r in bl[1]) else "Variable"
            F.docx_table(doc, [head, "Description"], [[r[0], r[1]] for r in bl[1]], widths=[4.5, 13.5], size=9)
            doc.add_paragraph()
            continue
        if first and bl[0] == "h":
            doc.add_heading(F.plain(bl[2]), level=1)
            p = doc.add_paragraph()
            p.add_run("Source: Black 26.10.1 documentation, “The basics” (docs/usage_and_configuration/the_basics.md). "
                      "Text copied from the original; each command line option and environment variable is one table "
                      "row (console examples are not repeated in the tables).").italic = True
            first = False
            continue
        F.docx_blocks(doc, [bl], on_para=on_para)
    F.docx_core(doc, "Black — the basics", "Black 26.10.1 docs/usage_and_configuration/the_basics.md", AUTHOR,
                "black, formatter, configuration")
    path = out / "black_usage_and_configuration.docx"
    doc.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# changelogs
# ---------------------------------------------------------------------------
def black_changes(black: Path):
    blocks = F.parse_md((black / "CHANGES.md").read_text(encoding="utf-8"))
    rel = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^Version (\S+)$", F.plain(title or ""))
        if not m:
            continue
        items = []
        for sec_title, sec_body in F.sections(body, 3):
            s = F.plain(sec_title or "")
            for bl in sec_body:
                if bl[0] == "ul":
                    for it in bl[1]:
                        items.append((s, F.plain(F.block_text(it)), "item"))
                elif bl[0] == "p":
                    items.append((s, F.plain(bl[1]), "paragraph"))
        rel.append((m.group(1), items))
    return rel


def build_xlsx(black: Path, out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    rel = black_changes(black)
    keep = []
    for ver, items in rel:
        keep.append((ver, items))
        if ver == "25.11.0":
            break
    wb = Workbook()
    ws = wb.active
    ws.title = "Changes"
    ws.append(["Version", "Section", "Kind", "Change", "PR / issue"])
    n = 0
    for ver, items in keep:
        for sec, text, kind in items:
            m = re.search(r"\s*\(((?:#\d+(?:,\s*)?)+)\)\s*$", text)
            ref = m.group(1) if m else ""
            t = text[: m.start()].rstrip() if m else text
            ws.append([ver, sec, kind, t, ref])
            n += 1
    fill = PatternFill("solid", fgColor="E2EFDA")
    for c in ws[1]:
        c.font, c.fill = Font(bold=True), fill
    for row in ws.iter_rows(min_row=2):
        for c in row:
            c.alignment = Alignment(vertical="top", wrap_text=(c.column == 4))
    for col, w in zip("ABCDE", [10, 16, 10, 100, 14]):
        ws.column_dimensions[col].width = w
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:E{n + 1}"
    secs = []
    for _, items in keep:
        for s, _, kind in items:
            if kind == "item" and s not in secs:
                secs.append(s)
    ws2 = wb.create_sheet("Summary")
    ws2.append(["Version"] + secs + ["Total items"])
    for ver, items in keep:
        cnt = [sum(1 for s, _, k in items if s == sec and k == "item") for sec in secs]
        ws2.append([ver] + cnt + [sum(cnt)])
    for c in ws2[1]:
        c.font, c.fill = Font(bold=True), fill
    ws2.column_dimensions["A"].width = 10
    ws2.freeze_panes = "B2"
    wb.properties.creator = AUTHOR
    wb.properties.title = "Black changelog 25.11.0 – 26.10.1"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / "black_changelog_25.11-26.10.xlsx"
    wb.save(path)
    F.fix_zip_times(path)
    return path, n


def httpx_changes(httpx: Path):
    blocks = F.parse_md((httpx / "CHANGELOG.md").read_text(encoding="utf-8"))
    rel = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^([\d.]+) \((.+)\)$", F.plain(title or ""))
        if not m:
            continue
        d = re.sub(r"(\d+)(st|nd|rd|th)", r"\1", m.group(2))
        for fmt in ("%d %B, %Y", "%B %d, %Y"):
            try:
                date = dt.datetime.strptime(d, fmt).date().isoformat()
                break
            except ValueError:
                date = m.group(2)
        items = []
        for sec_title, sec_body in F.sections(body, 3):
            cat = F.plain(sec_title or "")
            for bl in sec_body:
                if bl[0] == "p" and re.fullmatch(r"\x03[^\x03\x04]+\x04:?", bl[1].strip()):
                    cat = F.plain(bl[1]).strip(" :")
                elif bl[0] == "ul":
                    for it in bl[1]:
                        items.append((cat, F.plain(F.block_text(it))))
        rel.append((m.group(1), date, m.group(2), items))
    return rel


def build_csv(httpx: Path, out: Path):
    rows = []
    for ver, date, date_src, items in httpx_changes(httpx):
        v = tuple(int(x) for x in ver.split("."))
        if (0, 23, 0) <= v <= (0, 28, 1):
            for cat, text in items:
                m = re.search(r"\s*\(((?:#\d+(?:,\s*)?)+)\)\.?\s*$", text)
                rows.append([ver, date, cat, text[: m.start()].rstrip() if m else text, m.group(1) if m else ""])
    path = out / "httpx_changes_0.23-0.28.csv"
    F.write_csv(path, ["version", "release_date", "section", "change", "pull_requests"], rows)
    return path, len(rows)


def urllib3_changes(u3: Path):
    blocks = F.parse_rst((u3 / "CHANGES.rst").read_text(encoding="utf-8"))
    rel = {}
    order = []
    for title, body in F.sections(blocks, 1):
        m = re.match(r"^([\d.]+) \((\d{4}-\d\d-\d\d)\)$", F.plain(title or ""))
        if not m:
            continue
        secs = []
        for st, sb in F.sections(body, 2):
            entries, notes = [], []
            for bl in sb:
                if bl[0] == "ul":
                    entries += [F.plain(F.block_text(it)) for it in bl[1]]
                elif bl[0] == "p":
                    notes.append(F.plain(bl[1]))
                elif bl[0] == "admon":
                    notes.append(f"{bl[1]}: " + F.plain(F.block_text(bl[2], sep=" ")))
            secs.append((F.plain(st or ""), entries, notes))
        rel[m.group(1)] = (m.group(2), secs)
        order.append(m.group(1))
    return rel, order


def build_pptx(u3: Path, out: Path):
    rel, order = urllib3_changes(u3)
    vers = order[: order.index("2.6.0") + 1]
    prs = F._pptx()
    F.slide_title(prs, "urllib3 2.6 – 2.8 릴리스 브리핑",
                  f"Changes in urllib3 2.6.0 ({rel['2.6.0'][0]}) to 2.8.0 ({rel['2.8.0'][0]})\n"
                  "Source: urllib3 2.8.0 sdist, CHANGES.rst",
                  notes="All slide text is copied from the urllib3 changelog (CHANGES.rst). Bullets give the first "
                        "sentence of each entry; the speaker notes hold the full entries and advisory references.")
    rows = []
    for v in vers:
        d, secs = rel[v]
        rows.append([v, d, ", ".join(s for s, e, _ in secs if s) or "—", str(sum(len(e) for _, e, _ in secs))])
    F.slide_table(prs, "Release timeline", ["Version", "Date", "Sections", "Entries"], rows, [1.4, 1.8, 7.6, 1.3],
                  notes="Dates as given in CHANGES.rst. The patch releases 2.6.1, 2.6.2 and 2.6.3 list their "
                        "entries without section headings.")

    def sec(v, name):
        for s, e, n in rel[v][1]:
            if s == name:
                return e, n
        return [], []

    def notes_for(v, names):
        lines = [f"{v} ({rel[v][0]})"]
        for nm in names:
            e, n = sec(v, nm)
            lines.append(f"{nm}:" if nm else "")
            lines += n + ["- " + x for x in e]
        return "\n".join(l for l in lines if l)

    def bl(v, names, first=True, level=1):
        out_b = []
        for nm in names:
            e, _ = sec(v, nm)
            if nm:
                out_b.append((0, nm))
            out_b += [(level if nm else 0, F.first_sentence(x) if first else x) for x in e]
        return out_b

    F.slide_bullets(prs, "2.8.0: security fixes", bl("2.8.0", ["Security"], first=False),
                    notes=notes_for("2.8.0", ["Security"]))
    F.slide_bullets(prs, "2.8.0: deprecations, features and misc",
                    bl("2.8.0", ["Deprecations & Removals", "Features", "Misc"]),
                    notes=notes_for("2.8.0", ["Deprecations & Removals", "Features", "Misc"]))
    bugs, _ = sec("2.8.0", "Bugfixes")
    half = (len(bugs) + 1) // 2
    F.slide_bullets(prs, f"2.8.0: bugfixes (1/2)", [(0, F.first_sentence(x)) for x in bugs[:half]],
                    notes="2.8.0 Bugfixes:\n" + "\n".join("- " + x for x in bugs[:half]))
    F.slide_bullets(prs, f"2.8.0: bugfixes (2/2)", [(0, F.first_sentence(x)) for x in bugs[half:]],
                    notes="2.8.0 Bugfixes:\n" + "\n".join("- " + x for x in bugs[half:]))
    F.slide_bullets(prs, f"2.7.0 ({rel['2.7.0'][0]}): security, deprecations and removals",
                    bl("2.7.0", ["Security", "Deprecations and Removals"]),
                    notes=notes_for("2.7.0", ["Security", "Deprecations and Removals"]))
    F.slide_bullets(prs, "2.7.0: bugfixes", bl("2.7.0", ["Bugfixes"], level=0)[1:],
                    notes=notes_for("2.7.0", ["Bugfixes"]))
    F.slide_bullets(prs, f"2.6.0 ({rel['2.6.0'][0]}): decompression-bomb fixes",
                    bl("2.6.0", ["Security", "Features", "Removals", "Bugfixes"]),
                    notes=notes_for("2.6.0", ["Security", "Features", "Removals", "Bugfixes", "Misc"]))
    b = []
    for v in ["2.6.3", "2.6.2", "2.6.1"]:
        b.append((0, f"{v} ({rel[v][0]})"))
        b += [(1, x) for x in sec(v, "")[0]]
    F.slide_bullets(prs, "2.6.1 – 2.6.3: patch releases", b)
    F.pptx_core(prs, "urllib3 2.6 – 2.8 release briefing", "urllib3 2.8.0 CHANGES.rst", AUTHOR)
    path = out / "urllib3_release_briefing_2.6-2.8.pptx"
    prs.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# HTML: urllib3 v2 migration guide
# ---------------------------------------------------------------------------
HTML_TMPL = """<!doctype html>
<html lang="en" class="no-js">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width,initial-scale=1">
<meta name="generator" content="sphinx">
<title>{title} - urllib3 2.8.0 documentation</title>
<link rel="canonical" href="https://urllib3.readthedocs.io/en/stable/v2-migration-guide.html">
<style>
:root {{ --brand: #2962ff; }}
body {{ font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0; line-height: 1.55; }}
.announcement {{ background: #111; color: #eee; padding: 0.4em 1em; font-size: 0.85em; text-align: center; }}
.page {{ display: grid; grid-template-columns: 250px 1fr 220px; max-width: 1280px; margin: 0 auto; }}
nav.sidebar-tree {{ padding: 1.2em; border-right: 1px solid #eee; }}
nav.sidebar-tree a.current {{ font-weight: bold; }}
main.content {{ padding: 1.2em 2.4em; }}
aside.toc-drawer {{ padding: 1.2em; font-size: 0.85em; }}
pre {{ background: #f6f8fa; padding: 0.8em; overflow-x: auto; }}
.admonition.note {{ border-left: 4px solid var(--brand); background: #eef3ff; padding: 0.3em 1em; }}
.cookie-consent {{ position: fixed; right: 1em; bottom: 1em; max-width: 360px; background: #fff; border: 1px solid #ccc;
  box-shadow: 0 2px 10px rgba(0,0,0,.15); padding: 1em; font-size: 0.9em; }}
footer {{ grid-column: 1 / -1; border-top: 1px solid #eee; padding: 1em 2.4em; font-size: 0.8em; color: #666; }}
</style>
</head>
<body>
<div class="announcement">urllib3 is looking for sponsors — see the Sponsors page.</div>
<div class="page">
<nav class="sidebar-tree" aria-label="Site navigation">
  <a class="sidebar-brand" href="index.html"><span class="sidebar-brand-text">urllib3 2.8.0</span></a>
  <form class="sidebar-search-container" method="get" action="search.html" role="search">
    <input class="sidebar-search" placeholder="Search" name="q" aria-label="Search">
  </form>
  <ul>
{nav}
  </ul>
</nav>
<main class="content">
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
    <a class="prev-page" href="changelog.html">Previous: Changelog</a>
  </div>
  <div class="copyright">Copyright &#169; 2008-2020 Andrey Petrov and contributors (MIT License). Made with Sphinx and the Furo theme.</div>
  <div class="source">Page source: docs/v2-migration-guide.rst in the urllib3 2.8.0 source distribution.</div>
</footer>
</div>
<div class="cookie-consent" id="cookie-consent" role="region" aria-label="Cookie notice">
  <p><strong>We value your privacy.</strong> Read the Docs and this site use cookies for analytics and to keep you signed in. You can accept all cookies or keep only the ones that are strictly necessary.</p>
  <button type="button" data-consent="all">Accept</button>
  <button type="button" data-consent="necessary">Necessary only</button>
</div>
<script>
document.querySelectorAll('#cookie-consent button').forEach(function (b) {{
  b.addEventListener('click', function () {{ document.getElementById('cookie-consent').hidden = true; }});
}});
</script>
</body>
</html>
"""


def build_html(u3: Path, out: Path):
    from html import escape
    blocks = F.parse_rst((u3 / "docs/v2-migration-guide.rst").read_text(encoding="utf-8"))
    title = F.plain(blocks[0][2])
    nav_items = [("Sponsors", "sponsors.html"), ("User Guide", "user-guide.html"),
                 ("Advanced Usage", "advanced-usage.html"), ("API Reference", "reference/index.html"),
                 ("Contributing", "contributing.html"), ("Security", "security.html"),
                 ("Changelog", "changelog.html"), ("v2 Migration Guide", "v2-migration-guide.html")]
    cur = ' class="current"'
    nav = "\n".join(f'    <li><a{cur if h.startswith("v2") else ""} href="{h}">{escape(n)}</a></li>'
                    for n, h in nav_items)
    toc = "\n".join(f'    <li><a href="#{F.slug(b[2])}">{escape(F.plain(b[2]))}</a></li>'
                    for b in blocks if b[0] == "h" and b[1] == 2)
    html = HTML_TMPL.format(title=escape(title), nav=nav, toc=toc, body=F.html_blocks(blocks))
    path = out / "urllib3_v2_migration_guide.html"
    path.write_text(html, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# scans
# ---------------------------------------------------------------------------
def build_scan_ko(kobill: Path, fonts_dir: Path, out: Path):
    b = F.Bill(kobill / "1809895.txt")
    hdr = member_bill_header(b)
    items = [("title", "하도급거래 공정화에 관한 법률 일부개정법률안"), ("center", "(유선호의원 대표발의)"), ("gap", 1)]
    items += [("p", f"{k} : {v}") for k, v in hdr[1:]]
    items.append(("gap", 0.5))
    ps = b.paras("제안이유 및 주요내용", "법률  제")
    items += [("h", ps[0])] + [("p", p) for p in ps[1:]]
    items += [("gap", 1), ("center", "법률 제        호"), ("title", "하도급거래 공정화에 관한 법률 일부개정법률안")]
    for p in b.paras("하도급거래 공정화에 관한 법률 일부를", "신·구조문대비표"):
        if re.match(r"^부\s*칙$", p):
            items.append(("h", "부      칙"))
        else:
            items.append(("p", p))
    for k, t in items:
        if k == "p" and " : " not in t:
            assert F.check_in_source(t, b.raw), t
    items = [(k, t.translate(F.KO_GLYPH_MAP) if isinstance(t, str) else t) for k, t in items]
    fonts = F.Fonts(fonts_dir / "nanum/NanumMyeongjo.ttf", fonts_dir / "nanum/NanumMyeongjoBold.ttf")
    pages = F.render_pages(items, fonts, size_pt=12, korean=True, footer="- {page} -")
    scans = [F.degrade(p, seed=9895 + k)[0] for k, p in enumerate(pages)]
    path = out / "subcontracting_act_9895_scan.pdf"
    F.save_pdf_scan(scans, path)
    return path, len(pages)


def build_scan_en_tiff(httpx: Path, fonts_dir: Path, out: Path):
    blocks = F.parse_md((httpx / "README.md").read_text(encoding="utf-8"))
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "dejavu/DejaVuSerif.ttf", fonts_dir / "dejavu/DejaVuSerif-Bold.ttf",
                    fonts_dir / "dejavu/DejaVuSansMono.ttf")
    pages = F.render_pages(items, fonts, size_pt=10, page_in=(8.5, 11.0), margin_in=(0.9, 0.8), line_gap=1.35,
                           footer="{page}")
    scans = [F.binarize(F.degrade(p, seed=2801 + k, noise=6.0, specks=0.0008)[0], 150) for k, p in enumerate(pages)]
    path = out / "httpx_readme_scan.tiff"
    scans[0].save(path, save_all=True, append_images=scans[1:], compression="group4", dpi=(200, 200))
    return path, len(pages)


def build_scan_en_pdf(u3: Path, fonts_dir: Path, out: Path):
    blocks = F.parse_md((u3 / "README.md").read_text(encoding="utf-8"))
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages = F.render_pages(items, fonts, size_pt=11, page_in=(8.27, 11.69), margin_in=(0.9, 0.85),
                           footer="urllib3 README — page {page} of {pages}")
    scans = [F.degrade(p, seed=2800 + k)[0] for k, p in enumerate(pages)]
    path = out / "urllib3_readme_scan.pdf"
    F.save_pdf_scan(scans, path)
    return path, len(pages)


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/fmt_sources", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    a = ap.parse_args()
    black, u3, httpx = a.src / "black-26.10.1", a.src / "urllib3-2.8.0", a.src / "httpx-0.28.1"
    kobill = a.src / "konlpy/data/corpus/kobill"
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(kobill, a.out))
    print(build_hwp(kobill, a.out))
    print(build_docx(black, a.out))
    print(build_pptx(u3, a.out))
    print(build_xlsx(black, a.out))
    print(build_csv(httpx, a.out))
    print(build_html(u3, a.out))
    print(build_scan_ko(kobill, a.fonts, a.out))
    print(build_scan_en_tiff(httpx, a.fonts, a.out))
    print(build_scan_en_pdf(u3, a.fonts, a.out))
    F.verify(a.out)


if __name__ == "__main__":
    main()
