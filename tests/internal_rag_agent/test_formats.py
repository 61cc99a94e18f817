"""Every format the hub reads, through its library, with the location a person finds each chunk by; and a
clear error, with nothing indexed, for every bad input (encrypted, damaged, zip bombs, lying extensions)."""

from __future__ import annotations

import io
import struct
import zipfile
from pathlib import Path

import docx
import pytest
from docx.oxml.ns import qn
from PIL import Image, ImageDraw, ImageFont

from ai_llm.common import file_types
from ai_llm.internal_rag_agent import document_parser
from ai_llm.internal_rag_agent.document_parser import (
    DocumentError,
    parse_document,
    split_document,
)
from ai_llm.internal_rag_agent.formats import ocr, structure
from tests.internal_rag_agent.documents import (
    chunk_labels,
    make_deck,
    make_outlined_guide,
    make_regulation,
    make_word,
    make_workbook,
    saved,
)

DATA = Path(__file__).with_name("data")




def test_word_sections_follow_the_headings_with_lists_and_table_rows() -> None:
    labels = chunk_labels(parse_document(make_word(), "policy.docx"))
    assert set(labels) == {"Travel policy", "Travel policy > Allowances", "Travel policy > Claims"}
    allowances = labels["Travel policy > Allowances"]
    assert "- The daily allowance is 30 dollars for domestic trips." in allowances
    assert "Item: Hotel; Limit: 80 dollars a night" in allowances  # a row reads as a sentence
    assert "within 14 days" in labels["Travel policy > Claims"] and "14 days" not in allowances


def test_a_word_footnote_follows_the_paragraph_citing_it() -> None:
    """A footnote is read in the section of the paragraph that cites it (a reader finds it on that page); one
    that nothing cites is in a last section of its own."""
    document = docx.Document(io.BytesIO(make_word()))
    claims = next(p for p in document.paragraphs if p.text.startswith("Claims are filed"))
    reference = claims.add_run()._r
    reference.append(reference.makeelement(qn("w:footnoteReference"), {qn("w:id"): "2"}))
    notes = (b'<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:footnotes xmlns:w="http://schemas.'
             b'openxmlformats.org/wordprocessingml/2006/main"><w:footnote w:id="-1"><w:p><w:r><w:t>sep</w:t></w:r>'
             b'</w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>Receipts are kept for five years.</w:t>'
             b'</w:r></w:p></w:footnote><w:footnote w:id="2"><w:p><w:r><w:t>Late claims need a manager.</w:t>'
             b'</w:r></w:p></w:footnote></w:footnotes>')
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(saved(document))) as source, zipfile.ZipFile(out, "w") as target:
        for item in source.infolist():
            target.writestr(item, source.read(item.filename))
        target.writestr("word/footnotes.xml", notes)
    labels = chunk_labels(parse_document(out.getvalue(), "policy.docx"))
    assert labels["Travel policy > Claims"].endswith("Claims are filed within 14 days of the return.\n"
                                                     "Late claims need a manager.")
    assert labels["각주"] == "각주\nReceipts are kept for five years."


def test_slides_are_locations_with_title_body_table_and_speaker_notes() -> None:
    doc = parse_document(make_deck(), "q3.pptx")
    assert doc.locations == {1: {"kind": "slide", "slide": 1, "title": "Quarterly results"},
                             2: {"kind": "slide", "slide": 2, "title": "Hiring plan"}}
    labels = chunk_labels(doc)
    assert "발표자 노트: Mention the new Busan office." in labels["슬라이드 1"]
    assert "Team: Search; Hires: 2" in labels["슬라이드 2"] and "Busan" not in labels["슬라이드 2"]


def test_sheet_rows_read_as_sentences_with_their_sheet_and_row_range() -> None:
    doc = parse_document(make_workbook(), "budget.xlsx")
    labels = chunk_labels(doc)
    assert list(labels) == ["예산!2–21", "예산!22–41", "예산!42–46", "요약!1"]
    assert "항목: 항목33; 금액: 33000; 비고: 검토" in labels["예산!22–41"]  # row 34 of the sheet
    assert labels["요약!1"] == "합계 | 1035000"  # a sheet that is only a header row
    # Each line of a chunk knows its row (number and label), which a quote of it is cited by.
    chunk = next(c for c in split_document(doc) if "항목33;" in c.content)
    lines = chunk.content.split("\n")
    assert chunk.location is not None
    assert chunk.location["line_rows"][lines.index("항목: 항목33; 금액: 33000; 비고: 검토")] == [34, "항목33"]
    assert doc.notices == []


