#!/usr/bin/env python3
"""Rebuild benchmarks/data/formats_dev from the downloaded public sources.

    python build.py --src /tmp/fmt_sources [--out DIR] [--fonts /usr/share/fonts/truetype]

--src must hold (see SOURCES.md for how they were downloaded):
    flask-3.1.3/            (flask sdist, unpacked)
    requests-2.34.2/        (requests sdist, unpacked)
    konlpy/data/corpus/kobill/   (from the konlpy 0.6.0 wheel)
Fonts: fonts-nanum (NanumMyeongjo, NanumGothicBold) and fonts-liberation.
Needs python-hwpx 6.9.0, python-docx, python-pptx, openpyxl, Pillow, numpy (the repo venv).
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # ../fmtlib.py, shared by both format sets
import fmtlib as F  # noqa: E402

SET = "formats_dev"


# ---------------------------------------------------------------------------
# Korean: HWPX (9896 행정절차법) and HWP (9890 지방공무원법 + 9893 남녀고용평등법)
# ---------------------------------------------------------------------------
def bill_header(b: F.Bill):
    """의안 정보 rows read from the bill's cover block."""
    raw = b.raw
    num = re.search(r"번 호\s*\n\s*\n?(\d{4})", raw).group(1)
    date = F.squash(re.search(r"발의연월일 : ([0-9. ]+)", raw).group(1))
    rep = F.squash(re.search(r"\((\S+의원) 대표발의 \)", raw).group(1))
    who = raw[raw.index("발  의  자 :") + len("발  의  자 :"):]
    who = who[: who.index("제안이유")]
    who = F.squash(" ".join(l.strip() for l in who.split("\n") if l.strip()))
    return [["항목", "내용"], ["의안번호", num], ["발의연월일", date], ["대표발의", rep], ["발의자", who]]


def build_hwpx(kobill: Path, out: Path):
    b = F.Bill(kobill / "1809896.txt")
    title = "행정절차법 일부개정법률안"
    parts = [("h1", title), ("p", "(유선호의원 대표발의)"), ("table", bill_header(b))]
    reason = b.paras("제안이유", "주요내용")
    parts += [("h2", "제안이유")] + [("p", p) for p in reason[1:]]
    points = b.paras("주요내용", "법률  제")[1:]
    parts += [("h2", "주요내용"), ("table", F.main_points_table(points))]
    body = b.paras("행정절차법 일부를 다음과", "부      칙")
    parts += [("h2", "개정 조문 (법률 제    호 행정절차법 일부개정법률안)")] + [("p", p) for p in body]
    addenda = b.paras("부      칙", "신 ·구조문대비표")
    parts += [("h2", "부칙")] + [("p", p) for p in addenda[1:]]
    # 신·구조문대비표 (excerpt). The source prints the two columns interleaved line by line;
    # these cells are the 현행 / 개정안 texts read from that table (unchanged parts written out
    # instead of the dashes the source uses for "same as 현행").
    cmp_rows = [
        ["조문", "현행", "개정안"],
        ["제2조제4호",
         '4. "당사자등"이라 함은 행정청의 처분에 대하여 직접 그 상대가 되는 당사자와 행정청이 직권 또는 신청에 의하여 행정절차에 참여하게 한 이해관계인을 말한다.',
         '4. "당사자등"이라 함은 행정청의 처분에 대하여 직접 그 상대가 되는 당사자와 행정청의 행위에 의하여 법률상 또는 사실상 이해관계에 영향을 받는 자로서 이해관계인을 말한다.'],
        ["제43조(예고기간)",
         "입법예고기간은 예고할 때 정하되, 특별한 사정이 없는 한 20일이상으로 한다.",
         "입법예고기간은 예고할 때 정하되, 특별한 사정이 없는 한 50일 이상으로 한다."],
        ["제46조제3항 → 제46조의2(예고기간)",
         "③행정예고기간은 예고내용의 성격등을 고려하여 정하되, 특별한 사정이 없는 한 20일이상으로 한다.",
         "제46조의2(예고기간) 행정예고기간은 예고내용의 성격 등을 고려하여 정하되, 특별한 사정이 없는 한 50일 이상으로 한다."],
        ["제22조제1항제1호의2", "<신 설>", "1의2. 당사자의 신청이 있는 경우"],
    ]
    for r in cmp_rows[1:]:
        for cell in r[1:]:
            words = [w for w in re.split(r"[\s,.]+", cell) if len(w) >= 2]
            assert all(w in b.raw.replace("\n", "") or w in F.squash(b.raw) for w in words[:3]), cell
    parts += [("h2", "신·구조문대비표 (발췌)"), ("table", cmp_rows)]
    path = out / "admin_procedure_act_amendment_9896.hwpx"
    return F.hwp_write(parts, path)


