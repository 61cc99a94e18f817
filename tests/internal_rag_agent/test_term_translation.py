"""Words of a question rendered in the other language by the cross-lingual model (`translated_query`): a
question word gets the sentence words whose cosine to it reaches `MIN_WORD_COSINE` (the best, and others near
it), at a weight below the glossary's; a word the sentences already hold, a request word and a number get
none; the agent adds the new terms' statistics under the person's filter, and a failure leaves the question's
own terms."""

from __future__ import annotations

from collections.abc import Sequence
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest

from ai_llm.common.degraded import collect_degraded
from ai_llm.common.identity import Viewer
from ai_llm.common.text.analysis import TRANSLATION_WEIGHT, TermStats, analyze_query, coverage
from ai_llm.internal_rag_agent.cross_language import (
    MIN_WORD_COSINE,
    CrossLingualJudge,
    translated_query,
)
from ai_llm.internal_rag_agent.retrieval import Retriever

pytestmark = pytest.mark.unit

SENTENCE = "센터 안의 지게차 제한속도는 시속 10km이며 OWMS 단말기로 기록한다."


class Judge:
    """Words as fixed unit vectors: each listed pair shares a direction at the given cosine."""

    def __init__(self, pairs: dict[str, tuple[str, float]]) -> None:
        self.pairs = pairs

    def vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        axes = sorted({w for pair in self.pairs.items() for w in (pair[0], pair[1][0])} | set(texts))
        out = []
        for text in texts:
            v = np.zeros(len(axes) + 1, dtype=np.float32)
            v[axes.index(text)] = 1.0
            for english, (korean, cos) in self.pairs.items():
                if text == english:  # cos to the Korean word's axis, the rest on its own
                    v[:] = 0.0
                    v[axes.index(korean)] = cos
                    v[axes.index(english)] = (1 - cos * cos) ** 0.5
            out.append(v)
        return out


def test_a_word_gets_the_sentence_word_the_model_pairs_it_with() -> None:
    question = "How many km/h is the forklift speed limit in the OWMS centre?"
    query = analyze_query(question)
    judge = Judge({"forklift": ("지게차", 0.71), "limit": ("제한속도", MIN_WORD_COSINE - 0.1)})
    translated, added = translated_query(judge, question, query, [SENTENCE])  # type: ignore[arg-type]
    groups = {g.base: g for g in translated.groups}
    assert "지게차" in groups["forklift"].alternatives and "지게차" in added
    assert 0 < groups["forklift"].alternatives["지게차"] < TRANSLATION_WEIGHT  # below the glossary's rendering
    assert "제한속도" not in groups["limit"].alternatives  # under the cosine the model must reach
    before = {g.base: dict(g.alternatives) for g in query.groups}
    assert groups["owm"].alternatives == before["owm"]  # the sentence writes it: nothing to translate
    assert groups["mani"].alternatives == before["mani"]  # a request word is never rendered
    stats = TermStats(10, {t: 1 for t in [*translated.all_terms()]})
    terms = analyze_query(SENTENCE).all_terms()
    assert coverage(translated, terms, stats) > coverage(query, terms, stats)


def test_the_real_model_renders_a_word_by_its_translation_first() -> None:
    """On the real multilingual USE weights, as an ordering: what a word gets is its translation, not another
    word of the sentence."""
    question = "Who chairs the insurance committee?"
    query = analyze_query(question)
    translated, _ = translated_query(CrossLingualJudge(), question, query,
                                     ["보험 위원회의 위원장은 지게차 담당 임원이 맡는다."])
    new = {g.base: [t for t in g.alternatives if t not in before.alternatives]
           for g, before in zip(translated.groups, query.groups, strict=True)}
    assert any(new.values())
    assert all(t in {"보험", "위원회", "위원장", "위원"} for base in ("insur", "committe") for t in new[base])


class Store:
    def __init__(self, fail: bool = False) -> None:
        self.fail, self.calls = fail, []

    async def term_stats(self, terms: Sequence[str], viewer: Viewer | None = None) -> TermStats:
        self.calls.append((list(terms), viewer))
        if self.fail:
            raise RuntimeError("store down")
        return TermStats(50, {t: 3 for t in terms}, 99.0)


async def translate(store: Store, judge: Any) -> tuple[Any, TermStats]:
    question = "What is the forklift speed limit?"
    query = analyze_query(question)
    outcome = SimpleNamespace(query_terms=query, stats=TermStats(40, {"speed": 2}, 80.0))
    retriever = SimpleNamespace(store=store, cross_judge=judge)
    return await Retriever.translated(retriever, question, outcome, [SENTENCE],  # type: ignore[arg-type]
                                      Viewer(user_id="u1", username="kim", teams=("hr",)))


async def test_the_agent_adds_the_new_terms_statistics_under_the_viewer() -> None:
    store = Store()
    query, stats = await translate(store, Judge({"forklift": ("지게차", 0.8)}))
    assert "지게차" in {g.base: g for g in query.groups}["forklift"].alternatives
    assert stats.df["지게차"] == 3 and stats.df["speed"] == 2 and (stats.n, stats.avgdl) == (40, 80.0)
    assert store.calls == [(["지게차"], Viewer(user_id="u1", username="kim", teams=("hr",)))]


async def test_a_failure_leaves_the_question_its_own_terms() -> None:
    with collect_degraded() as skipped:
        query, stats = await translate(Store(fail=True), Judge({"forklift": ("지게차", 0.8)}))
    assert "cross_language" in skipped
    assert "지게차" not in {g.base: g for g in query.groups}["forklift"].alternatives and stats.df == {"speed": 2}
