"""The QA check: a tiny set built by the builder (a Word file and a two-page scan, read back by the hub's
parser and OCR) passes with correct items, and each kind of wrong item is reported by its id; `hub eval
check-sets` reports per set and exits 1 on a problem."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import typer
from typer.testing import CliRunner

from ai_llm.evals.sets import build as build_module
from ai_llm.evals.sets import build_set
from ai_llm.evals.sets import cli as sets_cli
from ai_llm.evals.sets.check import ReadDocument, check_items, check_qa, find_qa_sets, read_documents, squash

pytestmark = pytest.mark.unit

RULES = """# Travel rules
The daily meal allowance is 42 euros.
Book trains through the `travel desk` five days ahead.

| Item | Limit |
| Hotel | 120 euros |
| Taxi | 35 euros |
"""

# Two small pages: the second starts at "Staff cards".
NOTICE = """# Parking notice
The garage closes at 11 pm on weekdays.
Visitors park on level two.
Bicycles stay in the yard by the gate.
::gap 3
Staff cards open the east door after 8 pm.
The night guard answers on extension 4410.
"""

SCAN_OPTIONS = """[document.options]
regular = "LiberationSerif-Regular"
bold = "LiberationSerif-Bold"
page = [5.0, 2.2]
margin = [0.4, 0.3]
size_pt = 13
dpi = 150
seed = 7
"""


def write_set(folder: Path, documents: dict[str, tuple[str, str, str]]) -> Path:
    """A set folder: `text/<file>.txt` per document (format, text, options) and its set.toml."""
    (folder / "text").mkdir(parents=True)
    entries = []
    for file, (fmt, text, options) in documents.items():
        (folder / "text" / f"{file}.txt").write_text(text, encoding="utf-8")
        entries.append(f'[[document]]\nfile = "{file}"\nformat = "{fmt}"\nsource = "text/{file}.txt"\n'
                       f'{options}')
    (folder / "set.toml").write_text(f'[set]\nname = "{folder.name}"\n\n' + "\n".join(entries),
                                     encoding="utf-8")
    return folder


def item(id_: str, file: str | None, answer: str | None, evidence: str | None, pages: list[int] | None = None,
         kind: str = "en", **more: Any) -> dict[str, Any]:
    return {"id": id_, "file": file, "question": f"Question {id_}?", "answer": answer, "pages": pages or [],
            "location": None, "evidence": evidence, "kind": kind, "lang": "en", **more}


ITEMS = [
    item("t-1", "rules.docx", "42 euros", "The daily meal allowance is 42 euros."),
    item("t-2", "rules.docx", "travel desk", "Book trains through the travel desk five days ahead."),  # `…`
    item("t-3", "rules.docx", "120 euros", "Hotel 120 euros"),  # a table row, as its cells
    item("t-4", "rules.docx", "Taxi", "35 euros"),  # the answer is another cell of the evidence's row
    item("t-5", "notice.pdf", "11 pm", "The garage closes at 11 pm on weekdays.", [1]),
    item("t-6", "notice.pdf", "extension 4410", "The night guard answers on extension 4410.", [2]),
    item("t-7", "notice.pdf", None, None, kind="near_miss", proxies=["valet", "ark", "guar"]),  # inside words
    item("t-8", "notice.pdf", "level two", "Visitors park on level two. Bicycles stay in the yard by the gate.",
         [1, 2]),  # over the page break
]


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("check")
    folder = write_set(root / "tiny", {"rules.docx": ("docx", RULES, ""),
                                       "notice.pdf": ("scan-pdf", NOTICE, SCAN_OPTIONS)})
    return build_set(folder, root / "out").folder


@pytest.fixture(scope="module")
def documents(built: Path) -> dict[str, ReadDocument | str]:
    read = read_documents(built, ["rules.docx", "notice.pdf"])
    assert all(isinstance(doc, ReadDocument) for doc in read.values()), read
    return read


def with_changed(n: int, **changes: Any) -> list[dict[str, Any]]:
    """ITEMS with item `n` (0-based) changed."""
    return [{**it, **changes} if i == n else it for i, it in enumerate(ITEMS)]


def test_correct_items_pass_against_what_the_hub_reads(built: Path, tmp_path: Path) -> None:
    qa = tmp_path / "qa.jsonl"
    qa.write_text("".join(json.dumps(it) + "\n" for it in ITEMS), encoding="utf-8")
    assert check_qa(qa, built) == []


def test_squash_ignores_case_space_code_marks_and_thousands_separators() -> None:
    assert squash("The  `Fee` is\n41,260 원") == squash("the fee is 41260원") == "thefeeis41260원"


@pytest.mark.parametrize(("n", "changes", "expected"), [
    (0, {"answer": "43 euros"}, "t-1: the answer '43 euros' is not in the evidence"),
    (0, {"evidence": "The daily meal allowance is 43 euros.", "answer": "43 euros"},
     "t-1: the evidence is not in rules.docx"),
    (3, {"evidence": "36 euros", "answer": "36 euros"}, "t-4: the evidence is not in rules.docx"),
    (5, {"pages": [1]}, "t-6: the evidence is not on page [1] of notice.pdf (it is on page [2])"),
    (7, {"pages": [1]}, "t-8: the evidence is not on page [1] of notice.pdf"),
    (4, {"pages": [3]}, "t-5: notice.pdf has no page [3]"),
    (0, {"pages": [1]}, "t-1: pages [1] given, but rules.docx has no pages"),
    (4, {"evidence": "The garage closes at 10 pm on Sundays and holidays.", "answer": "10 pm"},
     "t-5: the evidence is not in what OCR read of notice.pdf"),
    (6, {"proxies": ["valet", "East Door"]}, "t-7: the near miss's proxy 'East Door' occurs in notice.pdf"),
    (6, {"answer": "42 euros"}, "t-7: a near miss has answer '42 euros'"),
    (1, {"id": "t-1"}, "t-1: the id is used 2 times"),
    (0, {"file": "rules_v2.docx"}, "t-1: rules_v2.docx is not in the documents folder"),
    (0, {"kind": "english"}, "t-1: unknown kind 'english'"),
    (0, {"kind": "ko_about_en"}, "t-1: kind ko_about_en is asked in ko, but lang is en"),
    (0, {"lang": "de"}, "t-1: unknown lang 'de'"),
    (0, {"proxy": ["x"]}, "t-1: unknown keys ['proxy']"),
])
def test_each_wrong_item_is_reported_by_its_id(documents: dict[str, ReadDocument | str], n: int,
                                               changes: dict[str, Any], expected: str) -> None:
    problems = check_items(with_changed(n, **changes), documents)
    assert len(problems) >= 1 and problems[0].startswith(expected), problems


def test_a_missing_document_is_reported_for_each_item_on_it(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    qa = tmp_path / "qa.jsonl"
    qa.write_text(json.dumps(ITEMS[0]) + "\n", encoding="utf-8")
    assert check_qa(qa, tmp_path / "docs") == [f"t-1: rules.docx is not in {tmp_path / 'docs'}"]


def test_written_replies_are_not_held_to_the_evidence(documents: dict[str, ReadDocument | str]) -> None:
    reply = with_changed(0, answer="Yes, 42 euros a day")
    assert check_items(reply, documents)
    assert check_items(reply, documents, answer_spans=False) == []


def test_a_parallel_item_may_answer_in_the_questions_language(documents: dict[str, ReadDocument | str]) -> None:
    """A Korean question about an English document answered in Korean: the answer is a translation."""
    translated = with_changed(0, kind="parallel", lang="ko", answer="42유로")
    assert check_items(translated, documents) == []
    assert check_items(with_changed(0, kind="parallel", answer="43 euros"), documents)  # same language: a span


def test_a_sets_qa_file_is_found_beside_or_inside_its_folder(tmp_path: Path) -> None:
    for name in ("beside", "inside", "alone"):
        (tmp_path / name).mkdir()
    (tmp_path / "rag_beside.jsonl").touch()
    (tmp_path / "inside" / "rag_inside.jsonl").touch()
    (tmp_path / "rag_nofolder.jsonl").touch()
    assert find_qa_sets(tmp_path) == {"beside": tmp_path / "rag_beside.jsonl",
                                      "inside": tmp_path / "inside" / "rag_inside.jsonl"}


def test_check_sets_reports_each_set_and_exits_1_on_a_problem(tmp_path: Path,
                                                              monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build_module, "default_cache", lambda: tmp_path / "cache")
    root = tmp_path / "sets"
    write_set(root / "tiny", {"rules.docx": ("docx", RULES, "")})
    qa = root / "rag_tiny.jsonl"
    qa.write_text("".join(json.dumps(it) + "\n" for it in ITEMS[:4]), encoding="utf-8")
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    sets_cli.register(app, eval_app, typer.Typer(), typer.Typer())
    args = ["eval", "check-sets", "--root", str(root), "--json"]

    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    docs = str(tmp_path / "cache" / "tiny")
    assert json.loads(result.stdout) == {"sets": [{"set": "tiny", "qa": str(qa), "docs": docs, "items": 4,
                                                   "problems": []}], "problems": 0}

    qa.write_text(json.dumps({**ITEMS[0], "answer": "9 euros"}) + "\n", encoding="utf-8")
    result = CliRunner().invoke(app, [*args, "--set", "tiny"])
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    assert report["problems"] == 1
    assert report["sets"][0]["problems"][0].startswith("t-1: the answer '9 euros'")
    assert CliRunner().invoke(app, [*args, "--set", "other"]).exit_code == 2

    # A set whose answers are written replies holds only their evidence to the documents.
    qa.write_text(json.dumps({**ITEMS[0], "answer": "Yes, 42 euros a day"}) + "\n", encoding="utf-8")
    assert CliRunner().invoke(app, args).exit_code == 1
    toml = root / "tiny" / "set.toml"
    toml.write_text(toml.read_text(encoding="utf-8").replace("[set]\n", '[set]\nanswers = "written"\n'),
                    encoding="utf-8")
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0 and json.loads(result.stdout)["problems"] == 0, result.output