def cost_table_rows(b: F.Bill):
    lines = b.lines_between("(단위:", "자료:")
    years = [l for l in lines if re.fullmatch(r"20\d\d|평균", l)]
    rows = [["구분"] + years]
    label = None
    cur: list[str] = []
    for l in lines[1 + len(years):]:
        if re.fullmatch(r"[\d,.]+", l):
            cur.append(l)
        else:
            if label:
                rows.append([label] + cur)
            label, cur = F.squash(l), []
    rows.append([label] + cur)
    assert all(len(r) == len(rows[0]) for r in rows), rows
    return rows


def build_hwp(kobill: Path, out: Path):
    b90 = F.Bill(kobill / "1809890.txt")
    b93 = F.Bill(kobill / "1809893.txt")
    parts = []
    # bill 9890
    parts += [("h1", "지방공무원법 일부개정법률안"), ("p", "(정의화의원 대표발의)"), ("table", bill_header(b90))]
    parts += [("h2", "제안이유 및 주요내용")] + [("p", p) for p in b90.paras("제안이유 및 주요내용", "법률  제")[1:]]
    parts += [("h2", "개정문")] + [("p", p) for p in b90.paras("지방공무원법 일부를 다음과", "신 ·구조문대비표")]
    parts += [("p", "신·구조문대비표 (제63조제2항제4호)"), ("table", [
        ["현행", "개정안"],
        ["제63조(휴직) ② 4. 만 6세 이하의 초등학교 취학 전 자녀를 양육하기 위하여 필요하거나 여자공무원이 임신 또는 출산하게 되었을 때",
         "제63조(휴직) ② 4. 만 8세 이하(취학 중인 경우에는 초등학교 2학년 이하를 말한다)의 자녀를 양육하기 위하여 필요하거나 여자공무원이 임신 또는 출산하게 되었을 때"]])]
    # bill 9893
    t93 = "남녀고용평등과 일·가정 양립 지원에 관한 법률 일부개정법률안"
    parts += [("h1", t93), ("p", "(정의화의원 대표발의)"), ("table", bill_header(b93))]
    parts += [("h2", "제안이유 및 주요내용")] + [("p", p) for p in b93.paras("제안이유 및 주요내용", "법률  제")[1:]]
    parts += [("h2", "개정문")] + [("p", p) for p in b93.paras("남녀고용평등과 일·가정 양립 지원에 관한 법률 일부를", "신 ·구조문대비표")]
    # cost note (identical in both bills; taken from 9893 where the variable list is in order)
    parts += [("h1", "비용추계서 미첨부사유서 (9890·9893 공통)")]
    parts += [("h2", "1. 재정수반요인"), ("p", b93.cut("개정안에서 ｢국가공무원법｣", "추가 재정소요가 예상됨."))]
    parts += [("h2", "2. 미첨부 근거 규정"), ("p", b93.cut("｢의안의 비용추계에 관한 규칙｣ 제3조제1항", "해당함."))]
    parts += [("h2", "3. 미첨부 사유")]
    for a, z in [("개정안에서 국가․지방․교육공무원 및 근로자가 육아휴직을 신청할", "근로자가 대상이 된다."),
                 ("대상연령의 확대됨에 따라", "볼 \n\n수 있다."),
                 ("추가비용 발생여부를 정확하게", "다음과 같이 정의한다.")]:
        parts.append(("p", b93.cut(a, z)))
    parts.append(("p", "발생비용 : N×p×X + N×육아휴직급여액 - N×P"))
    defs = [l for l in b93.lines_between(": 육아휴직대상자의 수", "위의 수식에서")]
    for var, d in zip(["N", "P", "p", "X"], defs):
        parts.append(("p", f"{var} {d}"))
    parts.append(("p", b93.cut("위의 수식에서 육아휴직급여액은", "다음의 [표]와 같다.")))
    parts.append(("p", "[표] 육아휴직급여 수급자의 수 및 대체인력 고용 현황: 2007~2011년 (단위: 명, %)"))
    parts.append(("table", cost_table_rows(b93)))
    parts.append(("p", "자료: 고용노동부 자료를 바탕으로 국회예산정책처 작성"))
    parts.append(("p", b93.cut("위의 [표]의 자료에 따라", "다음의 수식과 같다.")))
    for k, f in zip(["(1)", "(2)", "(3)", "(5)"],
                    ["N×p×X + N×육아휴직급여액 - N×P > 0", "N×5.6%×X + N×P×40% - N×P > 0",
                     "0.056×X > 0.6P", "X > 10.7×P"]):
        assert f in b93.raw
        parts.append(("p", f"{f}    {k}"))
    for a, z in [("위의 수식에 육아휴직자가 받는", "추가 비용이 \n\n발생한다."),
                 ("행정안전부의 통계자료", "크지 않을 것으로 보인다."),
                 ("이상의 논의를 바탕으로", "예상된다.\n\n4.")]:
        parts.append(("p", b93.cut(a, z).removesuffix("4.").strip()))
    parts += [("h2", "4. 작성자"), ("p", "국회예산정책처 법안비용추계1팀"), ("p", "팀장 정문종 / 예산분석관 김태완"),
              ("p", "(02-788-4649, tanzania@assembly.go.kr)")]
    for p in parts:
        if p[0] == "p" and p[1] and not p[1].startswith(("(", "신·구", "[표]", "팀장", "발생비용")):
            assert F.check_in_source(p[1].split("    ")[0], b90.raw + b93.raw) or p[1][:1] in "NPpX", p[1]
    path = out / "parental_leave_bills_9890_9893.hwp"
    return F.hwp_write(parts, path)


