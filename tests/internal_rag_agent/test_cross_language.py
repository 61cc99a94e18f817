"""The cross-lingual judge (`cross_language.CrossLingualJudge`) on the real multilingual USE weights: a sentence
and its translation stand closer than the same topic in other words or another topic, in both directions;
vectors are cached and bounded. Asserted as orderings, which any build of the model keeps."""

from __future__ import annotations

import pytest

from ai_llm.internal_rag_agent.cross_language import CrossLingualJudge

KOREAN = ["입법예고기간은 특별한 사정이 없는 한 50일 이상으로 한다.",
          "육아휴직급여액은 월급여의 40%에 해당한다.",
          "블루프린트의 정적 폴더는 URL 접두사가 없으면 접근할 수 없다."]


def test_a_translation_is_closer_than_another_topic_in_both_directions() -> None:
    judge = CrossLingualJudge()
    english = "How many days must a legislative pre-announcement last?"
    scores = judge.similarity(english, KOREAN)
    assert set(scores) == set(KOREAN)
    assert scores[KOREAN[0]] > scores[KOREAN[1]] and scores[KOREAN[0]] > scores[KOREAN[2]]
    back = judge.similarity("입법예고는 최소 며칠 동안 해야 하나요?",
                            ["The legislative pre-announcement period is at least 50 days.",
                             "Parental leave pay is 40 percent of the monthly salary."])
    first, second = back.values()
    assert first > second
    assert all(-1.0 <= v <= 1.0 for v in [*scores.values(), *back.values()])


def test_vectors_are_cached_and_the_cache_is_bounded() -> None:
    judge = CrossLingualJudge(cache_size=3)
    assert judge.similarity("anything", []) == {}
    first = judge.similarity("What is the parental leave pay?", KOREAN)
    assert len(judge._cache) == 3  # the question and two sentences stayed; the oldest was pushed out
    again = judge.similarity("What is the parental leave pay?", KOREAN)
    assert again == pytest.approx(first, abs=1e-5)  # batch composition moves the last digits only