def test_a_sheet_over_the_row_bound_is_cut_and_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    from ai_llm.internal_rag_agent import document_parser

    monkeypatch.setattr(document_parser, "MAX_SHEET_ROWS", 1_000)
    rows = "\n".join(f"{i},value {i}" for i in range(100_000))
    doc = parse_document(f"id,value\n{rows}\n".encode(), "big.csv")
    chunks = split_document(doc)
    assert "id: 999; value: value 999" in chunks[-1].content
    assert all("value 1000;" not in c.content and not c.content.endswith("value 1000") for c in chunks)
    assert doc.notices == ["99,000 rows beyond the first 1,000 were not indexed (row limit)."]


def test_csv_header_is_carried_into_each_row() -> None:
    doc = parse_document("버전;날짜;변경\n1.2;2024-01-05;캐시 추가\n2.0;2025-03-01;API 변경\n".encode("cp949"),
                         "changes.csv")
    assert doc.text == "버전: 1.2; 날짜: 2024-01-05; 변경: 캐시 추가\n버전: 2.0; 날짜: 2025-03-01; 변경: API 변경"
    assert doc.locations[1] == {"kind": "sheet", "sheet": "changes", "rows": "2-3"}


def test_a_table_row_is_one_line_whatever_sentences_its_cells_hold() -> None:
    """A row is quoted whole (its description and its default together); a sheet's rows too. A row longer
    than a chunk is cut at its sentences."""
    document = docx.Document()
    document.add_heading("Settings", 1)
    table = document.add_table(rows=2, cols=3)
    cells = {(0, 0): "Key", (0, 1): "Description", (0, 2): "Default",
             (1, 0): "MAX_SIZE", (1, 1): "The maximum size of a form field. Set it per view.", (1, 2): "500_000"}
    for (r, c), text in cells.items():
        table.cell(r, c).text = text
    document.add_paragraph("Other text. It has two sentences.")
    lines = split_document(parse_document(saved(document), "settings.docx"))[0].content.split("\n")
    assert "Key: MAX_SIZE; Description: The maximum size of a form field. Set it per view.; Default: 500_000" \
        in lines
    assert "Other text." in lines and "It has two sentences." in lines  # body text is still cut at its sentences
    csv_text = "version,change\n2.0,First part of the change. Second part. Third part.\n"
    chunks = split_document(parse_document(csv_text.encode(), "changes.csv"))
    assert chunks[0].content == "version: 2.0; change: First part of the change. Second part. Third part."
    long_row = "version,change\n3.0," + " ".join(f"Sentence number {n} of a long entry." for n in range(40)) + "\n"
    pieces = split_document(parse_document(long_row.encode(), "long.csv"), 800, 100)
    lines = [line for chunk in pieces for line in chunk.content.split("\n")]
    assert "Sentence number 7 of a long entry." in lines and all(len(line) <= 800 for line in lines)


def test_html_keeps_the_main_content_and_drops_navigation_and_banners() -> None:
    page = ("<!doctype html><html><head><title>Wiki</title></head><body>"
            "<nav><ul><li><a href='/'>Home</a></li><li><a href='/login'>Sign in to the portal</a></li></ul></nav>"
            "<div class='cookie-banner'>We use cookies to improve your experience. Accept all cookies?</div>"
            "<main><article><h1>Backup service</h1><p>The backup service keeps every file for "
            "<b>30 days</b> before it is deleted for good.</p><h2>Limits</h2><p>Each team may store up to "
            "5 GB of backups in total across all of its projects.</p></article></main>"
            "<footer>Copyright 2026. Privacy policy and terms of use.</footer></body></html>")
    labels = chunk_labels(parse_document(page.encode(), "backup.html"))
    assert "The backup service keeps every file for 30 days before it is deleted for good." in \
        labels["Backup service"]
    assert "up to 5 GB" in labels["Backup service > Limits"]
    everything = "\n".join(labels.values())
    assert "cookies" not in everything and "Sign in" not in everything and "Privacy" not in everything


