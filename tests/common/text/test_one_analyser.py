"""One text analyser: indexing, search and the search gateway's same-request check read Korean with one Kiwi,
and every stop-word and neutral-word list is a data file of `ai_llm/common/text/data/`."""

from __future__ import annotations

import ast
import re
from pathlib import Path
from typing import Any

import kiwipiepy
import pytest

from ai_llm.common import text
from ai_llm.common.text import analysis
from ai_llm.search_gateway import query_match

ROOT = Path(__file__).resolve().parents[3]


class _CountingKiwi:
    """Stands in for `kiwipiepy.Kiwi`: records each construction and each call."""

    built: list[_CountingKiwi] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.config = (args, kwargs)
        self.calls: list[tuple[str, dict[str, Any]]] = []
        _CountingKiwi.built.append(self)

    def tokenize(self, text: str, **options: Any) -> list[Any]:
        self.calls.append((text, options))
        return []


def test_the_gateway_and_indexing_read_korean_with_the_one_kiwi(monkeypatch: pytest.MonkeyPatch) -> None:
    _CountingKiwi.built = []
    monkeypatch.setattr(kiwipiepy, "Kiwi", _CountingKiwi)
    monkeypatch.setattr(kiwipiepy, "MorphemeSet", lambda kiwi, forms: ("blocklist", kiwi, tuple(forms)))
    monkeypatch.setattr(analysis, "_KIWI", None)
    query_match._stock_price_blocklist.cache_clear()
    try:
        analysis.analyze("플랫폼에서 문서를 찾는다")
        query_match.request_terms("하나뿐인 분석기 시험 질문")
        query_match.request_terms("하나뿐인 분석기 종목 주가")
        query_match.warm_up()
    finally:
        query_match._stock_price_blocklist.cache_clear()
        query_match.request_terms.cache_clear()
    assert len(_CountingKiwi.built) == 1
    kiwi = _CountingKiwi.built[0]
    assert kiwi is analysis.kiwi() and kiwi.config == ((), {})  # Kiwi's defaults: one configuration
    texts = [t for t, _ in kiwi.calls]
    assert "플랫폼에서 문서를 찾는다" in texts and "하나뿐인 분석기 시험 질문" in texts
    # The gateway asks for the typo model per call, and reads 주가 as one noun (a blocklist on the same Kiwi).
    options = dict(kiwi.calls)
    assert options["하나뿐인 분석기 시험 질문"] == {"typos": "basic", "blocklist": None}
    assert options["하나뿐인 분석기 종목 주가"]["blocklist"] == ("blocklist", kiwi, ("주/NNG",))


def test_the_gateway_reads_stock_price_as_one_noun_but_a_week_stays_a_week() -> None:
    """Kiwi alone reads 주가 at the end of a query as 주 + the particle 가; the gateway's blocklist on the shared
    Kiwi gives the noun, without turning the week of "이번 주가 지나면" into a stock price."""
    assert [t.key for t in query_match.request_terms("엔비디아 주가").plain] == ["엔비디아", "주가"]
    assert query_match.same_request("엔비디아 주가", "NVIDIA stock price")
    assert "주가" not in [t.key for t in query_match.request_terms("이번 주가 지나면 날씨").plain]


def test_kiwi_is_constructed_in_one_place() -> None:
    found = [f"{p.relative_to(ROOT).as_posix()}" for p in sorted((ROOT / "ai_llm").rglob("*.py"))
             for line in p.read_text(encoding="utf-8").splitlines() if re.search(r"\bKiwi\(", line)]
    assert found == ["ai_llm/common/text/analysis.py"]


def _literal_word_lists(path: Path) -> list[str]:
    """Names of stop-word or neutral-word lists `path` spells out in code (a string of several words)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Assign):
            continue
        names = [t.id for t in node.targets if isinstance(t, ast.Name) and re.search(r"(STOPWORDS|NEUTRAL)$", t.id)]
        words = [c for c in ast.walk(node.value) if isinstance(c, ast.Constant) and isinstance(c.value, str)
                 and len(c.value.split()) >= 3]
        if names and words:
            found.extend(f"{path.relative_to(ROOT)}: {n}" for n in names)
    return found


def test_stop_words_have_one_source_the_data_files() -> None:
    assert [hit for p in sorted((ROOT / "ai_llm").rglob("*.py")) for hit in _literal_word_lists(p)] == []
    assert "kindly" in text.NEUTRAL_ENGLISH and "from" not in text.NEUTRAL_ENGLISH
    assert "what" in text.ENGLISH_STOPWORDS and "what" not in text.NEUTRAL_ENGLISH
    assert "알리/V" in text.NEUTRAL_KOREAN and "알리" in text.KOREAN_QUERY_STOPWORDS
    assert text.TITLE_STOPWORDS >= text.ENGLISH_STOPWORDS | text.QUERY_STOPWORDS | {"allowed"}


def test_a_word_list_reads_its_data_file_without_comments() -> None:
    lists = {p.stem: p for p in (ROOT / "ai_llm/common/text/data").glob("*.txt")}
    assert {"stopwords_en", "stopwords_ko", "query_stopwords_en", "query_stopwords_ko", "neutral_en", "neutral_ko",
            "title_stopwords_en"} <= set(lists)
    for name, path in lists.items():
        lines = path.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("#"), f"{name}: the file opens with what the list is for"
        words = text.word_list(name)
        assert words and not any(w.startswith("#") for w in words)
        assert words == {w for line in lines if not line.startswith("#") for w in line.split()}


def test_the_gateway_reads_the_korean_english_tables_through_common_text() -> None:
    source = (ROOT / "ai_llm/search_gateway/query_match.py").read_text(encoding="utf-8")
    assert not re.search(r"""["']common["']\s*/\s*["']text["']""", source)
    pairs = analysis.korean_english_pairs("loanwords_ko_en")
    assert pairs and all(isinstance(k, str) and isinstance(e, str) for k, e in pairs)
    assert set(query_match._korean_english("loanwords_ko_en")) <= set(pairs)
    assert ("클럭", "clock") in pairs