# ---------------------------------------------------------------------------
# DOCX: Flask configuration handling (docs/config.rst)
# ---------------------------------------------------------------------------
def build_docx(flask: Path, out: Path):
    from docx import Document
    from docx.shared import Pt, Cm
    F.LINK_NAMES.clear()
    targets: dict = {}
    blocks = F.parse_rst((flask / "docs/config.rst").read_text(encoding="utf-8"), targets=targets)
    doc = Document()
    sec = doc.sections[0]
    sec.left_margin = sec.right_margin = Cm(2.2)
    doc.styles["Normal"].font.name = "Calibri"
    doc.styles["Normal"].font.size = Pt(10.5)
    F.docx_code_style(doc)
    hdr = sec.header.paragraphs[0]
    hdr.text = "사내 기술 참고자료 · Flask 3.1.3 documentation — docs/config.rst"
    fns = F.DocxFootnotes(doc)
    used = set()

    def on_para(p, text):
        for name, url in targets.items():
            if name not in used and re.search(r"\b" + re.escape(name) + r"\b", F.plain(text), re.I):
                if name in ("dynaconf", "fabric"):
                    used.add(name)
                    fns.add(p, f"{name.capitalize() if name == 'dynaconf' else name}: {url}")

    # builtin configuration values -> one table
    out_blocks = []
    data_rows = []
    in_builtin = False
    for bl in blocks:
        if bl[0] == "h":
            in_builtin = F.plain(bl[2]) == "Builtin Configuration Values"
            out_blocks.append(bl)
            continue
        if in_builtin and bl[0] == "data":
            desc, default, notes = [], "", []
            for sub in bl[2]:
                if sub[0] == "p" and F.plain(sub[1]).startswith("Default:"):
                    default = F.plain(sub[1])[len("Default:"):].strip()
                elif sub[0] == "p":
                    desc.append(sub[1])
                elif sub[0] == "version":
                    notes.append(sub[1])
                elif sub[0] == "admon":
                    notes.append(f"{sub[1]}: " + F.block_text(sub[2]))
                elif sub[0] == "code":
                    desc.append(F.C1 + sub[1].replace("\n", " ") + F.C2)
            data_rows.append([F.C1 + bl[1] + F.C2, desc, default, notes or ""])
            continue
        if in_builtin and data_rows and bl[0] != "data":
            out_blocks.append(("datatable", data_rows))
            data_rows = []
        out_blocks.append(bl)
    title_done = False
    for bl in out_blocks:
        if bl[0] == "datatable":
            t = F.docx_table(doc, ["Key", "Description", "Default", "Version notes"], bl[1],
                             widths=[4.2, 7.6, 2.6, 3.6], size=8.5)
            continue
        if bl[0] == "h" and not title_done:
            doc.add_heading(F.plain(bl[2]), level=1)
            p = doc.add_paragraph()
            p.add_run("Source: Flask 3.1.3 documentation, “Configuration Handling” (docs/config.rst). "
                      "Text copied from the original; the builtin configuration values are arranged as a table.").italic = True
            title_done = True
            continue
        F.docx_blocks(doc, [bl], level_offset=0, on_para=on_para)
    F.docx_core(doc, "Flask Configuration Handling", "Flask 3.1.3 docs/config.rst", "formats_dev build.py",
                "flask, configuration")
    path = out / "flask_configuration_manual.docx"
    doc.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# changelog parsing
