"""Query clean-up: normalisation for cache keys, truncation of over-long queries, empty queries."""

from __future__ import annotations

import pytest

from ai_llm.search_gateway.models import SearchRequest
from ai_llm.search_gateway.query import BadQuery, clean_query, normalize_domains, normalize_query


def test_normalisation_ignores_case_width_whitespace_and_punctuation() -> None:
    assert normalize_query("  Seoul   WEATHER? ") == normalize_query("seoul weather")
    assert normalize_query("ＳＥＯＵＬ weather") == "seoul weather"  # full-width letters (NFKC)
    assert normalize_query("서울 날씨!") == "서울 날씨"
    assert normalize_query("seoul weather") != normalize_query("busan weather")
    # A symbol after a word names another thing (cache_pairs_holdout2: "Galaxy S25+" served "Galaxy S25").
    assert normalize_query("Galaxy S25+ battery capacity") != normalize_query("Galaxy S25 battery capacity")
    assert len({normalize_query(q) for q in ("C++ tutorial", "C# tutorial", "C tutorial")}) == 3
    assert normalize_query("C++  tutorial?") == normalize_query("c++ tutorial") == "c++ tutorial"
    assert normalize_query("#hashtag + trends") == "hashtag trends"  # a free-standing symbol still goes
    assert normalize_query("seoul+weather") == "seoul weather" and normalize_query("issue#12") == "issue 12"


def test_parameter_order_does_not_change_the_key() -> None:
    a = SearchRequest(query="q", include_domains=tuple(normalize_domains(["b.com", "https://www.A.com/x"])))
    b = SearchRequest(query="q", include_domains=tuple(normalize_domains("a.com, b.com")))
    assert a.params_key() == b.params_key()
    assert a.params_key() != SearchRequest(query="q", max_results=3).params_key()


@pytest.mark.parametrize("query", ["", "   ", "?!", "\n\t"])
def test_empty_queries_are_refused(query: str) -> None:
    with pytest.raises(BadQuery, match="empty"):
        clean_query(query)


def test_long_query_is_truncated_at_a_word_boundary_with_notice() -> None:
    words = " ".join(f"word{i}" for i in range(150))
    text, notice = clean_query(words)
    assert len(text) <= 400 and words.startswith(text) and not text.endswith(" ")
    assert text.split()[-1] in words.split()  # no word cut in half
    assert notice is not None and str(len(words)) in notice


def test_unspaced_long_text_is_cut_at_the_limit() -> None:
    text, notice = clean_query("가" * 900)
    assert text == "가" * 400 and notice
