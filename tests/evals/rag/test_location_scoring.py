"""How `hub eval rag` scores documents without pages: a cited location matches the expected one."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_llm.evals.rag.evaluation import document_files, evidence_shown, location_hit


@pytest.mark.parametrize(("expected", "locations", "pages", "hit"), [
    ("슬라이드 3", [{"kind": "slide", "slide": 3}], [], True),
    ("slide 2", [{"kind": "slide", "slide": 3}], [], False),
    ("예산!34", [{"kind": "sheet", "sheet": "예산", "rows": "22-41"}], [], True),
    ("예산!44", [{"kind": "sheet", "sheet": "예산", "rows": "22-41"}], [], False),
    ("요약!1", [{"kind": "sheet", "sheet": "예산", "rows": "1"}], [], False),
    ("Changes!10-12", [{"kind": "sheet", "sheet": "changes", "rows": "12-30"}], [], True),
    ("제2조", [{"kind": "heading", "heading": "제2장 여비 > 제2조(일비)"}], [], True),
    ("제 3 조", [{"kind": "heading", "heading": "제2장 여비 > 제2조(일비)"}], [], False),
    ("Configuration > Builtin values", [{"kind": "heading", "heading": "Configuration > Builtin Values"}], [], True),
    ("p.4", [], [4], True),
    ("p.4", [], [5], False),
])
def test_location_hit(expected: str, locations: list[dict], pages: list[int], hit: bool) -> None:
    assert location_hit(expected, locations, pages) is hit


def test_a_folder_holds_every_supported_format_and_nothing_else(tmp_path: Path) -> None:
    for name in ("a.pdf", "b.hwpx", "c.HWP", "d.pptx", "e.xlsx", "f.csv", "g.html", "h.png", "i.tiff", "build.py",
                 "notes.json"):
        (tmp_path / name).write_bytes(b"x")
    assert [p.name for p in document_files(tmp_path)] == ["a.pdf", "b.hwpx", "c.HWP", "d.pptx", "e.xlsx", "f.csv",
                                                          "g.html", "h.png", "i.tiff"]


def test_a_folders_readme_describes_the_set_and_is_not_one_of_its_documents(tmp_path: Path) -> None:
    for name in ("README.md", "readme.txt", "guide.md", "notes.txt", "a.pdf"):
        (tmp_path / name).write_bytes(b"x")
    assert [p.name for p in document_files(tmp_path)] == ["a.pdf", "guide.md", "notes.txt"]


@pytest.mark.parametrize(("evidence", "reply", "shown"), [
    # Read as rendered: a code span's backticks, bold markers and the quote's `>` are not what a person reads.
    ("if the blueprint does not have a url_prefix, it is not possible",
     "> However, if the blueprint does not have a `url_prefix`, it is **not** possible.", True),
    ("the full fix requires urllib3 2.7.0+", "> Note the full fix requires\n> urllib3 2.7.0+.", True),
    ("1. 제1항에 따른 입법예고절차를 거치지 아니한 법령안", "> 1. 제1항에 따른 입법예고절차를\n> 거치지 아니한 법령안", True),
    # A table row's evidence is its cells; the reply shows the row as `header: value; …`.
    ("외부 창고 임차료(백만원) 180 260 340", "> 구분: 외부 창고 임차료(백만원); 2022년: 180; 2023년: 260; 2024년: 340", True),
    ("외부 창고 임차료(백만원) 180 260 340", "> 구분: 외부 창고 임차료(백만원); 2022년: 180; 2023년: 260", False),
    ("Hotel 80 dollars a night", "> Item: Hotel; Limit: 80 dollars a night", True),
    # A sheet shows thousands separators its writer's raw cell value lacks; a different number is still not it.
    ("대구·경북 41260 1840000", "> 권역: 대구·경북; 실적: 41,260; 예산: 1,840,000", True),
    ("대구·경북 41260 1840000", "> 권역: 대구·경북; 실적: 41,260; 예산: 1,840,001", False),
    # A fragment of the sentence, another case or another number is not the sentence shown.
    ("if the blueprint does not have a url_prefix", "> if the blueprint has a `url_prefix`", False),
    ("The default is 88.", "> the default is 88.", False),
    ("50일 이상으로 연장함", "> 20일 이상으로 연장함", False),
])
def test_evidence_is_looked_for_in_the_reply_as_rendered(evidence: str, reply: str, shown: bool) -> None:
    assert evidence_shown(evidence, reply) is shown