# ---------------------------------------------------------------------------
def flask_changes(flask: Path):
    blocks = F.parse_rst((flask / "CHANGES.rst").read_text(encoding="utf-8"))
    rel = []
    for title, body in F.sections(blocks, 1):
        ver = F.plain(title).replace("Version ", "")
        date = ""
        items = []
        for bl in body:
            if bl[0] == "p" and F.plain(bl[1]).startswith("Released"):
                date = re.sub(r"^on\s+", "", F.plain(bl[1]).replace("Released", "").strip().rstrip(","))
            elif bl[0] == "p" and F.plain(bl[1]).startswith("Unreleased"):
                date = "Unreleased"
            elif bl[0] == "ul":
                for it in bl[1]:
                    items.append(F.block_text(it))
        rel.append((ver, date, items))
    return rel


def requests_history(req: Path):
    blocks = F.parse_md((req / "HISTORY.md").read_text(encoding="utf-8"))
    rel = []
    for title, body in F.sections(blocks, 2):
        m = re.match(r"^([\d.]+) \((\d{4}-\d\d-\d\d)\)$", F.plain(title or ""))
        if not m:
            continue
        cat = ""
        items = []
        for bl in body:
            if bl[0] == "p" and re.fullmatch(r"\x03[^\x03\x04]+\x04:?", bl[1].strip()):
                cat = F.plain(bl[1]).strip(" :")
            elif bl[0] == "p":
                items.append((cat, F.plain(bl[1]), True))
            elif bl[0] == "ul":
                for it in bl[1]:
                    items.append((cat, F.plain(F.block_text(it)), False))
        rel.append((m.group(1), m.group(2), items))
    return rel