def test_a_quote_inside_a_quoted_csv_cell_stays_in_its_cell() -> None:
    """Doubled quotes are one quote (RFC 4180) even when the sniffer's sample holds none."""
    rows = "".join(f"{n}.0,Plain change number {n}\n" for n in range(400))
    text = f"version,change\n{rows}9.0,\"New \"\"compact\"\" option, off by default\"\n"
    doc = parse_document(text.encode(), "changes.csv")
    assert 'version: 9.0; change: New "compact" option, off by default' in doc.text.split("\n")


def test_a_comment_in_a_code_block_is_not_a_heading() -> None:
    """A README's shell comment (`# install the tools`) stays in its section's text, in Markdown and HTML."""
    readme = ("# Setup\n\nInstall the command line tools before the first run of the project.\n\n"
              "```bash\n# install the tools\npip install tool\n| not | a table |\n```\n\n"
              "## Usage\n\nRun the tool with one argument naming the input folder.\n")
    labels = chunk_labels(parse_document(readme.encode(), "README.md"))
    assert list(labels) == ["Setup", "Setup > Usage"]
    assert "# install the tools" in labels["Setup"] and "| not | a table |" in labels["Setup"]
    page = ("<html><body><main><article><h1>Setup</h1><p>Install the command line tools before the first run "
            "of the project, as the steps below show in order.</p><pre><code># install the tools\npip install "
            "tool</code></pre><h2>Usage</h2><p>Run the tool with one argument naming the input folder you "
            "want it to read.</p></article></main></body></html>")
    assert list(chunk_labels(parse_document(page.encode(), "setup.html"))) == ["Setup", "Setup > Usage"]


def test_markdown_is_read_as_rendered_without_marks_or_link_targets() -> None:
    """A quote from a Markdown file reads as the rendered page: no `**`, no URL; code keeps its own marks."""
    note = ("# Backups\n\nEvery file is kept for **30 days**, see [the retention guide](https://example.org/r) "
            "and *never* `rm -rf **/tmp`. It means *\"any file not in\nthe list\"*.\n\n```python\ndef __init__(self, **kw): ...\n```\n")
    text = parse_document(note.encode(), "backups.md").text
    assert "Every file is kept for 30 days, see the retention guide and never `rm -rf **/tmp`." in text
    assert "def __init__(self, **kw): ..." in text and "example.org" not in text
    assert 'It means "any file not in\nthe list".' in text  # a mark may run over a line break


def test_html_code_keeps_its_underscores_and_stars() -> None:
    """Bold and italic marks are dropped from the prose, not from code: `__init__` and `(**)` stay."""
    page = ("<html><body><main><article><h1>Initialisation</h1><p>The generated <code>__init__</code> method "
            "takes every field as a keyword argument, and <b>frozen</b> classes refuse changes after it.</p>"
            "<p>The pattern <code>(**)</code> matches any number of directories in a path glob expression.</p>"
            "</article></main></body></html>")
    text = parse_document(page.encode(), "init.html").text
    assert "The generated `__init__` method" in text and "`(**)`" in text
    assert "**frozen**" not in text and "frozen classes" in text


@pytest.mark.parametrize("suffix", [".hwpx", ".hwp"])
def test_hangul_documents_are_cut_at_their_articles(tmp_path: Path, suffix: str) -> None:
    data = make_regulation(tmp_path / f"rule{suffix}").read_bytes()
    kind = file_types.sniff(data, suffix).content_type
    assert kind == (file_types.HWPX if suffix == ".hwpx" else file_types.HWP)
    labels = chunk_labels(parse_document(data, f"rule{suffix}"))
    assert list(labels) == ["제1장 총칙 > 제1조(목적)", "제2장 여비 > 제2조(일비)", "제2장 여비 > 제3조(정산)"]
    assert "구분: 숙박비; 상한: 8만 원" in labels["제2장 여비 > 제2조(일비)"]
    assert labels["제2장 여비 > 제3조(정산)"] == "제3조(정산) 여비는 귀임 후 14일 이내에 정산한다."


@pytest.mark.parametrize("suffix", [".hwpx", ".hwp"])
def test_hangul_paragraphs_in_outline_styles_are_the_headings(tmp_path: Path, suffix: str) -> None:
    data = make_outlined_guide(tmp_path / f"faq{suffix}").read_bytes()
    labels = chunk_labels(parse_document(data, f"faq{suffix}"))
    assert list(labels) == ["6장. 데비안 아카이브", "6장. 데비안 아카이브 > 6.1. 배포판은 몇 개인가요?",
                            "6장. 데비안 아카이브 > 6.1. 배포판은 몇 개인가요? > 6.2.1. 코드명은 어디서 왔나요?"]
    assert "토이 스토리" in labels["6장. 데비안 아카이브 > 6.1. 배포판은 몇 개인가요? > 6.2.1. 코드명은 어디서 왔나요?"]


