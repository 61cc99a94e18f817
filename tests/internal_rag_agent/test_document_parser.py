"""Document parsing: page markers and page spans on real PDFs, and a clear error for every bad input."""

from __future__ import annotations

import io
import re

import pytest
from docx import Document

from ai_llm.internal_rag_agent.document_parser import DocumentError, parse_document, split_document
from tests.conftest import eval_pdf
from tests.internal_rag_agent.conftest import make_encrypted_pdf, make_image_only_pdf, make_pdf


def test_real_pdf_has_a_marker_before_every_page_with_text() -> None:
    data = eval_pdf("cdc_outpatient_infection_prevention_guide.pdf").read_bytes()
    doc = parse_document(data, "cdc.pdf")
    markers = [int(n) for n in re.findall(r"\[페이지 (\d+)\]", doc.text)]
    assert doc.page_count == 44
    # Pages 43-44 have (almost) no text; every other page is marked once, in order, 1-based.
    assert markers == [p for p, _, _ in doc.page_spans]
    assert markers[0] == 1 and markers == sorted(markers) and 33 in markers
    # The text under marker 33 is the text of pypdf page index 32 (the multi-dose vial page).
    start = doc.text.index("[페이지 33]")
    end = doc.text.index("[페이지 34]")
    assert "28 days" in doc.text[start:end]


def test_chunks_of_a_real_pdf_are_whole_sentences_of_one_page() -> None:
    data = eval_pdf("lewis2020_rag_paper_arxiv2005.11401.pdf").read_bytes()
    doc = parse_document(data, "rag.pdf")
    chunks = split_document(doc, 800, 100)
    assert all(len(c.content) <= 800 for c in chunks)
    assert [c.index for c in chunks] == list(range(len(chunks)))
    pages = {p: doc.text[s:e] for p, s, e in doc.page_spans}
    for chunk in chunks:
        # One page per chunk (the cited page is the page that holds the text), and its text is on that page.
        assert len(chunk.pages) == 1 and "[페이지" not in chunk.content
        for sentence in chunk.content.split("\n"):
            assert sentence in pages[chunk.pages[0]]
    covered = {p for c in chunks for p in c.pages}
    assert covered == {p for p, _, _ in doc.page_spans}


def test_korean_pdf_text_is_kept_intact() -> None:
    data = eval_pdf("ko_mohw_health_bigdata_platform_pilot_plan_2017.pdf").read_bytes()
    doc = parse_document(data, "ko.pdf")
    page4 = doc.text[doc.text.index("[페이지 4]"):doc.text.index("[페이지 5]")]
    assert "국회예산심의결과77억→46억으로" in page4.replace(" ", "")


def test_page_spans_of_a_generated_pdf() -> None:
    pages = [f"Page {i} talks about topic number {i}. " * 3 for i in range(1, 4)]
    doc = parse_document(make_pdf(pages), "three.pdf")
    assert [p for p, _, _ in doc.page_spans] == [1, 2, 3]
    for page, start, end in doc.page_spans:
        assert f"topic number {page}" in doc.text[start:end]
    chunks = split_document(doc, chunk_size=150, chunk_overlap=20)
    assert {p for c in chunks for p in c.pages} == {1, 2, 3}
    assert all(f"topic number {c.pages[0]}" in c.content for c in chunks)


@pytest.mark.parametrize(("name", "data_factory", "code", "phrase"), [
    ("locked.pdf", make_encrypted_pdf, "encrypted", "password"),
    ("broken.pdf", lambda: b"%PDF-1.7\n" + bytes(range(256)) * 8, "corrupt", "damaged"),
    ("random.pdf", lambda: bytes(range(1, 256)) * 20, "corrupt", "not a valid PDF"),
    ("scan.pdf", make_image_only_pdf, "no_text", "no text was found in the scan"),
    ("empty.pdf", lambda: b"", "empty", "empty"),
    ("empty.txt", lambda: b"   \n", "empty", "empty"),
    ("slides.pptx", lambda: b"PK\x03\x04 not supported", "corrupt", "damaged zip"),
    ("program.exe", lambda: b"MZ\x90\x00\x03" + bytes(range(256)) * 4, "unsupported", "does not accept"),
])
def test_bad_inputs_raise_a_clear_error(name: str, data_factory: object, code: str, phrase: str) -> None:
    with pytest.raises(DocumentError) as info:
        parse_document(data_factory(), name)  # type: ignore[operator]
    assert info.value.code == code
    assert phrase in info.value.reason


def test_oversize_file_is_refused_before_parsing() -> None:
    data = make_pdf(["x" * 80] * 5)
    with pytest.raises(DocumentError) as info:
        parse_document(data, "big.pdf", max_bytes=len(data) - 1)
    assert info.value.code == "too_large" and "limit" in info.value.reason
    assert parse_document(data, "big.pdf", max_bytes=len(data)).page_count == 5


def test_text_markdown_and_docx() -> None:
    txt = parse_document("보건의료 빅데이터 플랫폼\n\n\n시범사업  계획".encode(), "plan.txt")
    assert txt.text == "보건의료 빅데이터 플랫폼\n시범사업 계획" and txt.page_spans[0][0] == 1
    cp949 = parse_document("연차 규정".encode("cp949"), "rules.md")
    assert cp949.text == "연차 규정"
    document = Document()
    document.add_paragraph("Travel expenses are reimbursed within 30 days.")
    table = document.add_table(rows=1, cols=2)
    table.rows[0].cells[0].text = "code"
    table.rows[0].cells[1].text = "TRV-7"
    buffer = io.BytesIO()
    document.save(buffer)
    docx = parse_document(buffer.getvalue(), "policy.docx")
    assert "within 30 days" in docx.text and "code | TRV-7" in docx.text
    with pytest.raises(DocumentError) as info:
        parse_document(b"PK\x03\x04 broken zip", "bad.docx")
    assert info.value.code == "corrupt"


def test_a_short_scans_running_header_and_footer_are_dropped_even_when_misread() -> None:
    """The line at the top (and at the bottom) of every page of a three-page scan, read a letter differently on
    each, is chrome: it goes, and no longer opens the page's first paragraph; body lines that merely look alike
    stay, and a line found on one page only is text."""
    from ai_llm.internal_rag_agent.document_parser import strip_edge_lines

    pages = [": 늘봄식품 사내 규정집ㆍ제4편 총무ㆍ 보안 및 경비 규정\n보안 및 경비 규정\n제1조(목적) 이 규정은 목적을 정한다.\n"
             "h1l README — page 1 of 3",
             "늘봄식품 사내 규정집 ㆍ제4편 총무ㆍ보안 및 경비 규정\n② 녹화 영상은 30일간 보존한 후 삭제한다.\nhil README — page 2 of 3",
             "늘봄식품 사내 규정접ㆍ제4편 총무ㆍ보안 및 경비 규정\n[별표 1] 보안구역 지정 현황\nh1l README — page 3 of 3"]
    stripped = strip_edge_lines(pages)
    assert [page.split("\n") for page in stripped] == [["보안 및 경비 규정", "제1조(목적) 이 규정은 목적을 정한다."],
                                                       ["② 녹화 영상은 30일간 보존한 후 삭제한다."],
                                                       ["[별표 1] 보안구역 지정 현황"]]
    different = ["Chapter one begins here.\nText of page one.", "A second page starts otherwise.\nText of page two."]
    assert strip_edge_lines(different) == different
    assert strip_edge_lines(["Only one page.\nIts last line."]) == ["Only one page.\nIts last line."]
