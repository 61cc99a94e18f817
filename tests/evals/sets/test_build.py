"""The set builder: a tiny set in every office format renders to the same extracted text on every build, and a
wrong `set.toml` or source is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_llm.evals.sets import SetError, build_set, load_set, resolve_docs
from ai_llm.evals.sets import build as build_module
from ai_llm.evals.sets.markup import escape_paragraph, parse, sheet_cell, sheet_value
from ai_llm.internal_rag_agent.document_parser import parse_document

pytestmark = pytest.mark.unit

DOC = """# Travel rules
The daily meal allowance is 42 euros.
[^] Set by the board in 2025.
- Book trains five days ahead.
  - Through the travel desk.
+ Keep every receipt.
\\- A line that only looks like an item.
```
allowance = 42
```

| Item | Limit |
| Hotel | 120 \\| night |
"""

SLIDES = """=== slide title
# Travel briefing
Second half of 2025
> Read the rules first.

=== slide bullets
# Changes
- Meal allowance rises to 42 euros.
  - From 1 July.

=== slide table widths=3,4 size=12
# Limits
| Item | Limit |
| Hotel | 120 |
"""

SHEET = """=== sheet Limits widths=12,10
| Item | Limit | Code |
| Hotel | 120 | '007 |
| Taxi | 35.5 | |
"""

HANGUL = """# 출장비 지급 기준
## 제1조(목적)
이 기준은 출장비의 지급에 관한 사항을 정한다.

