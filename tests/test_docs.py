"""The docs and docstrings are a reference of what is true now: no words about how the project was worked on
("stop 28", "this stop", "the seed design", an issue number), and the README stays a short first page."""

from __future__ import annotations

import io
import re
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: Words that tell the project's history instead of what the code does; history goes in CHANGELOG.md by date.
PROCESS_WORDS = re.compile(r"\bstop \d+\b|\bstops \d+[–-]\d+\b|\b(this|previous|last|next) stop\b|\bseed design\b"
                           r"|\ba hack of the hub\b|\b(see|per|reported in|in|from|after|for) issues? #?\d+\b|(^|[#(\[]\s*)issues? #?\d+\b"
                           r"|\b(this|last|previous) session's work\b", re.I | re.M)


def _docs() -> list[Path]:
    found = [ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "benchmarks" / "README.md",
             *(ROOT / "docs").rglob("*.md"), *(ROOT / "ai_llm").rglob("README.md"), *(ROOT / "backend").rglob("*.md")]
    return sorted(p for p in found if p.is_file())


def _python_text(path: Path) -> str:
    """A module's comments and string literals (its docstrings among them): the prose a reader meets in code."""
    out: list[str] = []
    for token in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if token.type in (tokenize.COMMENT, tokenize.STRING):
            out.append(token.string)
    return "\n".join(out)


def test_no_doc_or_docstring_tells_how_the_project_was_worked_on() -> None:
    hits = [f"{p.relative_to(ROOT)}: {m.group(0)!r}" for p in _docs()
            for m in PROCESS_WORDS.finditer(p.read_text(encoding="utf-8"))]
    sources = sorted(p for folder in ("ai_llm", "backend", "tests") for p in (ROOT / folder).rglob("*.py")
                     if p != Path(__file__).resolve())
    hits += [f"{p.relative_to(ROOT)}: {m.group(0)!r}" for p in sources for m in PROCESS_WORDS.finditer(_python_text(p))]
    assert hits == []


def test_the_words_are_caught() -> None:
    for text in ("as measured in stop 28", "This stop adds", "a constant from the seed design", "see issue #34",
                 "reported in issue 33", "x = [  # issue #13: cosine"):
        assert PROCESS_WORDS.search(text), text
    for text in ("the launcher stops 2 agents", "stop_child(child)", "a session cookie", "`.stop()`",
                 'a query such as "issue 12"'):
        assert not PROCESS_WORDS.search(text), text


def test_the_readme_is_a_short_first_page_and_the_benchmarks_one_table_each() -> None:
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 200
    assert len((ROOT / "benchmarks" / "README.md").read_text(encoding="utf-8").splitlines()) <= 300
