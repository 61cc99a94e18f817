"""Korean terms: a compound written as one word is found however Kiwi segments it in its sentence."""

from __future__ import annotations

from ai_llm.common.text.analysis import TermStats, analyze, analyze_query, coverage, kiwi


def test_two_nouns_written_as_one_word_are_also_one_term() -> None:
    text = "정보보안팀장의 승인을 받는다. 보안 팀장"
    tokens = kiwi().tokenize(text)
    nouns = [t for t in tokens if str(t.tag) in ("NNG", "NNP")]
    contiguous = [a.form + b.form for a, b in zip(tokens, tokens[1:], strict=False)
                  if a in nouns and b in nouns and a.start + a.len == b.start]
    terms = analyze(text)
    assert contiguous and all(joined in terms for joined in contiguous)
    assert "보안팀장" not in contiguous or terms.count("보안팀장") == contiguous.count("보안팀장")
    # Words apart are not joined: "보안 팀장" gives its two nouns only.
    assert analyze("보안 팀장") == ["보안", "팀장"]


def test_a_compound_the_question_splits_matches_the_document_that_does_not() -> None:
    """In "재택하면 통신비 따로 나와?" Kiwi reads 통신 + 비; in the regulation it reads 통신비."""
    document = analyze("회사는 원격근무를 한 임직원에게 통신비로 월 3만원을 지급한다.")
    query = analyze_query("재택하면 통신비 따로 나와? 얼마야?", translate=False, expand_similar=False)
    bases = [g.base for g in query.groups]
    assert "통신비" not in bases or "통신비" in document  # the compound is a form of its parts, not a word more
    stats = TermStats(10, {t: 1 for t in document})
    held = coverage(query, document, stats, known_only=True)
    assert held > 0.5, [(g.base, list(g.alternatives)) for g in query.groups]
