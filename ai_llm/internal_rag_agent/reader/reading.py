"""Reading: the reader model ranks the candidate sentences, chooses the quotes and decides whether any answers.

The answer states the answer first: the best sentence (with the sentence before it when it opens by pointing
back), then up to two more whose ranker logit is close to the best's (`FOLLOWER_MARGIN`), in reading order, each
once.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from ai_llm.internal_rag_agent.answer_extraction import (
    Evidence,
    Quote,
    antecedents,
    pick_followers,
    points_back,
)
from ai_llm.internal_rag_agent.reader.model import ReaderModel

#: A further quoted sentence (a follower) must have a ranker logit at most this far under the best one's: odds of
#: stating the answer at least exp(-FOLLOWER_MARGIN) of the best's. The ranker is trained with balanced classes,
#: so its probabilities are not calibrated: a share of the best's probability admits nearly every sentence over
#: 0.5, a parallel sentence about another entity among them, while a difference of logits is the same whatever the
#: intercept. Chosen on the development writers, leave-one-writer-out (docs/models/reader.md, ADR 0018).
FOLLOWER_MARGIN = 2.0
MAX_QUOTES = 3
#: A report's retrieval (`data.breadth: "report"`) gathers what the documents say on a topic, not the one sentence
#: that answers: more sentences, and those further under the best (a regulation's other articles on the topic).
REPORT_QUOTES = 8
REPORT_MARGIN = 6.0


def states_asked_unit(quote: Quote) -> bool:
    """Whether the sentence (with the next) states every kind of value its question asks for, or none is asked:
    the asked-for kind of value (`answer_extraction.UNITS`) gates the reader's answer as it gates the rules' — a
    question asking for degrees is not answered by a sentence that states none (measured: docs/models/reader.md)."""
    return not quote.features.get("units_asked") or bool(quote.features.get("states_unit", 1.0))


#: The cross-lingual cosine at which a sentence in the other language counts as judged answering
#: (`RAG_MIN_CROSS_SIMILARITY`'s default; the agent passes the setting).
MIN_CROSS = 0.4


def holds_the_question(quote: Quote, min_cross: float = MIN_CROSS) -> bool:
    """Whether the sentence's window holds any question word the corpus knows, or the cross-lingual model judged
    it answering (a sentence in the other language, cosine ≥ `min_cross`): a window with neither answers an
    unrelated question ("김치찌개 끓이는 법" of a travel policy), whatever its cosine (docs/models/reader.md)."""
    return quote.features.get("window", 1.0) > 0 or quote.features.get("cross", 0.0) >= min_cross


def choose_quotes(ranked: Sequence[Quote], logits: Sequence[float], max_quotes: int = MAX_QUOTES,
                  margin: float = FOLLOWER_MARGIN) -> list[Quote]:
    """The best of `ranked` (best first, `logits` the ranker's in the same order) and up to `max_quotes - 1`
    followers whose logit is at most `margin` under the best's, a sentence quoted already left out
    (`pick_followers`)."""
    odds = [math.exp(max(-50.0, logit - logits[0])) for logit in logits]  # each one's odds over the best's
    return pick_followers(ranked, odds, max_quotes, math.exp(-margin))


def read(evidence: Evidence, model: ReaderModel, max_quotes: int = MAX_QUOTES, min_cross: float = MIN_CROSS,
         margin: float = FOLLOWER_MARGIN) -> Evidence:
    """`evidence` with its quotes chosen, and its answerable decision taken, by the reader model (`max_quotes`
    and the followers' logit `margin`: an answer's, or a report's, `REPORT_QUOTES` / `REPORT_MARGIN`)."""
    candidates = [c for c in evidence.candidates if c.features]
    if not candidates:
        return replace(evidence, reader_best=0.0, reader_threshold=model.threshold,
                       reader_band=model.band)
    logit_of = dict(zip(map(id, candidates), model.logits([c.features for c in candidates]), strict=True))
    for quote in candidates:
        quote.reader_score = round(float(1.0 / (1.0 + np.exp(-logit_of[id(quote)]))), 4)
    ranked = sorted(candidates, key=lambda q: q.reader_score or 0.0, reverse=True)
    # A sentence without the kind of value asked for ("how many degrees") cannot be the answer.
    ranked = [*[q for q in ranked if states_asked_unit(q)], *[q for q in ranked if not states_asked_unit(q)]]
    best = ranked[0]
    decided = model.answerability(best.features, [float(logit_of[id(q)]) for q in ranked]) \
        if states_asked_unit(best) and holds_the_question(best, min_cross) else 0.0
    chosen = choose_quotes(ranked, [float(logit_of[id(q)]) for q in ranked], max_quotes, margin)
    chosen += antecedents(chosen, candidates)
    # The best sentence leads, with the one before it when it opens by pointing back (its antecedent); the rest
    # follow in reading order.
    leading = {(best.chunk.key, best.position)}
    if points_back(best.text):
        leading.add((best.chunk.key, best.position - 1))

    def order(q: Quote) -> tuple[int, str, int, int, int]:
        return (0 if (q.chunk.key, q.position) in leading else 1, q.chunk.hit.storage_ref, q.page or 0,
                q.chunk.hit.chunk_index, q.position)

    chosen.sort(key=order)
    return replace(evidence, quotes=chosen, reader_best=round(decided, 4),
                   reader_threshold=model.threshold, reader_band=model.band)

