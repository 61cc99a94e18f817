"""Documents read as people read them: a sheet's rows with their header and the values the sheet shows, annex
tables and forms cited as the annex, article titles with their spaces, and PDF pages cited by the label they
print — each on a real file made here with its library."""

from __future__ import annotations

import base64
import datetime as dt
import io
import warnings
from pathlib import Path

import docx
import openpyxl
import pytest
from pypdf import PdfReader, PdfWriter
from pypdf.constants import PageLabelStyle
from reportlab.pdfbase import pdfmetrics
from reportlab.pdfbase.cidfonts import UnicodeCIDFont
from reportlab.pdfgen import canvas

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.answer import group_sources, hit_label, page_label, quote_label, quote_location
from ai_llm.internal_rag_agent.answer_extraction import Quote
from ai_llm.internal_rag_agent.document_parser import ParsedDocument, parse_document, split_document
from ai_llm.internal_rag_agent.formats.sheet_values import displayed
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk
from ai_llm.internal_rag_agent.vector_store import ChunkHit
from tests.internal_rag_agent.conftest import unique_ref
from tests.internal_rag_agent.documents import chunk_labels, saved

# -- values as the sheet shows them ---------------------------------------------------------------------------


@pytest.mark.parametrize(("value", "number_format", "shown"), [
    (3120000000, "#,##0", "3,120,000,000"),
    (0.3871420612564903, "0.0%", "38.7%"),
    (0.3871420612564903, "General", "0.3871420613"),
    (0.125, "0%", "13%"),  # Excel rounds half away from zero
    (2.5, "0", "3"),
    (-1234.5, "#,##0.00", "-1,234.50"),
    (3120000, '"₩"#,##0', "₩3,120,000"),
    (3120000, "[$₩-412]#,##0", "₩3,120,000"),
    (3120000, '#,##0"원"', "3,120,000원"),
    (3120000000, '#,##0,,"백만원"', "3,120백만원"),  # a trailing comma shows thousands
    (-5, "#,##0;[Red](#,##0)", "(5)"),  # the negative section shows the absolute value
    (-1234, '_-* #,##0_-;-* #,##0_-;_-* "-"_-;_-@_-', "-1,234"),  # Excel's Korean accounting format
    (0, '_-* #,##0_-;-* #,##0_-;_-* "-"_-;_-@_-', "-"),
    (1234.5, '_("$"* #,##0.00_);_("$"* \\(#,##0.00\\);_("$"* "-"??_);_(@_)', "$1,234.50"),
    (123456, "0.00E+00", "1.23E+05"),
    (5, "[>100]0;0", "5"),  # a condition: shown as General
    (7.0, "General", "7"),
    (dt.datetime(2025, 11, 30), "yyyy-mm-dd", "2025-11-30"),
    (dt.datetime(2025, 11, 30), "mm-dd-yy", "2025-11-30"),  # the locale's short date: an ISO date
    (dt.datetime(2025, 11, 30), 'yyyy"년" m"월" d"일"', "2025년 11월 30일"),
    (dt.datetime(2025, 11, 30, 14, 5), "yyyy-mm-dd hh:mm", "2025-11-30 14:05"),  # `mm` after hours: minutes
    (dt.datetime(2025, 11, 30, 14, 5), "h:mm AM/PM", "2:05 PM"),
    (dt.datetime(2025, 1, 3), "yyyy/m/d (aaa)", "2025/1/3 (금)"),
    (dt.datetime(2025, 1, 3), "d-mmm-yy", "3-Jan-25"),
    (True, "General", "TRUE"),
    ("  9.1%  ", "General", "9.1%"),
    (None, "#,##0", ""),
])
def test_a_cell_reads_as_the_sheet_shows_it(value: object, number_format: str, shown: str) -> None:
    assert displayed(value, number_format) == shown


