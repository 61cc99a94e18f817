"""The reader's further quotes (followers): a sentence is quoted after the best one only when the ranker's logit
for it is close to the best's (`reading.FOLLOWER_MARGIN`). On documents of several entities sharing the same
attributes, the parallel sentence about another entity is not quoted for a question naming one; a second
sentence of the same entity that also answers keeps its place. The integration tests hold for any build of the
shipped reader."""

from __future__ import annotations

import base64
import math
from typing import Any

import pytest

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.evals.reader.followers import (
    BEFORE_SHARE,
    choose_margin,
    entity_lookup,
    reading,
    reply_figures,
    sections,
)
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.answer_extraction import Evidence, Quote, pick_followers
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk
from ai_llm.internal_rag_agent.reader.model import MODEL_PATH, load_model
from ai_llm.internal_rag_agent.reader.reading import FOLLOWER_MARGIN, choose_quotes, read
from ai_llm.internal_rag_agent.vector_store import ChunkHit
from tests.internal_rag_agent.conftest import linear_reader, unique_ref


def _candidates(lines: list[tuple[str, float]]) -> list[Quote]:
    """One candidate a line, each in its own section's chunk, `similarity` its only feature."""
    quotes = []
    for i, (text, similarity) in enumerate(lines):
        chunk = RankedChunk(ChunkHit("projects.md", i, text, [1], 1.0, file_name="projects.md"), relevance=1.0)
        quote = Quote(text, chunk, 0, score=1.0 - i / 10, window_coverage=0.5)
        quote.features = {"similarity": similarity, "window": 0.5}
        quotes.append(quote)
    return quotes


HANBIT = "한빛 프로젝트의 출시 코드명은 파랑새-3800입니다."
HANBIT_TEST = "한빛 프로젝트의 내부 시험용 코드명은 파랑새-3700입니다."
DAON = "다온 프로젝트의 출시 코드명은 은하수-2입니다."


def test_a_parallel_sentence_the_ranker_scores_well_under_the_best_is_not_quoted() -> None:
    # Logits 8.0 (the answer), 7.6 (the same entity's other codename) and 4.8 (another entity's codename): all
    # three over half the best's probability — the rule before quoted the other entity's sentence too.
    candidates = _candidates([(DAON, 0.6), (HANBIT, 1.0), (HANBIT_TEST, 0.95)])
    model = linear_reader({"similarity": 8.0})
    probabilities = sorted(model.predict([c.features for c in candidates]), reverse=True)
    assert probabilities[-1] >= BEFORE_SHARE * probabilities[0]  # what the rule before admitted
    chosen = read(Evidence([], best_coverage=0.5, candidates=candidates), model)
    assert [q.text for q in chosen.quotes] == [HANBIT, HANBIT_TEST]


def test_followers_depend_on_the_logits_difference_not_on_the_ranker_s_intercept() -> None:
    candidates = _candidates([(HANBIT, 1.0), (HANBIT_TEST, 0.95), (DAON, 0.6)])
    for bias in (-6.0, 0.0, 6.0):  # a build trained with another class balance shifts every logit alike
        model = linear_reader({"similarity": 8.0}, bias=bias)
        logits = list(model.logits([c.features for c in candidates]))
        for quote, logit in zip(candidates, logits, strict=True):
            quote.reader_score = float(1.0 / (1.0 + math.exp(-logit)))
        assert [q.text for q in choose_quotes(candidates, logits)] == [HANBIT, HANBIT_TEST], bias


def test_the_margin_bounds_the_followers_and_a_repeated_sentence_is_quoted_once() -> None:
    candidates = _candidates([(HANBIT, 1.0), (HANBIT + " ", 1.0), (HANBIT_TEST, 0.9), (DAON, 0.1)])
    logits = [5.0, 5.0, 5.0 - FOLLOWER_MARGIN + 0.01, 5.0 - FOLLOWER_MARGIN - 0.01]
    assert [q.text for q in choose_quotes(candidates, logits)] == [HANBIT, HANBIT_TEST]
    assert choose_quotes(candidates, logits, max_quotes=1) == [candidates[0]]
    # The pick itself is `pick_followers` over the odds relative to the best's.
    odds = [math.exp(v - logits[0]) for v in logits]
    assert choose_quotes(candidates, logits) == pick_followers(candidates, odds, 3, math.exp(-FOLLOWER_MARGIN))


def test_the_parallel_set_maps_each_sentence_to_its_entity_and_counts_replies_quoting_another() -> None:
    from ai_llm.evals.reader.followers import PARALLEL

    projects = sections(PARALLEL / "docs" / "projects_ko.md")
    assert projects[HANBIT] == "한빛 프로젝트" and projects[DAON] == "다온 프로젝트"
    assert entity_lookup(PARALLEL / "docs")("projects_ko.md", DAON) == "다온 프로젝트"
    row = {"status": "ok", "entity": "한빛 프로젝트", "evidence": HANBIT, "file": "projects_ko.md"}
    clean = reply_figures([{**row, "reply_quotes": [HANBIT]}])
    mixed = reply_figures([{**row, "reply_quotes": [HANBIT, DAON]}])
    assert clean["answers_with_off_entity"] == 0.0 and mixed["answers_with_off_entity"] == 1.0
    assert clean["evidence_in_quotes"] == mixed["evidence_in_quotes"] == 1.0