# ---------------------------------------------------------------------------
# XLSX: Flask changelog
# ---------------------------------------------------------------------------
def build_xlsx(flask: Path, out: Path):
    from openpyxl import Workbook
    from openpyxl.styles import Alignment, Font, PatternFill
    rel = flask_changes(flask)
    wb = Workbook()
    ws = wb.active
    ws.title = "Changes"
    head = ["Version", "Released", "No.", "Change", "Reference"]
    ws.append(head)
    keep = []
    for ver, date, items in rel:
        keep.append((ver, date, items))
        if ver == "2.2.0":
            break
    nrows = 0
    for ver, date, items in keep:
        for k, it in enumerate(items, 1):
            text, ref = F.split_refs(it)
            ws.append([ver, date, k, text, ref])
            nrows += 1
    fill = PatternFill("solid", fgColor="DDEBF7")
    for c in ws[1]:
        c.font = Font(bold=True)
        c.fill = fill
    for row in ws.iter_rows(min_row=2):
        row[3].alignment = Alignment(wrap_text=True, vertical="top")
        for c in (row[0], row[1], row[2], row[4]):
            c.alignment = Alignment(vertical="top")
    for col, w in zip("ABCDE", [10, 12, 6, 100, 18]):
        ws.column_dimensions[col].width = w
    ws.freeze_panes = "A2"
    ws.auto_filter.ref = f"A1:E{nrows + 1}"
    ws2 = wb.create_sheet("Releases")
    ws2.append(["Version", "Released", "Number of changes"])
    for ver, date, items in rel:
        if re.match(r"^(3|2)\.", ver):
            ws2.append([ver, date, len(items)])
    for c in ws2[1]:
        c.font = Font(bold=True)
        c.fill = fill
    for col, w in zip("ABC", [10, 12, 18]):
        ws2.column_dimensions[col].width = w
    ws2.freeze_panes = "A2"
    ws3 = wb.create_sheet("About")
    for r in [["Source", "Flask 3.1.3 sdist, CHANGES.rst"],
              ["Sheet Changes", "one row per change item, versions 3.1.3 back to 2.2.0"],
              ["Sheet Releases", "every 2.x and 3.x release with its date and number of change items"],
              ["Licence", "BSD-3-Clause (Copyright 2010 Pallets)"]]:
        ws3.append(r)
    ws3.column_dimensions["A"].width = 16
    ws3.column_dimensions["B"].width = 80
    wb.properties.creator = "formats_dev build.py"
    wb.properties.title = "Flask changelog 2.2.0 – 3.1.3"
    wb.properties.created = wb.properties.modified = F.FIXED_TIME
    path = out / "flask_changelog_2.2-3.1.xlsx"
    wb.save(path)
    F.fix_zip_times(path)
    return path, nrows


# ---------------------------------------------------------------------------
# CSV: requests release history 2.25.0 – 2.31.0
# ---------------------------------------------------------------------------
def build_csv(req: Path, out: Path):
    rel = requests_history(req)
    rows = []
    for ver, date, items in rel:
        parts = tuple(int(x) for x in ver.split("."))
        if (2, 25, 0) <= parts <= (2, 31, 0):
            for cat, text, is_para in items:
                if is_para and not cat:
                    continue
                t, ref = F.split_refs(text)
                rows.append([ver, date, cat, t, ref])
    path = out / "requests_changes_2.25-2.31.csv"
    F.write_csv(path, ["version", "release_date", "category", "change", "reference"], rows)
    return path, len(rows)