def test_plain_text_and_markdown_get_article_and_heading_locations() -> None:
    law = "제1조(목적) 이 법은 목적을 정한다.\n제2조(정의) 이 법에서 쓰는 말의 뜻은 다음과 같다.\n".encode()
    assert list(chunk_labels(parse_document(law, "law.txt"))) == ["제1조(목적)", "제2조(정의)"]
    guide = b"# Guide\n\nStart here with the basics.\n\n## Setup\n\nRun make run to start every agent.\n"
    assert chunk_labels(parse_document(guide, "guide.md"))["Guide > Setup"] == "Setup\nRun make run to start every agent."


def test_circled_paragraph_numbers_are_kept_as_written() -> None:
    law = "제7조(시행일) ① 이 규정은 공포한 날부터 시행한다.\n② 제1항에도 불구하고 제3조는 다음 달부터 시행한다.\n".encode()
    text = parse_document(law, "law.txt").text
    assert "① 이 규정은" in text and "② 제1항에도" in text  # NFKC would make them "1", "2"
    assert parse_document("ﬁle Ｆｕｌｌ".encode(), "a.txt").text == "file Full"  # other compatibility forms fold


def test_misread_paragraph_numbers_of_a_korean_scan_are_restored_in_order() -> None:
    """Tesseract's Korean model has no ① in its character set: these are marks it gave for ①②③ (and the
    부칙's ①②) on rendered statute pages."""
    read = ("제50조의3(간호과의 특례) 0 대통령령이 정하는 간호과의 수업연한은 4년으로 한다.\n"
            "6 제1항의 간호과를 마친 자에게는 학사학위를 수여한다.\n"
            "(3) 제2항의 학위에 필요한 사항은 대통령령으로 정하되, 그 종류는\n"
            "3 개 이내로 한다.\n"
            "1. 이 목록의 항목은 그대로 둔다.\n"
            "부 칙\n"
            "00(시행일) 이 법은 공포 후 6개월이 경과한 날부터 시행한다.\n"
            "@ 이 법 시행 당시 재학 중인 자는 종전의 규정에 따른다.")
    restored = ocr.restore_paragraph_numbers(read).split("\n")
    assert restored[0] == "제50조의3(간호과의 특례) ① 대통령령이 정하는 간호과의 수업연한은 4년으로 한다."
    assert restored[1].startswith("② 제1항의") and restored[2].startswith("③ 제2항의")
    assert restored[3] == "3 개 이내로 한다."  # inside a sentence: a number, not a mark
    assert restored[4] == "1. 이 목록의 항목은 그대로 둔다."
    assert restored[6] == "①(시행일) 이 법은 공포 후 6개월이 경과한 날부터 시행한다."
    assert restored[7].startswith("② 이 법 시행 당시")
    english = "Step 1 of the guide.\n0 items are left.\n@ mentions work."
    assert ocr.restore_paragraph_numbers(english) == english
    no_article = "회의 결과를 정리했다.\n6 개 부서가 참석했다."
    assert ocr.restore_paragraph_numbers(no_article) == no_article


