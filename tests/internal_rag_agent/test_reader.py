"""The reader: its file round-trips, it orders the answer best first, its training runs end to end on generated
data over the real stack, and the shipped model shows what any build of it must (a near miss scored below its
answerable twin, the sentence that states the answer quoted first)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.embedding_server import e5
from ai_llm.embedding_server.runtime import reader_layers
from ai_llm.evals.reader.encoder import QuestionEncoderTrainer, save_layers
from ai_llm.evals.reader.training import (
    DESIGNS,
    RULES,
    TUNED,
    ablate,
    add_tuned_features,
    collect_items,
    curve,
    encoder_items,
    paired_interval,
    positive,
    train,
    trainable,
)
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.answer_extraction import Evidence, Quote
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk
from ai_llm.internal_rag_agent.reader.model import (
    ANSWER_FEATURES,
    FEATURES,
    MODEL_PATH,
    ReaderModel,
    load_model,
)
from ai_llm.internal_rag_agent.reader.reading import read
from ai_llm.internal_rag_agent.vector_store import ChunkHit
from tests.internal_rag_agent.conftest import linear_reader, unique_ref


def test_the_model_file_round_trips_and_a_broken_file_leaves_the_rules(tmp_path: Path) -> None:
    model = linear_reader({"similarity": 3.0, "own": 2.0})
    rows = [{"similarity": 0.9, "own": 0.5}, {"similarity": 0.1, "own": 0.0}]
    path = tmp_path / "reader.json"
    model.save(path)
    again = load_model(path)
    assert again is not None and np.allclose(again.predict(rows), model.predict(rows))
    assert again.predict(rows)[0] > again.predict(rows)[1]
    assert load_model(tmp_path / "missing.json") is None
    broken = tmp_path / "broken.json"
    broken.write_text("{not json", encoding="utf-8")
    assert load_model(broken) is None
    foreign = model.to_dict() | {"features": ["no_such_feature", *FEATURES[1:]]}
    (tmp_path / "foreign.json").write_text(json.dumps(foreign), encoding="utf-8")
    assert load_model(tmp_path / "foreign.json") is None


def _quote(text: str, position: int, similarity: float, chunk: RankedChunk) -> Quote:
    quote = Quote(text, chunk, position, score=1.0 - position / 10, window_coverage=0.5)
    quote.features = {"similarity": similarity}
    return quote


def test_reading_quotes_the_best_sentence_first_and_decides_by_the_threshold() -> None:
    chunk = RankedChunk(ChunkHit("ref", 0, "", [1], 1.0, file_name="f.txt"), relevance=1.0)
    lines = ["The team was founded in 2019.", "It meets on Mondays.", "The budget is 40 million won.",
             "This covers travel and training."]
    candidates = [_quote(t, i, s, chunk) for i, (t, s) in enumerate(zip(lines, [0.1, 0.2, 0.95, 0.3],
                                                                           strict=True))]
    evidence = Evidence(candidates[:2], best_coverage=0.5, candidates=candidates)
    chosen = read(evidence, linear_reader({"similarity": 8.0}, threshold=0.5))
    assert chosen.quotes[0].text == "The budget is 40 million won."  # the rules' first was another sentence
    assert chosen.reader_best is not None and chosen.reader_best > 0.9
    assert chosen.answerable(0.2)
    strict = read(evidence, linear_reader({"similarity": 8.0}, threshold=0.9999))
    assert not strict.answerable(0.2)  # the rules' figures would have answered; the reader decides


def test_the_answerability_model_decides_from_the_best_sentence_not_from_its_rank() -> None:
    chunk = RankedChunk(ChunkHit("ref", 0, "", [1], 1.0, file_name="f.txt"), relevance=1.0)
    lines = ["The budget is 40 million won.", "The team meets on Mondays."]
    ranker = linear_reader({"similarity": 8.0})
    w = np.zeros((len(ANSWER_FEATURES), 1))
    w[ANSWER_FEATURES.index("own"), 0] = 10.0  # answerable only when the best sentence holds the question's words
    ranker.answer = ReaderModel(ANSWER_FEATURES, np.zeros(len(ANSWER_FEATURES)), np.ones(len(ANSWER_FEATURES)),
                                [(w, np.asarray([-5.0]))], threshold=0.5, band=(0.3, 0.7), design="answerability")
    for own, answers in ((0.0, False), (1.0, True)):
        candidates = [_quote(t, i, s, chunk) for i, (t, s) in enumerate(zip(lines, [0.9, 0.1], strict=True))]
        candidates[0].features["own"] = own
        chosen = read(Evidence([], best_coverage=0.5, candidates=candidates), ranker)
        assert chosen.quotes[0].text == lines[0]  # the same sentence ranks first either way
        assert chosen.answerable(0.2) is answers, (own, chosen.reader_best)
    again = ReaderModel.from_dict(ranker.to_dict())
    assert again.answer is not None and again.answer.features == ANSWER_FEATURES


def test_a_sentence_without_the_asked_kind_of_value_cannot_answer() -> None:
    chunk = RankedChunk(ChunkHit("ref", 0, "", [1], 1.0, file_name="f.txt"), relevance=1.0)
    lines = ["Opened vials are discarded within 28 days.", "Vials are stored at 2 to 8 degrees."]
    candidates = [_quote(t, i, s, chunk) for i, (t, s) in enumerate(zip(lines, [0.9, 0.5], strict=True))]
    for quote, states in zip(candidates, (0.0, 1.0), strict=True):
        quote.features.update(units_asked=1.0, states_unit=states)
    chosen = read(Evidence([], best_coverage=0.5, candidates=candidates), linear_reader({"similarity": 8.0}))
    assert chosen.quotes[0].text == lines[1]  # the sentence that states degrees leads
    candidates[1].features["states_unit"] = 0.0
    refused = read(Evidence([], best_coverage=0.5, candidates=candidates), linear_reader({"similarity": 8.0}))
    assert refused.reader_best == 0.0 and not refused.answerable(0.2)


def test_a_sentence_pointing_back_brings_the_one_before_it_ahead_of_the_rest() -> None:
    chunk = RankedChunk(ChunkHit("ref", 0, "", [1], 1.0, file_name="f.txt"), relevance=1.0)
    lines = ["The archive server keeps every build for 90 days.", "This is what the audit requires.",
             "Another unrelated line about lunch."]
    candidates = [_quote(t, i, s, chunk) for i, (t, s) in enumerate(zip(lines, [0.2, 0.9, 0.5], strict=True))]
    evidence = Evidence([], best_coverage=0.5, candidates=candidates)
    chosen = read(evidence, linear_reader({"similarity": 8.0}))
    assert [q.text for q in chosen.quotes[:2]] == lines[:2]


def test_a_candidate_is_the_evidence_whole_or_as_the_half_the_parser_cut() -> None:
    evidence = "Hotel costs are reimbursed up to 150 dollars per night, and receipts are required."
    assert positive(evidence, evidence)
    assert positive(evidence, "Hotel costs are reimbursed up to 150 dollars per night,")
    assert not positive(evidence, "Receipts.")
    assert not positive(None, evidence)
    assert positive("임차료 340", "구분: 임차료; 2024년: 340")  # a table row is written as its cells


DOCS = {
    "greenfield_travel.md": (
        "# Greenfield travel rules\n\n"
        "Greenfield staff book trains through the travel desk.\n"
        "Greenfield pays a lodging allowance of 180 dollars per night in Seoul.\n"
        "Expense reports are due within 10 days after the trip ends.\n"
        "The travel desk is open on weekdays from 9 to 6.\n"),
    "그린필드_복무규정.md": (
        "# 그린필드 복무 규정\n\n"
        "직원은 매년 15일의 연차휴가를 받는다.\n"
        "출장 숙박비는 1박에 12만원까지 지급한다.\n"
        "재택근무는 주 2일까지 신청할 수 있다.\n"
        "신청은 전날 오후 5시까지 팀장에게 한다.\n"),
}


async def _index(agent: RagAgent) -> None:
    results = await agent.indexing.index_many([
        DocumentInput(unique_ref("reader"), name, content_b64=base64.b64encode(text.encode()).decode())
        for name, text in DOCS.items()])
    assert all(r.status == "success" for r in results), results


GENERATED: list[dict[str, Any]] = [
    {"id": "g1", "question": "What lodging allowance does Greenfield pay per night in Seoul?", "answer": "180 dollars",
     "evidence": "Greenfield pays a lodging allowance of 180 dollars per night in Seoul."},
    {"id": "g2", "question": "When are Greenfield expense reports due?", "answer": "within 10 days",
     "evidence": "Expense reports are due within 10 days after the trip ends."},
    {"id": "g3", "question": "What lodging allowance does Greenfield pay per night in Tokyo?", "answer": None},
    {"id": "g4", "question": "그린필드 직원은 연차휴가를 며칠 받나요?", "answer": "15일",
     "evidence": "직원은 매년 15일의 연차휴가를 받는다."},
    {"id": "g5", "question": "그린필드 재택근무는 일주일에 며칠까지 돼요?", "answer": "주 2일",
     "evidence": "재택근무는 주 2일까지 신청할 수 있다."},
    {"id": "g6", "question": "그린필드 육아휴직은 몇 개월까지 쓸 수 있나요?", "answer": None},
]


@pytest.mark.integration
async def test_training_runs_end_to_end_on_generated_data(rag_agent: RagAgent, tmp_path: Path) -> None:
    """The code path of `hub train reader` on a tiny generated set (two writers over the real stack): the
    candidates are collected with their features and labels, the question encoder is fine-tuned per writer
    fold and its layers written and applied over e5, the designs are cross-validated, and the model written
    reads back. Not a quality figure."""
    await _index(rag_agent)
    rows = [*await collect_items(rag_agent, GENERATED[:3], "gen_en", "writer_a"),
            *await collect_items(rag_agent, GENERATED[3:], "gen_ko", "writer_b")]
    assert all(r["candidates"] for r in rows)
    assert all(set(FEATURES) - set(TUNED) <= set(r["candidates"][0]["features"]) for r in rows)
    found = [r for r in rows if r["answerable"] and any(c["positive"] for c in r["candidates"])]
    assert found and all(not any(c["positive"] for c in r["candidates"]) for r in rows if not r["answerable"])

    texts = sorted({c["text"] for r in rows for c in r["candidates"]})
    index = {t: i for i, t in enumerate(texts)}
    passages = np.asarray(await rag_agent.embeddings.embed(texts, kind="passage"), dtype=np.float32)
    trainer = QuestionEncoderTrainer()
    add_tuned_features(rows, trainer, passages, index, folds=2, echo=lambda _line: None, epochs=1)
    assert any(c["features"]["tuned_similarity"] != 0.0 for r in rows for c in r["candidates"])
    model, report = train(rows)
    assert set(report["designs"]) == set(DESIGNS) and report["shipped"]["design"] in report["designs"]
    assert 0.0 <= model.threshold < 1.0 and report["curve"]
    ablation = ablate(rows, model.design, report["scores"])
    assert set(ablation) == {"full", *RULES}
    for name in RULES:
        assert set(ablation[name]["change_interval"]) == {"top1", "no_answer_accuracy", "false_no_result"}
        assert all(low <= high for low, high in ablation[name]["change_interval"].values())
    model.save(tmp_path / "reader.json")
    again = load_model(tmp_path / "reader.json")
    assert again is not None
    x = [c["features"] for r in rows for c in r["candidates"]]
    assert np.allclose(again.predict(x), model.predict(x), atol=1e-4)

    tuned = trainer.train(encoder_items(trainable(rows), index), passages, seed=1, epochs=1)
    save_layers(tmp_path / "layers.npz", trainer.trained_layers(tuned), {"seed": 1})
    layers = reader_layers(tmp_path / "layers.npz")
    served = e5.torch_encoder_module(trainer.weights, layers)  # what the embedding server builds from them
    question = [GENERATED[0]["question"]]
    assert np.allclose(trainer.encode(served, question), trainer.encode(tuned, question), atol=2e-3)


def test_a_paired_change_is_told_from_noise() -> None:
    same = [1.0, 0.0, 1.0, 1.0, 0.0] * 20
    assert paired_interval(same, same) == [0.0, 0.0]
    better = [1.0] * 100
    low, high = paired_interval(better, same)
    assert 0.0 < low <= 0.4 <= high  # every item gained or held: the whole interval above zero
    mixed = [1.0 - v if i % 2 else v for i, v in enumerate(same)]  # as many items lost as gained
    low, high = paired_interval(mixed, same)
    assert low < 0.0 < high


def test_the_curve_trades_no_answer_for_false_no_result() -> None:
    scores: list[dict[str, Any]] = [{"best": b, "answerable": a} for b, a in
                                    [(0.9, True), (0.7, True), (0.4, True), (0.5, False), (0.2, False), (0.1, False)]]
    points = {p["threshold"]: p for p in curve(scores, [0.15, 0.45, 0.8])}
    assert points[0.15]["no_answer_accuracy"] == pytest.approx(1 / 3) or points[0.15]["no_answer_accuracy"] == 0.3333
    assert points[0.45] == {"threshold": 0.45, "no_answer_accuracy": 0.6667, "false_no_result": 0.3333}
    assert points[0.8]["no_answer_accuracy"] == 1.0 and points[0.8]["false_no_result"] == 0.6667


TWINS = [  # (answerable question, its near-miss twin: the same document and topic, a fact it does not give)
    ("What lodging allowance does Greenfield pay per night in Seoul?",
     "What meal allowance does Greenfield pay interns on weekends?"),
    ("그린필드 재택근무는 일주일에 며칠까지 신청할 수 있나요?", "그린필드 사내 동호회 지원금은 1인당 얼마인가요?"),
]


@pytest.mark.integration
@pytest.mark.skipif(not MODEL_PATH.is_file(), reason="no shipped reader model")
async def test_the_shipped_reader_scores_a_near_miss_below_its_answerable_twin(rag_agent: RagAgent) -> None:
    assert load_model() is not None and rag_agent.settings.rag_reader
    await _index(rag_agent)
    for answerable, near_miss in TWINS:
        yes = (await rag_agent.run_state(AgentRequest(text=answerable, data={"language": "ko"})))["reply"]
        no = (await rag_agent.run_state(AgentRequest(text=near_miss, data={"language": "ko"})))["reply"]
        assert yes.data["reader_score"] > no.data["reader_score"], (answerable, yes.data, no.data)
        assert yes.data["status"] == "ok", yes.text
    reply = (await rag_agent.run_state(AgentRequest(text=TWINS[0][0], data={"language": "en"})))["reply"]
    assert "180 dollars" in reply.data["quotes"][0]["text"], reply.text  # the answer first