# ---------------------------------------------------------------------------
# PPTX: requests 2.32 – 2.34 release briefing
# ---------------------------------------------------------------------------
def build_pptx(req: Path, out: Path):
    rel = {v: (d, items) for v, d, items in requests_history(req)}
    order = ["2.34.2", "2.34.1", "2.34.0", "2.33.1", "2.33.0", "2.32.5", "2.32.4", "2.32.3", "2.32.2",
             "2.32.1", "2.32.0"]
    prs = F._pptx()
    F.slide_title(prs, "Requests 2.32 – 2.34 릴리스 브리핑",
                "Release notes of Requests 2.32.0 (2024-05-20) to 2.34.2 (2026-05-14)\n"
                "Source: requests 2.34.2 sdist, HISTORY.md",
                notes="All slide text is copied from the Requests release history (HISTORY.md). "
                      "Bullets give the first sentence of each entry; the speaker notes hold the full entries.")
    trows = []
    for v in order:
        d, items = rel[v]
        cats = []
        for c, _, _ in items:
            if c and c not in cats:
                cats.append(c)
        trows.append([v, d, ", ".join(cats) or "—", str(len(items))])
    F.slide_table(prs, "Release timeline", ["Version", "Date", "Sections", "Entries"], trows,
                [1.6, 1.8, 7.0, 1.4], size=12,
                notes="Versions and dates as listed in HISTORY.md. 'Sections' are the bold headings used in "
                      "each release entry; 2.34.2 has a single entry without a heading.")

    def full(v, cats=None):
        d, items = rel[v]
        lines = [f"{v} ({d})"]
        last = None
        for c, t, _ in items:
            if cats and c not in cats:
                continue
            if c != last and c:
                lines.append(f"{c}:")
                last = c
            lines.append("- " + t)
        return "\n".join(lines)

    def bullets(v, cats=None, first=True):
        d, items = rel[v]
        out_b = []
        last = None
        for c, t, _ in items:
            if cats and c not in cats:
                continue
            if c and c != last:
                out_b.append((0, f"{c}"))
                last = c
            out_b.append((1 if c else 0, F.first_sentence(t) if first else t))
        return out_b

    F.slide_bullets(prs, "2.34.0 (2026-05-11): inline types", bullets("2.34.0", ["Announcements"], first=False),
                  notes=full("2.34.0", ["Announcements"]))
    F.slide_bullets(prs, "2.34.0: improvements and bugfixes", bullets("2.34.0", ["Improvements", "Bugfixes"]),
                  notes=full("2.34.0", ["Improvements", "Bugfixes"]))
    b = [(0, "2.34.2 (2026-05-14)")] + [(1, t) for t in [F.first_sentence(x[1]) for x in rel["2.34.2"][1]]]
    b += [(0, "2.34.1 (2026-05-13) — Bugfixes")] + [(1, F.first_sentence(x[1])) for x in rel["2.34.1"][1]]
    F.slide_bullets(prs, "2.34.1 and 2.34.2: typing follow-ups", b, notes=full("2.34.2") + "\n\n" + full("2.34.1"))
    b = [(0, "2.33.0 (2026-03-25)")] + [(1, f"{c}: {F.first_sentence(t)}") for c, t, _ in rel["2.33.0"][1]]
    b += [(0, "2.33.1 (2026-03-30)")] + [(1, F.first_sentence(t)) for c, t, _ in rel["2.33.1"][1]]
    F.slide_bullets(prs, "2.33.x: security fix and PEP 517 build", b, notes=full("2.33.0") + "\n\n" + full("2.33.1"))
    b = []
    for v in ["2.32.5", "2.32.4", "2.32.3", "2.32.2", "2.32.1"]:
        b.append((0, f"{v} ({rel[v][0]})"))
        b += [(1, f"{c}: {F.first_sentence(t)}") for c, t, _ in rel[v][1]]
    F.slide_bullets(prs, "2.32.1 – 2.32.5: patch releases", b,
                  notes="\n\n".join(full(v) for v in ["2.32.5", "2.32.4", "2.32.3", "2.32.2", "2.32.1"]))
    F.slide_bullets(prs, "2.32.0 (2024-05-20): security and improvements",
                  bullets("2.32.0", ["Security", "Improvements", "Bugfixes"]),
                  notes=full("2.32.0", ["Security", "Improvements", "Bugfixes"]))
    F.slide_bullets(prs, "2.32.0: platform support and packaging",
                  bullets("2.32.0", ["Deprecations", "Documentation", "Packaging"], first=False),
                  notes=None)
    F.pptx_core(prs, "Requests 2.32 – 2.34 release briefing", "requests 2.34.2 HISTORY.md", f"{SET} build.py")
    path = out / "requests_release_briefing_2.32-2.34.pptx"
    prs.save(path)
    F.fix_zip_times(path)
    return path


