"""Documents of every format, built with their libraries, for the parser and agent tests."""

from __future__ import annotations

import io
import warnings
from pathlib import Path

import docx
import openpyxl
import pptx

from ai_llm.internal_rag_agent.document_parser import ParsedDocument, split_document
from ai_llm.internal_rag_agent.formats.structure import location_label


def saved(document: object) -> bytes:
    buffer = io.BytesIO()
    document.save(buffer)  # type: ignore[attr-defined]
    return buffer.getvalue()


def make_word() -> bytes:
    """A travel policy: three headed sections, a list item and a table."""
    document = docx.Document()
    document.add_heading("Travel policy", 1)
    document.add_paragraph("This policy sets the rules for business travel by employees.")
    document.add_heading("Allowances", 2)
    document.add_paragraph("The daily allowance is 30 dollars for domestic trips.", style="List Bullet")
    table = document.add_table(rows=2, cols=2)
    for (r, c), text in {(0, 0): "Item", (0, 1): "Limit", (1, 0): "Hotel", (1, 1): "80 dollars a night"}.items():
        table.cell(r, c).text = text
    document.add_heading("Claims", 2)
    document.add_paragraph("Claims are filed within 14 days of the return.")
    return saved(document)


def make_deck() -> bytes:
    """Two slides: results with speaker notes, and a hiring plan with a table."""
    deck = pptx.Presentation()
    first = deck.slides.add_slide(deck.slide_layouts[1])
    first.shapes.title.text = "Quarterly results"
    first.placeholders[1].text = "Revenue grew 12 percent over the quarter."
    first.notes_slide.notes_text_frame.text = "Mention the new Busan office."
    second = deck.slides.add_slide(deck.slide_layouts[5])
    second.shapes.title.text = "Hiring plan"
    table = second.shapes.add_table(2, 2, 0, 0, 4_000_000, 1_000_000).table
    for (r, c), text in {(0, 0): "Team", (0, 1): "Hires", (1, 0): "Search", (1, 1): "2"}.items():
        table.cell(r, c).text = text
    return saved(deck)


def make_workbook() -> bytes:
    """A 45-row budget sheet (row 34 holds the one remark) and a one-row summary sheet."""
    workbook = openpyxl.Workbook()
    sheet = workbook.active
    sheet.title = "예산"
    sheet.append(["항목", "금액", "비고"])
    for i in range(1, 46):
        sheet.append([f"항목{i}", i * 1000, "검토" if i == 33 else None])
    workbook.create_sheet("요약").append(["합계", 1_035_000])
    return saved(workbook)


def make_outlined_guide(path: Path) -> Path:
    """A Korean FAQ whose headings are paragraphs in Hangul's outline styles (개요 1, 개요 2) numbered "6.1." and
    "6.2.1." — no 제N조 articles, no numbering the outline rule would take — saved as HWPX or HWP by suffix."""
    from hwpx import HwpxDocument

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        document = HwpxDocument.new()
        document.add_heading("6장. 데비안 아카이브", 1)
        document.add_paragraph("이 장은 아카이브의 구조를 설명합니다.", inherit_style=False)
        document.add_heading("6.1. 배포판은 몇 개인가요?", 2)
        document.add_paragraph("주 배포판은 stable, testing, unstable의 세 가지입니다.", inherit_style=False)
        document.add_heading("6.2.1. 코드명은 어디서 왔나요?", 3)
        document.add_paragraph("코드명은 영화 토이 스토리의 캐릭터에서 가져왔습니다.", inherit_style=False)
        document.save_to_path(path)
    return path


def make_regulation(path: Path) -> Path:
    """A Korean travel regulation in chapters and articles with a table, saved as HWPX or HWP by suffix."""
    from hwpx import HwpxDocument

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        document = HwpxDocument.new()
        document.add_paragraph("제1장 총칙")
        document.add_paragraph("제1조(목적) 이 규정은 임직원의 출장 여비 지급 기준을 정한다.")
        document.add_paragraph("제2장 여비")
        document.add_paragraph("제2조(일비) 국내 출장 일비는 하루 3만 원으로 한다.")
        table = document.add_table(2, 2)
        for (r, c), text in {(0, 0): "구분", (0, 1): "상한", (1, 0): "숙박비", (1, 1): "8만 원"}.items():
            table.set_cell_text(r, c, text)
        document.add_paragraph("제3조(정산) 여비는 귀임 후 14일 이내에 정산한다.")
        document.save_to_path(path)
    return path


def chunk_labels(doc: ParsedDocument) -> dict[str, str]:
    """A parsed document's chunk text by location label (as the index would cite it)."""
    out: dict[str, str] = {}
    for chunk in split_document(doc, 800, 100):
        label = location_label(chunk.location)
        out[label] = (out.get(label, "") + "\n" + chunk.content).strip()
    return out