| 구분 | 금액 |
| 식비 | 42,000원 |
"""


def make_set(folder: Path, documents: dict[str, tuple[str, str]]) -> Path:
    """A set folder with one `text/<file>.txt` per document and its set.toml."""
    (folder / "text").mkdir(parents=True)
    entries = []
    for file, (fmt, text) in documents.items():
        source = f"text/{file}.txt"
        (folder / source).write_text(text, encoding="utf-8")
        entries.append(f'[[document]]\nfile = "{file}"\nformat = "{fmt}"\nsource = "{source}"\n')
    (folder / "set.toml").write_text('[set]\nname = "tiny"\n\n' + "\n".join(entries), encoding="utf-8")
    return folder


def extracted(folder: Path) -> dict[str, str]:
    return {p.name: parse_document(p.read_bytes(), p.name).text for p in sorted(folder.iterdir())
            if not p.name.startswith(".")}


def test_a_tiny_set_builds_twice_to_the_same_bytes_and_extracted_text(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {
        "rules.docx": ("docx", DOC), "briefing.pptx": ("pptx", SLIDES), "limits.xlsx": ("xlsx", SHEET),
        "rules.hwpx": ("hwpx", HANGUL), "rules.csv": ("csv", "item,limit\r\nHotel,120\r\n")})
    first = build_set(folder, tmp_path / "a")
    second = build_set(folder, tmp_path / "b")
    assert first.rendered and second.rendered
    a, b = extracted(first.folder), extracted(second.folder)
    assert a == b and set(a) == {"rules.docx", "briefing.pptx", "limits.xlsx", "rules.hwpx", "rules.csv"}
    for name in a:
        assert (first.folder / name).read_bytes() == (second.folder / name).read_bytes(), name
    assert "42 euros" in a["rules.docx"] and "Set by the board in 2025." in a["rules.docx"]
    assert "- A line that only looks like an item." in a["rules.docx"]
    assert "120 | night" in a["rules.docx"]
    assert "Read the rules first." in a["briefing.pptx"] and "From 1 July." in a["briefing.pptx"]
    assert "007" in a["limits.xlsx"] and "35.5" in a["limits.xlsx"]
    assert "42,000원" in a["rules.hwpx"] and "제1조(목적)" in a["rules.hwpx"]
    assert (first.folder / "rules.csv").read_bytes() == b"item,limit\r\nHotel,120\r\n"


def test_an_up_to_date_set_is_not_rendered_again_and_a_changed_source_is(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"rules.docx": ("docx", DOC)})
    out = tmp_path / "out"
    assert build_set(folder, out).rendered
    assert not build_set(folder, out).rendered
    (folder / "text" / "rules.docx.txt").write_text(DOC + "A new paragraph.\n", encoding="utf-8")
    assert build_set(folder, out).rendered
    assert "A new paragraph." in extracted(out)["rules.docx"]


def test_the_cache_key_covers_every_module_that_renders() -> None:
    """A change to any module the renderers use re-renders the sets: every module of the package except the
    checker and the command line is in the cache key."""
    package = Path(build_module.__file__).parent
    modules = {p.name for p in package.glob("*.py")} - {"__init__.py", "check.py", "cli.py"}
    assert modules == set(build_module.RENDERING_MODULES)


def test_a_set_toml_naming_an_unknown_format_is_a_clear_error(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"rules.odt": ("odt", DOC)})
    with pytest.raises(SetError, match=r"document 1 \(rules.odt\): unknown format 'odt'; known: docx"):
        load_set(folder)


@pytest.mark.parametrize(("toml", "message"), [
    ('[[document]]\nfile = "a.docx"\nformat = "docx"\nsource = "text/missing.txt"\n', "does not exist"),
    ('[[document]]\nfile = "../a.docx"\nformat = "docx"\nsource = "text/a.txt"\n', "plain file name"),
    ('[[document]]\nfile = "a.docx"\nformat = "docx"\nsource = "../outside.txt"\n', "outside the set folder"),
    ('[[document]]\nfile = "a.docx"\nformat = "docx"\nsource = "text/a.txt"\ncolour = "red"\n', "unknown keys"),
    ('[set]\nname = "x"\n', "no \\[\\[document\\]\\] entries"),
    ('[set]\nanswers = "free"\n[[document]]\nfile = "a.docx"\nformat = "docx"\nsource = "text/a.txt"\n',
     'answers must be "spans" or "written"'),
])
def test_wrong_set_toml_entries_are_named(tmp_path: Path, toml: str, message: str) -> None:
    folder = tmp_path / "tiny"
    (folder / "text").mkdir(parents=True)
    (folder / "text" / "a.txt").write_text("A paragraph.\n", encoding="utf-8")
    (tmp_path / "outside.txt").write_text("x\n", encoding="utf-8")
    (folder / "set.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(SetError, match=message):
        load_set(folder)


def test_a_source_the_format_cannot_hold_is_an_error_naming_the_file(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"deck.pptx": ("pptx", "# Not a slide\n")})
    with pytest.raises(SetError, match=r"deck.pptx.*=== slide"):
        build_set(folder, tmp_path / "out")
    folder = make_set(tmp_path / "other", {"code.docx": ("docx", "```\nnever closed\n")})
    with pytest.raises(SetError, match="code block never closed"):
        build_set(folder, tmp_path / "out2")


def test_markup_escapes_round_trip() -> None:
    for text in ("# not a heading", "- not an item", "| not a row |", "::gap", "plain"):
        (part,) = parse(escape_paragraph(text) + "\n")
        assert [(b.kind, b.text) for b in part.blocks] == [("p", text)]
    for value in (None, 12, 3.5, "3.5", "'quoted", "text", "007"):
        assert sheet_value(sheet_cell(value)) == value
        assert type(sheet_value(sheet_cell(value))) is type(value)


def test_eval_docs_path_of_a_set_renders_it_into_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "default_cache", lambda: tmp_path / "cache")
    folder = make_set(tmp_path / "tiny", {"rules.docx": ("docx", DOC)})
    docs = resolve_docs(folder / "docs")  # the docs/ folder a set used to commit
    assert docs == tmp_path / "cache" / "tiny" and (docs / "rules.docx").is_file()
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "a.txt").write_text("x", encoding="utf-8")
    assert resolve_docs(plain) == plain  # a folder of documents is used as it is


def test_every_committed_set_toml_is_valid() -> None:
    for folder in build_module.find_sets():
        spec = load_set(folder)
        assert spec.documents, folder


def test_a_scan_builds_to_the_same_image_and_is_read_back(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"notice.png": ("scan-png", "# Travel notice\nThe meal allowance is 42 "
                                                                     "euros a day.\n")})
    toml = folder / "set.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '[document.options]\nregular = "LiberationSerif-Regular"\n'
                    'bold = "LiberationSerif-Bold"\nsize_pt = 14\nseed = 7\nposterize = 4\nrescan_dpi = 150\n', encoding="utf-8")
    first, second = build_set(folder, tmp_path / "a"), build_set(folder, tmp_path / "b")
    image = (first.folder / "notice.png").read_bytes()
    assert image == (second.folder / "notice.png").read_bytes()
    assert "allowance" in parse_document(image, "notice.png").text


STATUTE = """# 출장 여비 규정
::center 제정 2025. 3. 1.
## 제1장 총칙
제1조(목적) 이 규정은 임직원의 출장 여비 지급에 관한 사항을 정한다.
① 여비는 운임, 일비, 숙박비 및 식비로 구분한다.
1. 운임은 실비로 지급한다.
※ 세부 기준은 별표 1에 따른다.