# ---------------------------------------------------------------------------
# HTML: Flask blueprints page
# ---------------------------------------------------------------------------
HTML_TMPL = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} — Flask Documentation (3.1.x)</title>
<style>
body {{ font-family: Georgia, serif; margin: 0; color: #222; }}
header.site {{ background: #f3f3f3; border-bottom: 1px solid #ddd; padding: 0.6em 2em; }}
nav.topnav ul {{ list-style: none; margin: 0; padding: 0; display: flex; gap: 1.4em; }}
nav.topnav a {{ color: #004b6b; text-decoration: none; }}
.layout {{ display: flex; max-width: 1100px; margin: 0 auto; }}
aside.sidebar {{ width: 240px; padding: 1.5em; font-size: 0.9em; }}
main {{ flex: 1; padding: 1.5em 2em; }}
pre {{ background: #f8f8f8; padding: 0.8em; overflow-x: auto; }}
.admonition {{ border-left: 4px solid #999; background: #fafafa; padding: 0.4em 1em; }}
#cookie-banner {{ position: fixed; bottom: 0; left: 0; right: 0; background: #333; color: #fff; padding: 1em 2em; }}
#cookie-banner button {{ margin-left: 1em; }}
footer.site {{ border-top: 1px solid #ddd; padding: 1.5em 2em; font-size: 0.85em; color: #555; }}
</style>
</head>
<body>
<header class="site">
  <a class="brand" href="/en/stable/">Flask</a> <span class="version">3.1.x</span>
  <nav class="topnav" aria-label="Main">
    <ul>
{nav}
    </ul>
  </nav>
  <form class="search" action="/en/stable/search.html" method="get" role="search">
    <input type="text" name="q" aria-label="Search docs" placeholder="Search docs">
  </form>
</header>
<div id="cookie-banner" role="dialog" aria-label="Cookie consent">
  <p>This site uses cookies to analyse traffic and remember your preferences. By continuing to browse, you agree to our use of cookies.
  <button type="button" id="cookie-accept">Accept all</button><button type="button" id="cookie-reject">Only necessary</button>
  <a href="/privacy/">Privacy policy</a></p>
</div>
<div class="layout">
<aside class="sidebar">
  <h3>Contents</h3>
  <ul>
{toc}
  </ul>
  <h3>Navigation</h3>
  <ul>
    <li>Previous: <a href="/en/stable/reqcontext/">The Request Context</a></li>
    <li>Next: <a href="/en/stable/extensions/">Extensions</a></li>
  </ul>
</aside>
<main>
<article class="document" id="{slug}">
{body}
</article>
</main>
</div>
<footer class="site">
  <p>&copy; Copyright 2010 Pallets. Flask 3.1.3 documentation, licensed under the BSD-3-Clause licence.</p>
  <p>Source: <code>docs/{src}</code> in the Flask 3.1.3 source distribution.</p>
  <nav aria-label="Footer"><a href="/en/stable/license/">License</a> · <a href="/en/stable/changes/">Changes</a> · <a href="/en/stable/contributing/">Contributing</a></nav>
</footer>
<script>
document.getElementById('cookie-accept').onclick = function () {{ document.getElementById('cookie-banner').remove(); }};
document.getElementById('cookie-reject').onclick = function () {{ document.getElementById('cookie-banner').remove(); }};
</script>
</body>
</html>
"""


def build_html(flask: Path, out: Path):
    from html import escape
    blocks = F.parse_rst((flask / "docs/blueprints.rst").read_text(encoding="utf-8"))
    title = F.plain(blocks[0][2])
    nav_items = [("Installation", "installation"), ("Quickstart", "quickstart"), ("Tutorial", "tutorial"),
                 ("Templates", "templating"), ("Testing", "testing"), ("Blueprints", "blueprints"),
                 ("Configuration", "config"), ("API", "api"), ("Changes", "changes")]
    nav = "\n".join(f'      <li><a href="/en/stable/{h}/">{escape(n)}</a></li>' for n, h in nav_items)
    toc = "\n".join(f'    <li><a href="#{F.slug(b[2])}">{escape(F.plain(b[2]))}</a></li>'
                    for b in blocks if b[0] == "h" and b[1] == 2)
    body = F.html_blocks(blocks)
    html = HTML_TMPL.format(title=escape(title), nav=nav, toc=toc, body=body, slug=F.slug(title),
                            src="blueprints.rst")
    path = out / "flask_blueprints_guide.html"
    path.write_text(html, encoding="utf-8")
    return path


# ---------------------------------------------------------------------------
# scans
# ---------------------------------------------------------------------------
def build_scan_ko(kobill: Path, fonts_dir: Path, out: Path):
    b = F.Bill(kobill / "1809894.txt")
    M = F.KO_GLYPH_MAP
    hdr = bill_header(b)
    items = [("title", "고등교육법 일부개정법률안"), ("center", "(안상수의원 대표발의)"), ("gap", 1)]
    for k, v in hdr[1:]:
        items.append(("p", f"{k} : {v}"))
    items.append(("gap", 0.5))
    ps = b.paras("제안이유 및 주요내용", "법률  제")
    items.append(("h", ps[0]))
    items += [("p", p) for p in ps[1:]]
    items.append(("gap", 1))
    items += [("center", "법률 제        호"), ("title", "고등교육법 일부개정법률안")]
    for p in b.paras("고등교육법 일부를 다음과", "신·구조문대비표"):
        items.append(("h" if re.match(r"^부\s*칙$", p) else "p", "부      칙" if re.match(r"^부\s*칙$", p) else p))
    items = [(k, t.translate(M) if isinstance(t, str) else t) for k, t in items]
    fonts = F.Fonts(fonts_dir / "nanum/NanumMyeongjo.ttf", fonts_dir / "nanum/NanumMyeongjoBold.ttf")
    pages = F.render_pages(items, fonts, size_pt=12, korean=True, footer="- {page} -")
    scans = [F.degrade(p, seed=9894 + k)[0] for k, p in enumerate(pages)]
    path = out / "higher_education_act_9894_scan.pdf"
    F.save_pdf_scan(scans, path)
    return path, len(pages)


def build_scan_en_png(req: Path, fonts_dir: Path, out: Path):
    blocks = F.parse_md((req / "README.md").read_text(encoding="utf-8"))
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages = F.render_pages(items, fonts, size_pt=10, page_in=(8.5, 11.0), margin_in=(0.8, 0.7), line_gap=1.3)
    assert len(pages) == 1, len(pages)
    img, angle = F.degrade(pages[0], seed=2342, noise=3.0)
    from PIL import ImageOps
    img = ImageOps.posterize(img, 4)  # 16 grey levels, like a 4-bit scanner setting
    path = out / "requests_readme_scan.png"
    img.save(path, dpi=(200, 200), optimize=True)
    return path, angle


def build_scan_en_pdf(flask: Path, fonts_dir: Path, out: Path):
    blocks = F.parse_rst((flask / "docs/installation.rst").read_text(encoding="utf-8"))
    items = F.blocks_to_items(blocks)
    fonts = F.Fonts(fonts_dir / "liberation/LiberationSerif-Regular.ttf",
                    fonts_dir / "liberation/LiberationSerif-Bold.ttf",
                    fonts_dir / "liberation/LiberationMono-Regular.ttf")
    pages = F.render_pages(items, fonts, size_pt=11, page_in=(8.5, 11.0), margin_in=(0.9, 0.8),
                           footer="Flask Documentation (3.1.x) — Installation — {page}")
    scans = [F.degrade(p, seed=3130 + k)[0] for k, p in enumerate(pages)]
    path = out / "flask_installation_scan.pdf"
    F.save_pdf_scan(scans, path)
    return path, len(pages)


# ---------------------------------------------------------------------------
def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", default="/tmp/fmt_sources", type=Path)
    ap.add_argument("--out", default=HERE / "docs", type=Path)
    ap.add_argument("--fonts", default="/usr/share/fonts/truetype", type=Path)
    a = ap.parse_args()
    flask, req = a.src / "flask-3.1.3", a.src / "requests-2.34.2"
    kobill = a.src / "konlpy/data/corpus/kobill"
    a.out.mkdir(parents=True, exist_ok=True)
    print(build_hwpx(kobill, a.out))
    print(build_hwp(kobill, a.out))
    print(build_docx(flask, a.out))
    print(build_pptx(req, a.out))
    print(build_xlsx(flask, a.out))
    print(build_csv(req, a.out))
    print(build_html(flask, a.out))
    print(build_scan_ko(kobill, a.fonts, a.out))
    print(build_scan_en_png(req, a.fonts, a.out))
    print(build_scan_en_pdf(flask, a.fonts, a.out))
    F.verify(a.out)


if __name__ == "__main__":
    main()