def _row(question: str, lines: list[tuple[str, float, bool]]) -> dict[str, Any]:
    """A collected question: one candidate a chunk, `similarity` its logit under `_linear`."""
    return {"question": question, "answerable": True, "writer": "w", "candidates": [
        {"text": text, "file": "doc.md", "positive": evidence,
         "features": {"similarity": logit, "window": 0.5, "chunk_rank": float(i), "position": 0.0}}
        for i, (text, logit, evidence) in enumerate(lines)]}


def test_the_development_data_chooses_the_widest_margin_that_costs_nothing_on_balance() -> None:
    model = linear_reader({"similarity": 1.0})
    # The best is the evidence; another entity's parallel sentence 3 logits under it.
    parallel = _row("What is the codename of project Hanbit?", [
        ("Project Hanbit has the codename Bluebird.", 8.0, True), ("Project Daon has the codename Galaxy.", 5.0, False)])
    # The best is not the evidence; the evidence 1.5 logits under it.
    missed = _row("Who manages the Riverside branch?", [
        ("The Riverside branch opens at nine every weekday.", 6.0, False),
        ("Daniel Ortiz manages the Riverside branch.", 4.5, True)])
    items = [(row, read, model) for row in [parallel, missed] * 20 if (read := reading(row, model)) is not None]
    assert len(items) == 40 and all(read["answered"] for _, read, _ in items)
    margin, table = choose_margin(items, (1.0, 2.0, 4.0))
    # 1.0 loses the missed evidence, 4.0 quotes the other entity: 2.0 keeps one and leaves the other out.
    assert margin == 2.0 and table["best"] == 2.0
    assert table["margins"]["4.00"]["against_best"][1] < 0.0 and table["margins"]["1.00"]["against_best"][1] < 0.0


DOCS = {
    "projects_ko.md": (
        "# 2025년 신규 프로젝트 현황\n\n"
        "## 한빛 프로젝트\n\n"
        f"{HANBIT}\n"
        f"{HANBIT_TEST}\n"
        "한빛 프로젝트는 물류 창고의 재고를 자동으로 집계하는 서비스입니다.\n"
        "담당 부서는 스마트물류팀이며 올해 예산은 12억 원입니다.\n\n"
        "## 다온 프로젝트\n\n"
        f"{DAON}\n"
        "다온 프로젝트의 내부 시험용 코드명은 은하수-1입니다.\n"
        "다온 프로젝트는 고객 상담 내용을 요약해 주는 서비스입니다.\n"
        "담당 부서는 고객경험팀이며 올해 예산은 7억 원입니다.\n"),
    "branches_en.md": (
        "# Harbor Bank branch guide\n\n"
        "## Northgate branch\n\n"
        "The Northgate branch opens at 8:30 and closes at 17:00 on weekdays.\n"
        "The Northgate branch is managed by Laura Kim.\n"
        "The Northgate branch is closed on Saturdays.\n\n"
        "## Riverside branch\n\n"
        "The Riverside branch opens at 9:00 and closes at 18:00 on weekdays.\n"
        "The Riverside branch is managed by Daniel Ortiz.\n"
        "The Riverside branch opens from 10:00 to 14:00 on Saturdays.\n"),
}


async def _ask(agent: RagAgent, question: str) -> dict[str, Any]:
    reply = (await agent.run_state(AgentRequest(text=question, data={"language": "ko"})))["reply"]
    return reply.data


@pytest.mark.integration
@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="no shipped reader model")
async def test_the_shipped_reader_quotes_no_other_entity_for_a_question_naming_one(rag_agent: RagAgent) -> None:
    assert load_model() is not None and rag_agent.settings.rag_reader
    refs = {name: unique_ref("parallel") for name in DOCS}
    results = await rag_agent.indexing.index_many([
        DocumentInput(refs[name], name, content_b64=base64.b64encode(text.encode()).decode())
        for name, text in DOCS.items()])
    try:
        assert all(r.status == "success" for r in results), results
        await _ask_parallel(rag_agent)
    finally:  # the index is the session's: other tests must not find these documents
        for ref in refs.values():
            await rag_agent.indexing.delete(ref)


async def _ask_parallel(rag_agent: RagAgent) -> None:
    cases = [
        ("한빛 프로젝트의 출시 코드명은 무엇인가요?", "파랑새-3800", ("은하수",)),
        ("다온 프로젝트 코드명이 뭐예요?", "은하수-2", ("파랑새",)),
        ("When does the Northgate branch open on weekdays?", "8:30", ("Riverside",)),
        ("Who manages the Riverside branch?", "Daniel Ortiz", ("Northgate",)),
    ]
    for question, answer, others in cases:
        data = await _ask(rag_agent, question)
        quotes = [str(q["text"]) for q in data["quotes"]]
        assert data["status"] == "ok" and answer in quotes[0], (question, quotes)
        assert not any(name in q for q in quotes for name in others), (question, quotes)
    # A second sentence of the same entity that also answers (its other codename) keeps its place.
    data = await _ask(rag_agent, "한빛 프로젝트의 코드명은 무엇인가요?")
    text = " ".join(str(q["text"]) for q in data["quotes"])
    assert "파랑새-3800" in text and "파랑새-3700" in text and "은하수" not in text, text
