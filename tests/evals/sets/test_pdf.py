"""Text PDFs (`text-pdf`): a tiny English and Korean set lays out to the same bytes on every build, reads back
with its text on the right pages, and a wrong option is a clear error."""

from __future__ import annotations

from pathlib import Path

import pytest
from pypdf import PdfReader

from ai_llm.evals.sets import SetError, build_set
from ai_llm.evals.sets.pdf import segments
from ai_llm.internal_rag_agent.document_parser import parse_document
from tests.evals.sets.test_build import make_set

pytestmark = pytest.mark.unit

GUIDE = """# Travel rules
The daily meal allowance is **42 euros**; see `allowance()` and *the board's note*.
::note Note: receipts older than \\*90 days\\* are refused.
- Book trains five days ahead.
+ Keep every receipt.
+ Send them monthly.
```
allowance = 42
```

| Item | Limit |
| Hotel | 120 a night |
::page
## Second page
The hotel limit is 120 euros a night.
"""

MANUAL = """# 출장비 지급 기준
## 제1조(목적)
이 기준은 출장비의 지급에 관한 사항을 정한다.
::term 식비
하루 식비는 42,000원이다.
- 영수증을 제출한다.

| 구분 | 금액 |
| 식비 | 42,000원 |
"""

OPTIONS = {
    "guide.pdf": 'title = "Travel Guide"\nsubtitle = "Example"\nfooter = "{title} — page {page}"\n'
                 "inline_marks = true\n",
    "manual.pdf": 'layout = "manual"\ntitle = "출장 규정"\nfont = "NanumGothic"\nbold = "NanumGothicBold"\n'
                  'size = 10.5\nfooter_left = "사내 규정"\nfooter_right = "Page {page}"\n',
}


def with_options(folder: Path, options: dict[str, str]) -> None:
    """Give each document of the set its `[document.options]` table."""
    toml = folder / "set.toml"
    text = toml.read_text(encoding="utf-8")
    for file, table in options.items():
        entry = f'file = "{file}"\n'
        start = text.index(entry)
        end = text.find("[[document]]", start)
        end = len(text) if end < 0 else end
        text = text[:end] + "[document.options]\n" + table + text[end:]
    toml.write_text(text, encoding="utf-8")


def test_a_tiny_text_pdf_set_builds_to_the_same_bytes_and_reads_back_by_page(tmp_path: Path) -> None:
    folder = make_set(tmp_path / "tiny", {"guide.pdf": ("text-pdf", GUIDE), "manual.pdf": ("text-pdf", MANUAL)})
    with_options(folder, OPTIONS)
    first, second = build_set(folder, tmp_path / "a"), build_set(folder, tmp_path / "b")
    for name in ("guide.pdf", "manual.pdf"):
        assert (first.folder / name).read_bytes() == (second.folder / name).read_bytes(), name
    guide = parse_document((first.folder / "guide.pdf").read_bytes(), "guide.pdf")
    assert guide.page_count == 2
    page_one = guide.text[guide.page_spans[0][1]:guide.page_spans[0][2]]
    page_two = guide.text[guide.page_spans[1][1]:guide.page_spans[1][2]]
    for expected in ("42 euros; see allowance() and the board's note",
                     "receipts older than *90 days* are refused", "2. Send them monthly", "allowance = 42",
                     "Hotel"):
        assert expected in page_one, expected
    assert "120 euros a night" in page_two and "Hotel" not in page_two
    footers = [page.extract_text() for page in PdfReader(first.folder / "guide.pdf").pages]
    assert [text.startswith(f"Travel Guide — page {n}") for n, text in enumerate(footers, 1)] == [True, True]
    manual = parse_document((first.folder / "manual.pdf").read_bytes(), "manual.pdf")
    assert manual.page_count == 1
    for expected in ("출장비 지급 기준", "하루 식비는 42,000원이다", "영수증을 제출한다", "42,000원"):
        assert expected in manual.text, expected
    footer = PdfReader(first.folder / "manual.pdf").pages[0].extract_text().split()[-4:]
    assert footer == ["사내", "규정", "Page", "1"]


@pytest.mark.parametrize(("options", "message"), [
    ('colour = "red"\n', r"unknown text-pdf options \['colour'\]"),
    ('layout = "poster"\n', "unknown text-pdf layout 'poster'"),
    ('page = "a3"\n', "unknown page size 'a3'"),
    ('font = "Comic"\n', "unknown font 'Comic'"),
    ('footer = "{chapter}"\n', r"`footer` may name only \{page\} and \{title\}"),
])
def test_a_wrong_text_pdf_option_is_a_clear_error(tmp_path: Path, options: str, message: str) -> None:
    folder = make_set(tmp_path / "tiny", {"guide.pdf": ("text-pdf", "A paragraph.\n")})
    with_options(folder, {"guide.pdf": options})
    with pytest.raises(SetError, match=r"guide\.pdf.*" + message):
        build_set(folder, tmp_path / "out")


def test_inline_marks_are_read_with_their_escapes() -> None:
    runs = [("a*b", False, False, False), ("bold ", True, False, False), ("x`*", True, False, True),
            ("both", True, True, False), ("back\\slash", False, False, False)]
    assert segments("a\\*b**bold `x\\`*`*both***back\\\\slash") == runs
    with pytest.raises(SetError, match="never closed"):
        segments("**open")
