"""`hub bench gateway`'s building blocks (paraphrases, depth recall)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_llm.evals.gateway.benchmark import depth_recall, paraphrase
from ai_llm.search_gateway.corpus import read_hotpotqa, write_hotpotqa_corpus
from ai_llm.search_gateway.query import normalize_query
from tests.search_gateway.conftest import HOTPOT_ROWS, write_hotpot


@pytest.fixture
def hotpot(tmp_path: Path) -> Path:
    return write_hotpot(tmp_path / "hotpot.jsonl")


def test_paraphrases_differ_from_the_question_but_keep_its_key_words() -> None:
    for i, row in enumerate(HOTPOT_ROWS):
        para = paraphrase(row["question"], i)
        assert normalize_query(para) != normalize_query(row["question"])
        assert "Kiss and Tell" in para or "Busan" in para


async def test_depth_recall_grows_with_depth(hotpot: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus.jsonl"
    write_hotpotqa_corpus(hotpot, corpus)
    report = await depth_recall(read_hotpotqa(hotpot), corpus, (1, 5))
    assert report["1"]["supporting_recall"] == 0.5  # one of two gold pages per question at depth 1
    assert report["5"]["supporting_recall"] == 1.0 and report["5"]["answer_in_results"] == 1.0