def test_a_scan_paragraph_wrapped_over_blank_lines_is_one_paragraph_and_table_rows_stay_rows() -> None:
    """Tesseract puts blank lines inside a paragraph and reads a dropped ② as a leading space; the text a person
    quotes is the paragraph whole, its mark restored, each table row on its own line."""
    read = ("제6조(근무시간) 0 원격근무일의 근무시간은 사무실 근무와 같이 09시부터\n\n"
            "18시까지로 하고, 휴게시간은 12시부터 13시까지로 한다.\n\n"
            " 원격근무일에 연장근로를 하려면 미리 부서장의 승인을 받아야 한다.\n"
            "<운영 기준>\n"
            "주 2일 이내                    전월 25일까지                 부서장\n\n"
            "월 4일 이내                 사용 전날 18시까지               팀장\n\n"
            "제7조(근무 장소) 원격근무는 신청서에 적은 장소에서 하여야 하며, 카페 등 불특정 다수가\n\n"
            "이용하는 장소에서는 할 수 없다.")
    text = document_parser._ocr_document([read], 0).text.split("\n")
    assert "제6조(근무시간) ① 원격근무일의 근무시간은 사무실 근무와 같이 09시부터 18시까지로 하고, 휴게시간은 12시부터 " \
           "13시까지로 한다." in text
    assert "② 원격근무일에 연장근로를 하려면 미리 부서장의 승인을 받아야 한다." in text
    assert "주 2일 이내 전월 25일까지 부서장" in text and "월 4일 이내 사용 전날 18시까지 팀장" in text
    assert "제7조(근무 장소) 원격근무는 신청서에 적은 장소에서 하여야 하며, 카페 등 불특정 다수가 이용하는 장소에서는 할 수 " \
           "없다." in text
    english = "The first line ends here.\n\nA new paragraph starts."
    assert document_parser.join_wrapped_lines(english) == english


def test_a_korean_page_is_read_again_with_the_korean_model_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[str] = []
    answers = {"korean": {"kor+eng": "입사 후 3개월이 지난 정규직 임직원은 WALLS 신청할 수 있다.",
                          "kor": "입사 후 3개월이 지난 정규직 임직원은 원격근무를 신청할 수 있다."},
               "english": {"kor+eng": "Restores are requested through the desk.", "kor": "garbage 0107"},
               "mixed": {"kor+eng": "WMS 교체 비용은 620 million won for the WMS system upgrade.", "kor": "x"}}
    page = {"name": ""}

    def recognise(_png: bytes, languages: str) -> str:
        calls.append(languages)
        return answers[page["name"]][languages]

    monkeypatch.setattr(ocr, "_recognise", recognise)
    monkeypatch.setattr(ocr, "ocr_languages", lambda: "kor+eng")
    image = Image.new("L", (10, 10), 255)
    for name, expected, languages in (("korean", answers["korean"]["kor"], ["kor+eng", "kor"]),
                                      ("english", answers["english"]["kor+eng"], ["kor+eng"]),
                                      ("mixed", answers["mixed"]["kor+eng"], ["kor+eng"])):
        page["name"], calls[:] = name, []
        assert ocr.read_page(image) == expected and calls == languages, name