| 구분 | 일비 | 숙박비 |
| 임원 | 50,000원 | 150,000원 |
| 직원 | 30,000원 | 100,000원 |
"""


def test_a_statute_scan_and_the_page_options_render_the_same_bytes_every_time(tmp_path: Path) -> None:
    from io import BytesIO

    from PIL import Image

    folder = make_set(tmp_path / "tiny", {"rules.pdf": ("scan-pdf", STATUTE), "rules.png": ("scan-png", STATUTE)})
    toml = folder / "set.toml"
    pdf_options = ('layout = "statute"\nregular = "NanumMyeongjo"\nbold = "NanumMyeongjoBold"\n'
                   'small = "NanumGothic"\ntable = "NanumGothic"\ntable_bold = "NanumGothicBold"\n'
                   'keep_with_next = true\nheader = "사내 규정집"\nseed = 3\n')
    png_options = ('layout = "statute"\nregular = "NanumMyeongjo"\nbold = "NanumMyeongjoBold"\nseed = 5\n'
                   'photocopy = true\nrescan_dpi = 150\nlevels = 16\n')
    text = toml.read_text(encoding="utf-8")
    text = text.replace('source = "text/rules.png.txt"\n', f'source = "text/rules.png.txt"\n[document.options]\n'
                        f'{png_options}')
    text = text.replace('source = "text/rules.pdf.txt"\n', f'source = "text/rules.pdf.txt"\n[document.options]\n'
                        f'{pdf_options}')
    toml.write_text(text, encoding="utf-8")
    first, second = build_set(folder, tmp_path / "a"), build_set(folder, tmp_path / "b")
    for name in ("rules.pdf", "rules.png"):
        assert (first.folder / name).read_bytes() == (second.folder / name).read_bytes()
    pdf = (first.folder / "rules.pdf").read_bytes()
    assert pdf.startswith(b"%PDF") and "출장" not in pdf.decode("latin-1")
    page = Image.open(BytesIO((first.folder / "rules.png").read_bytes()))
    assert page.size == (int(8.27 * 150), int(11.69 * 150))
    assert {value for _, value in page.getcolors()} <= set(range(0, 256, 17))


def test_a_statute_scan_names_what_it_cannot_draw(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"rules.pdf": ("scan-pdf", "# 규정\n- 항목\n")})
    toml = folder / "set.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '[document.options]\nlayout = "statute"\n'
                    'regular = "NanumMyeongjo"\nbold = "NanumMyeongjoBold"\n', encoding="utf-8")
    with pytest.raises(SetError, match="rules.pdf.*not 'item'"):
        build_set(folder, tmp_path / "out")


NOTICE = """# 동절기 안전관리 계획
::field 수신: 전 현장소장
::field 시행일자: 2025. 11. 10.
## 1. 목적
가. 화재와 질식 사고를 예방한다.
1) 갈탄을 쓰지 않는다.
::flush 붙임  점검표 1부.  끝.
::right 안전보건팀장
::page
## [붙임] 점검표

| 번호 | 점검 항목 | 확인 |
| 1 | 소화기 비치 |  |
"""


def test_a_notice_scan_a_ruled_header_and_grouped_sheet_numbers_render_the_same_bytes_every_time(
        tmp_path: Path) -> None:
    from io import BytesIO

    from openpyxl import load_workbook
    from pypdf import PdfReader

    folder = make_set(tmp_path / "tiny", {
        "notice.pdf": ("scan-pdf", NOTICE), "rules.pdf": ("scan-pdf", STATUTE),
        "counts.xlsx": ("xlsx", "=== sheet Counts thousands=yes\n| Centre | Parcels |\n| Icheon | 142300 |\n")})
    toml = folder / "set.toml"
    notice = ('layout = "notice"\nregular = "NanumMyeongjo"\nbold = "NanumMyeongjoBold"\nsmall = "NanumGothic"\n'
              'table = "NanumGothic"\ntable_bold = "NanumGothicBold"\nheader = "안전보건팀"\n'
              'header_right = "문서번호 2025-214"\nfooter_left = "사내 배포용"\nseed = 4\n')
    rules = ('layout = "statute"\nregular = "NanumMyeongjo"\nbold = "NanumMyeongjoBold"\nheader = "사내 규정집"\n'
             'header_rule_under = true\nheader_rule_ink = 110\nheader_rule_width = 2\nkeep_with_next = "table"\n'
             'seed = 6\n')
    text = toml.read_text(encoding="utf-8")
    for name, options in (("notice.pdf", notice), ("rules.pdf", rules)):
        text = text.replace(f'source = "text/{name}.txt"\n', f'source = "text/{name}.txt"\n[document.options]\n{options}')
    toml.write_text(text, encoding="utf-8")
    first, second = build_set(folder, tmp_path / "a"), build_set(folder, tmp_path / "b")
    for name in ("notice.pdf", "rules.pdf", "counts.xlsx"):
        assert (first.folder / name).read_bytes() == (second.folder / name).read_bytes(), name
    assert len(PdfReader(BytesIO((first.folder / "notice.pdf").read_bytes())).pages) == 2  # `::page` breaks
    cell = load_workbook(first.folder / "counts.xlsx")["Counts"]["B2"]
    assert cell.value == 142300 and cell.number_format == "#,##0"


def test_a_notice_scan_names_what_it_cannot_draw(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"notice.pdf": ("scan-pdf", "# 공문\n::subtitle 부제\n")})
    toml = folder / "set.toml"
    toml.write_text(toml.read_text(encoding="utf-8") + '[document.options]\nlayout = "notice"\n'
                    'regular = "NanumMyeongjo"\nbold = "NanumMyeongjoBold"\n', encoding="utf-8")
    with pytest.raises(SetError, match="notice.pdf.*not '::subtitle'"):
        build_set(folder, tmp_path / "out")