def _budget_workbook() -> bytes:
    """A budget sheet as teams write them: a title and a unit note above a two-row header of merged cells,
    amounts with thousands separators, a currency, a percentage and a date; a second plain sheet."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "부서별 예산"
    sheet.append(["2026년 부서별 예산 (2025.11.30 기준)"])
    sheet.merge_cells("A1:F1")
    sheet.append(["(단위: 원)"])
    sheet.append(["코드", "부서", "예산", None, "집행률", "확정일"])
    sheet.append([None, None, "2025년", "2026년", None, None])
    for cell in ("A3:A4", "B3:B4", "C3:D3", "E3:E4", "F3:F4"):
        sheet.merge_cells(cell)
    rows = [("B-2026-011", "경영지원팀", 410000000, 480000000, 0.5512, dt.datetime(2025, 11, 28)),
            ("B-2026-014", "연구개발팀", 2860000000, 3120000000, 0.3871420612564903, dt.datetime(2025, 11, 30))]
    for code, team, before, after, rate, day in rows:
        sheet.append([code, team, before, after, rate, day])
        row = sheet.max_row
        sheet.cell(row, 3).number_format = '"₩"#,##0'
        sheet.cell(row, 4).number_format = "#,##0"
        sheet.cell(row, 5).number_format = "0.0%"
        sheet.cell(row, 6).number_format = 'yyyy"년" m"월" d"일"'
    notes = workbook.create_sheet("작성기준")
    notes.append(["항목", "내용"])
    notes.append(["작성 부서", "경영기획팀"])
    return saved(workbook)


def _sheet_quote(doc: ParsedDocument, text: str, file_name: str = "budget.xlsx") -> Quote:
    """A quote of the line `text` of the chunk that holds it."""
    chunk = next(c for c in split_document(doc) if text in c.content.split("\n"))
    quote = _quote(chunk, file_name)
    quote.position = chunk.content.split("\n").index(text)
    quote.text = text
    return quote


def test_a_budget_row_reads_like_the_sheet_with_its_headers_and_shown_values() -> None:
    doc = parse_document(_budget_workbook(), "budget.xlsx")
    labels = chunk_labels(doc)
    assert list(labels) == ["부서별 예산!1–2", "부서별 예산!5–6", "작성기준!2"]
    # The title and the unit note are a part of their own, not the header of the rows.
    assert labels["부서별 예산!1–2"] == "2026년 부서별 예산 (2025.11.30 기준)\n(단위: 원)"
    row = ("코드: B-2026-014; 부서: 연구개발팀; 예산 2025년: ₩2,860,000,000; 예산 2026년: 3,120,000,000; "
           "집행률: 38.7%; 확정일: 2025년 11월 30일")
    assert labels["부서별 예산!5–6"].split("\n") == [
        "코드: B-2026-011; 부서: 경영지원팀; 예산 2025년: ₩410,000,000; 예산 2026년: 480,000,000; "
        "집행률: 55.1%; 확정일: 2025년 11월 28일", row]
    assert labels["작성기준!2"] == "항목: 작성 부서; 내용: 경영기획팀"
    # A quoted row is cited as that row, named by its first text cell; two rows quoted together by their range.
    quote = _sheet_quote(doc, row)
    assert quote_location(quote) == {"kind": "sheet", "sheet": "부서별 예산", "rows": "5-6", "row_number": "6",
                                     "row": "B-2026-014"}
    assert quote_label(quote) == "부서별 예산!6 (B-2026-014)"
    first = _sheet_quote(doc, labels["부서별 예산!5–6"].split("\n")[0])
    assert quote_label(first, lines=2) == "부서별 예산!5–6" and quote_label(first) == "부서별 예산!5 (B-2026-011)"
    [source] = group_sources([quote])
    assert source["page_label"] == "부서별 예산!6 (B-2026-014)"
    assert source["locations"] == [{"kind": "sheet", "sheet": "부서별 예산", "rows": "5-6"}]


def test_a_csv_title_above_its_header_is_not_the_header() -> None:
    text = "2026년 예산 현황,,\n(단위: 원),,\n부서,예산,집행률\n연구개발팀,\"3,120,000,000\",38.7%\n총무팀,\"40,000\",12%\n"
    doc = parse_document(text.encode(), "예산.csv")
    labels = chunk_labels(doc)
    assert labels == {"예산!1–2": "2026년 예산 현황\n(단위: 원)",
                      "예산!4–5": "부서: 연구개발팀; 예산: 3,120,000,000; 집행률: 38.7%\n부서: 총무팀; 예산: 40,000; 집행률: 12%"}
    assert quote_label(_sheet_quote(doc, "부서: 총무팀; 예산: 40,000; 집행률: 12%", "예산.csv")) == "예산!5 (총무팀)"
    # A header of years written as numbers is still the header.
    years = parse_document("부서별 예산\n부서,2025,2026\n총무팀,100,120\n".encode(), "years.csv")
    assert years.text.split("\n")[-1] == "부서: 총무팀; 2025: 100; 2026: 120"
    # A sheet whose first row is its header is read as before; a number-led row is named by its first text cell.
    plain = parse_document("버전,날짜,변경\n1.2,2024-01-05,캐시 추가\n".encode(), "changes.csv")
    assert plain.text == "버전: 1.2; 날짜: 2024-01-05; 변경: 캐시 추가"
    assert quote_label(_sheet_quote(plain, plain.text, "changes.csv")) == "changes!2 (캐시 추가)"


# -- annexes and article titles -----------------------------------------------------------------------------


def _travel_rules_word() -> bytes:
    document = docx.Document()
    document.add_paragraph("여비 규정")
    document.add_paragraph("제1조(목적) 이 규정은 출장 여비의 지급 기준을 정한다.")
    document.add_paragraph("제2조(일비 및 숙박비) 일비와 숙박비는 별표 1에 따른다.")
    document.add_paragraph("부칙")
    document.add_paragraph("제1조(시행일) 이 규정은 2026년 1월 1일부터 시행한다.")
    document.add_paragraph("제2조(경과조치) 이 규정 시행 전의 출장에는 종전 규정을 적용한다.")
    document.add_paragraph("[별표 1] 여비 지급 기준(제2조 관련)")
    table = document.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "구분", (0, 1): "상한", (1, 0): "숙박비", (1, 1): "8만 원"}.items():
        table.cell(r, c).text = text
    document.add_paragraph("[별지 제1호 서식] 출장 신청서")
    document.add_paragraph("신청인 성명과 출장 기간을 적는다.")
    return saved(document)


def test_a_word_annex_is_cited_as_the_annex_and_article_titles_keep_their_spaces() -> None:
    labels = chunk_labels(parse_document(_travel_rules_word(), "여비규정.docx"))
    assert list(labels) == ["여비 규정 > 제1조(목적)", "여비 규정 > 제2조(일비 및 숙박비)",
                            "여비 규정 > 부칙 > 제1조(시행일)", "여비 규정 > 부칙 > 제2조(경과조치)",
                            "여비 규정 > 별표 1 여비 지급 기준(제2조 관련)", "여비 규정 > 별지 제1호 서식 출장 신청서"]
    assert "구분: 숙박비; 상한: 8만 원" in labels["여비 규정 > 별표 1 여비 지급 기준(제2조 관련)"]
    assert "숙박비" not in labels["여비 규정 > 부칙 > 제2조(경과조치)"]
    # "별표 1에 따른다" refers to the annex: it stays in its article.
    assert "별표 1에 따른다" in labels["여비 규정 > 제2조(일비 및 숙박비)"]


@pytest.mark.parametrize("suffix", [".hwpx", ".hwp"])
def test_a_hangul_annex_after_the_addenda_is_cited_as_the_annex(tmp_path: Path, suffix: str) -> None:
    from hwpx import HwpxDocument

    path = tmp_path / f"rule{suffix}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        document = HwpxDocument.new()
        document.add_paragraph("제1장 총칙")
        document.add_paragraph("제5조(일비 및 숙박비) 일비와 숙박비는 별표 1과 같다.")
        document.add_paragraph("부칙")
        document.add_paragraph("제2조(경과조치) 종전의 규정에 따라 지급한 여비는 이 규정에 따라 지급한 것으로 본다.")
        document.add_paragraph("[별표 1] 여비 지급 기준표")
        table = document.add_table(2, 2)
        for (r, c), text in {(0, 0): "구분", (0, 1): "상한", (1, 0): "숙박비", (1, 1): "8만 원"}.items():
            table.set_cell_text(r, c, text)
        document.save_to_path(path)
    labels = chunk_labels(parse_document(path.read_bytes(), f"rule{suffix}"))
    assert "제1장 총칙 > 제5조(일비 및 숙박비)" in labels
    annex = labels["별표 1 여비 지급 기준표"]
    assert "구분: 숙박비; 상한: 8만 원" in annex
    assert not any("숙박비; 상한" in text for label, text in labels.items() if "경과조치" in label)


# -- printed page labels and annexes of a PDF -----------------------------------------------------------------


def _labelled_pdf() -> bytes:
    """Four pages printed `i`, `ii`, `1`, `2` (a front matter numbered apart); the last page opens an annex."""
    pdfmetrics.registerFont(UnicodeCIDFont("HYSMyeongJo-Medium"))
    buffer = io.BytesIO()
    pdf = canvas.Canvas(buffer)
    pages = [["Contents", "Scope of this manual."], ["Preface", "Who should read this manual."],
             ["제3조(숙박비) 숙박비는 실비로 지급한다.", "The hotel limit is 80 dollars a night."],
             ["제4조(정산) 여비는 귀임 후 14일 이내에 정산한다.", "[별표 1] 여비 지급 기준", "구분 식비 상한 하루 3만 원"]]
    for lines in pages:
        pdf.setFont("HYSMyeongJo-Medium", 11)
        for i, line in enumerate(lines):
            pdf.drawString(50, 800 - 14 * i, line)
        pdf.showPage()
    pdf.save()
    writer = PdfWriter(clone_from=PdfReader(io.BytesIO(buffer.getvalue())))
    writer.set_page_label(0, 1, style=PageLabelStyle.LOWERCASE_ROMAN)
    writer.set_page_label(2, 3, style=PageLabelStyle.DECIMAL, start=1)
    out = io.BytesIO()
    writer.write(out)
    return out.getvalue()


def _quote(chunk: object, file_name: str = "manual.pdf") -> Quote:
    hit = ChunkHit(storage_ref=file_name, chunk_index=chunk.index, content=chunk.content,  # type: ignore[attr-defined]
                   pages=chunk.pages, score=0.9, file_name=file_name, location=chunk.location)  # type: ignore[attr-defined]
    return Quote(text=chunk.content.split("\n")[0], chunk=RankedChunk(hit=hit, relevance=0.9),  # type: ignore[attr-defined]
                 position=0, score=0.9, window_coverage=1.0)


def test_pdf_pages_are_cited_by_their_printed_labels_and_keep_their_index() -> None:
    doc = parse_document(_labelled_pdf(), "manual.pdf")
    assert doc.locations[2] == {"kind": "page", "page": 2, "label": "ii"}
    assert doc.locations[3] == {"kind": "page", "page": 3, "label": "1"}
    chunks = split_document(doc)
    hotel = next(c for c in chunks if "80 dollars" in c.content)
    assert hotel.pages == [3]  # the index: the viewer opens it, the evaluation scores it
    assert hit_label(_quote(hotel).chunk.hit) == "p.1"
    [source] = group_sources([_quote(c) for c in chunks if c.pages in ([2], [3])])
    assert source["pages"] == [2, 3] and source["page_label"] == "p.ii–1"
    assert page_label([2, 3, 5]) == "p.2–3, 5"  # a PDF without labels: the page numbers


def test_a_pdf_annex_is_a_location_of_its_own_on_its_page() -> None:
    chunks = [c for c in split_document(parse_document(_labelled_pdf(), "manual.pdf")) if c.pages == [4]]
    article, annex = chunks
    assert "정산" in article.content and "별표" not in article.content
    assert article.location == {"kind": "page", "page": 4, "label": "2"}
    assert annex.location == {"kind": "page", "page": 4, "label": "2", "annex": "별표 1 여비 지급 기준"}
    assert "식비 상한 하루 3만 원" in annex.content
    assert hit_label(_quote(annex).chunk.hit) == "p.2 별표 1 여비 지급 기준"
    [source] = group_sources([_quote(annex)])
    assert source["pages"] == [4] and source["page_label"] == "p.2; 별표 1 여비 지급 기준"


# -- through the agent, as a person asks ----------------------------------------------------------------------


async def test_answers_quote_the_budget_row_the_annex_and_the_printed_page(rag_agent: RagAgent,
                                                                          tmp_path: Path) -> None:
    files = {"budget": ("2026_budget.xlsx", _budget_workbook()), "rules": ("여비규정.docx", _travel_rules_word()),
             "manual": ("manual.pdf", _labelled_pdf())}
    refs = {key: unique_ref(key) for key in files}
    results = await rag_agent.indexing.index_many([
        DocumentInput(refs[key], name, file_id=key, file_url=f"/api/files/{key}/download",
                      content_b64=base64.b64encode(data).decode()) for key, (name, data) in files.items()])
    assert [r.status for r in results] == ["success"] * 3
    try:
        cases = [("연구개발팀의 2026년 예산은 얼마인가요?", "budget", "부서별 예산!6 (B-2026-014)",
                  "예산 2026년: 3,120,000,000"),
                 ("여비 지급 기준표에서 숙박비 상한은 얼마인가요?", "rules", "여비 규정 > 별표 1 여비 지급 기준(제2조 관련)",
                  "상한: 8만 원"),
                 ("What is the hotel limit a night?", "manual", "p.1", "80 dollars a night"),
                 ("하루 식비 상한은 얼마인가요?", "manual", "p.2 별표 1 여비 지급 기준", "식비 상한 하루 3만 원")]
        for question, key, label, text in cases:
            reply = (await rag_agent.run_state(AgentRequest(text=question, data={"language": "ko"})))["reply"]
            assert reply.data["status"] == "ok", question
            quote = reply.data["quotes"][0]
            assert quote["file_id"] == key and quote["label"] == label and text in quote["text"], question
            assert f"{files[key][0]}** ({label}" in reply.text or f"{files[key][0]}, {label}" in reply.text
            if key == "manual":  # `pages` stay the page index; the text names the printed page
                source = next(s for s in reply.data["sources"] if s["file_id"] == "manual")
                assert source["pages"] == [quote["location"]["page"]] and source["page_label"].startswith(label[:3])
    finally:
        for ref in refs.values():
            await rag_agent.indexing.delete(ref)