def _english_scan(lines: list[str]) -> Image.Image:
    image = Image.new("L", (1400, 120 + 60 * len(lines)), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.truetype("DejaVuSans.ttf", 30) if _has_font("DejaVuSans.ttf") else ImageFont.load_default(30)
    for i, line in enumerate(lines):
        draw.text((60, 60 + 60 * i), line, font=font, fill=0)
    return image


def _has_font(name: str) -> bool:
    try:
        ImageFont.truetype(name, 10)
    except OSError:
        return False
    return True


def test_a_scanned_pdf_is_read_by_ocr_page_by_page_with_progress() -> None:
    pages = [_english_scan(["The backup job runs every night and keeps fourteen daily copies."]),
             _english_scan(["Restores are requested through the service desk portal."])]
    buffer = io.BytesIO()
    pages[0].save(buffer, "PDF", save_all=True, append_images=pages[1:], resolution=200)
    seen: list[tuple[int, int]] = []
    doc = parse_document(buffer.getvalue(), "scan.pdf", progress=lambda done, total: seen.append((done, total)))
    assert doc.ocr and seen == [(1, 2), (2, 2)]
    text = {p: doc.text[s:e].lower() for p, s, e in doc.page_spans}
    # Recognition may differ by a letter between Tesseract builds: the distinctive words land on their page.
    assert "fourteen" in text[1] and "restores" in text[2] and "restores" not in text[1]


def test_a_pdf_with_a_text_layer_is_never_ocrd(monkeypatch: pytest.MonkeyPatch) -> None:
    from ai_llm.internal_rag_agent.formats import ocr
    from tests.internal_rag_agent.conftest import make_pdf

    monkeypatch.setattr(ocr, "read_page", lambda image: pytest.fail("OCR ran on a PDF with text"))
    assert not parse_document(make_pdf(["A page with a real text layer on it."] * 2), "t.pdf").ocr


def test_a_korean_scan_image_is_read_with_the_korean_data() -> None:
    doc = parse_document((DATA / "ko_scan.png").read_bytes(), "scan.png")
    text = doc.text.replace(" ", "")
    assert doc.locations == {1: {"kind": "page", "page": 1}}
    assert "보존기간" in text and "정보보안팀장" in text


def test_a_multi_page_tiff_gives_one_page_per_frame() -> None:
    frames = [_english_scan(["First frame talks about invoices."]), _english_scan(["Second frame covers payroll."])]
    buffer = io.BytesIO()
    frames[0].save(buffer, "TIFF", save_all=True, append_images=frames[1:])
    doc = parse_document(buffer.getvalue(), "pages.tiff")
    assert [p for p, _, _ in doc.page_spans] == [1, 2]
    assert "invoices" in doc.text[doc.page_spans[0][1]:doc.page_spans[0][2]].lower()


def _zip_with(member: str, payload: bytes, extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr(member, payload)
        for name, data in (extra or {}).items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _encryptedmake_word() -> bytes:
    from msoffcrypto.format.ooxml import OOXMLFile

    out = io.BytesIO()
    OOXMLFile(io.BytesIO(make_word())).encrypt("secret", out)
    return out.getvalue()


def _flagged_hwp(tmp_path: Path, flag: int) -> bytes:
    from hwpx.hwp5 import cfb

    data = make_regulation(tmp_path / "rule.hwp").read_bytes()
    streams = cfb.read_all_streams(cfb.CompoundFile(data))

    def flagged(name: str, payload: bytes) -> bytes:
        if name != "FileHeader":
            return payload
        return payload[:36] + struct.pack("<I", struct.unpack("<I", payload[36:40])[0] | flag) + payload[40:]

    return cfb.build_compound_file([(name, flagged(name, payload)) for name, payload in streams])


def _compound(streams: dict[str, bytes]) -> bytes:
    from hwpx.hwp5 import cfb

    return cfb.build_compound_file(list(streams.items()))


def _blank_png() -> bytes:
    buffer = io.BytesIO()
    Image.new("L", (800, 600), 255).save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.parametrize(("name", "make", "code", "phrase"), [
    ("locked.docx", lambda tmp: _encryptedmake_word(), "encrypted", "password"),
    ("locked.hwp", lambda tmp: _flagged_hwp(tmp, 2), "encrypted", "password"),
    ("distribution.hwp", lambda tmp: _flagged_hwp(tmp, 4), "encrypted", "distribution"),
    ("broken.pptx", lambda tmp: b"PK\x03\x04" + bytes(range(256)) * 4, "corrupt", "damaged"),
    ("bomb.docx", lambda tmp: _zip_with("word/document.xml", b"\0" * 50_000_000), "too_large", "zip bomb"),
    ("archive.zip", lambda tmp: _zip_with("notes.txt", b"hello"), "unsupported", "not a document"),
    ("legacy.hwpx", lambda tmp: _zip_with("mimetype", b"application/hwp+zip",
                                          {"META-INF/manifest.xml": b"<odf:encryption-data/>"}),
     "encrypted", "password"),
    ("blank.png", lambda tmp: _blank_png(), "no_text", "no text"),
    ("old.doc", lambda tmp: _compound({"WordDocument": b"\x00" * 4096}), "unsupported", "legacy binary Word"),
    ("unknown.bin", lambda tmp: _compound({"Something": b"\x00" * 4096}), "unsupported", "unknown kind"),
    ("photo.jpg", lambda tmp: b"\xff\xd8\xff\xe0" + bytes(range(256)) * 8, "corrupt", "damaged"),
    ("random.xlsx", lambda tmp: bytes(range(1, 256)) * 20, "corrupt", "not a valid XLSX"),
])
def test_bad_documents_get_a_clear_error(tmp_path: Path, name: str, make: object, code: str, phrase: str) -> None:
    with pytest.raises(DocumentError) as info:
        parse_document(make(tmp_path), name)  # type: ignore[operator]
    assert info.value.code == code
    assert phrase in info.value.reason


def test_the_zip_bound_counts_the_whole_archive(monkeypatch: pytest.MonkeyPatch) -> None:
    parts = {f"ppt/slides/slide{i}.xml": bytes(range(256)) * 40 for i in range(20)}
    data = _zip_with("ppt/presentation.xml", b"<p/>", parts)
    monkeypatch.setattr(file_types, "MAX_UNZIPPED_BYTES", 100_000)
    with pytest.raises(file_types.FileTypeError) as info:
        file_types.sniff(data, ".pptx")
    assert info.value.code == "too_large" and "expands to" in info.value.reason


def test_a_lying_extension_does_not_decide_the_format() -> None:
    doc = parse_document(make_word(), "policy.pdf")  # a Word file named .pdf is read as Word
    assert "Travel policy > Claims" in chunk_labels(doc)
    assert file_types.sniff(make_word(), ".pdf") == file_types.Sniffed(file_types.DOCX, ".docx")


def test_heading_paths_keep_the_nearest_levels() -> None:
    blocks = [structure.Block(f"Level {i}", heading=i) for i in range(1, 6)] + [structure.Block("Body text.")]
    [section] = structure.sections_from_blocks(blocks)
    assert section.location == {"kind": "heading", "heading": "Level 3 > Level 4 > Level 5"}


def test_a_document_without_headings_is_located_under_its_title() -> None:
    bill = "지방공무원법 일부개정법률안\n제안이유\n자녀 연령을 만 8세 이하로 개정하려는 것임.\n제63조(휴직) 휴직할 수 있다.\n".encode()
    assert list(chunk_labels(parse_document(bill, "bill.txt"))) == ["지방공무원법 일부개정법률안",
                                                               "지방공무원법 일부개정법률안 > 제63조(휴직)"]
    sentence_first = b"This note starts with a sentence.\nAnd goes on.\n"
    note = parse_document(sentence_first, "note.txt")
    assert list(chunk_labels(note)) == [""] and split_document(note)[0].location == {}
    assert parse_document("연차 규정".encode(), "title_only.md").text == "연차 규정"


def test_a_guideline_numbered_without_heading_styles_is_located_by_its_numbered_sections() -> None:
    guide = ("연구개발비 집행 지침\n1. 목적\n이 지침은 연구개발비 집행 기준을 정한다.\n2. 적용 범위\n"
             "모든 과제에 적용한다.\n3. 회의비 및 식비\n가. 회의비는 1인당 1회 4만원을 넘을 수 없다.\n"
             "나. 야근 식비는 1인당 1식 12,000원 이내로 한다.\n").encode()
    labels = chunk_labels(parse_document(guide, "guide.txt"))
    assert list(labels) == ["연구개발비 집행 지침 > 1. 목적", "연구개발비 집행 지침 > 2. 적용 범위",
                            "연구개발비 집행 지침 > 3. 회의비 및 식비"]
    assert "12,000원" in labels["연구개발비 집행 지침 > 3. 회의비 및 식비"]
    # A list (items one after another) is not an outline, nor are a statute's items under its articles.
    listing = "장비 목록\n지급 장비는 다음과 같다.\n1. 노트북\n2. 모니터\n3. 키보드\n".encode()
    assert list(chunk_labels(parse_document(listing, "list.txt"))) == ["장비 목록"]
    statute = ("규정\n제3조(대상) 다음 각 호의 사람은 제외한다.\n1. 수습 중인 사람\n내용이다.\n2. 현장 근무자\n"
               "내용이다.\n3. 징계 중인 사람\n내용이다.\n").encode()
    assert list(chunk_labels(parse_document(statute, "rule.txt"))) == ["규정 > 제3조(대상)"]


def test_an_amending_bills_instructions_locate_the_text_under_the_article_they_amend() -> None:
    bill = ("행정절차법 일부개정법률안\n행정절차법 일부를 다음과 같이 개정한다.\n"
            "제41조제4항을 제6항으로 하고, 같은 조에 제4항을 다음과 같이 신설한다.\n"
            "④ 법제처장은 입법예고를 거치지 아니한 법령안을 반려할 수 있다.\n"
            "제43조 중 “20일이상”을 “50일 이상”으로 한다.\n"
            "제46조(행정예고) ① 행정청은 제5조에 따른 신고를 받아야 한다.\n"
            "제5조에 따른 신고는 서면으로 한다.\n").encode()
    labels = list(chunk_labels(parse_document(bill, "amendment.txt")))
    assert labels == ["행정절차법 일부개정법률안", "행정절차법 일부개정법률안 > 제41조",
                      "행정절차법 일부개정법률안 > 제43조", "행정절차법 일부개정법률안 > 제46조(행정예고)"]
    # A sentence that only refers to an article ("제5조에 따른 …") is no instruction and stays where it is.
