"""`hub search stats`, `hub search corpus` and the benchmark's building blocks (paraphrases, depth recall)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ai_llm.common.settings import get_settings
from ai_llm.search_gateway import cli
from ai_llm.search_gateway.benchmark import depth_recall, paraphrase
from ai_llm.search_gateway.corpus import read_hotpotqa, title_for_url, wiki_url, write_hotpotqa_corpus
from ai_llm.search_gateway.query import normalize_query

HOTPOT_ROWS = [
    {"id": "1", "question": "Which actress who starred in the film Kiss and Tell became ambassador to Ghana?",
     "answer": "Shirley Temple", "supporting_facts": [["Kiss and Tell (1945 film)", 0], ["Shirley Temple", 1]],
     "context": [["Kiss and Tell (1945 film)", ["Kiss and Tell is a 1945 film starring Shirley Temple", " as Corliss."]],
                 ["Shirley Temple", ["Shirley Temple was an actress.", " She was ambassador to Ghana."]],
                 ["Busan", ["Busan is a port city in Korea."]]]},
    {"id": "2", "question": "What port city in Korea hosts the Busan International Film Festival?",
     "answer": "Busan", "supporting_facts": [["Busan", 0], ["Busan International Film Festival", 0]],
     "context": [["Busan", ["Busan is a port city in Korea."]],
                 ["Busan International Film Festival", ["The Busan International Film Festival is held in Busan."]],
                 ["AT&amp;T", ["AT&T is a telecom company."]]]},
]


@pytest.fixture
def hotpot(tmp_path: Path) -> Path:
    path = tmp_path / "hotpot.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in HOTPOT_ROWS) + "\n", encoding="utf-8")
    return path


def _app() -> typer.Typer:
    app, eval_app, bench_app, search_app = (typer.Typer() for _ in range(4))
    app.add_typer(eval_app, name="eval")
    app.add_typer(bench_app, name="bench")
    app.add_typer(search_app, name="search")
    cli.register(app, eval_app, bench_app, search_app)
    return app


def test_corpus_command_writes_unique_wikipedia_pages(hotpot: Path, tmp_path: Path) -> None:
    target = tmp_path / "out" / "corpus.jsonl"
    result = CliRunner().invoke(_app(), ["search", "corpus", str(target), "--hotpotqa", str(hotpot)])
    assert result.exit_code == 0, result.output
    pages = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert len(pages) == 5  # "Busan" appears twice, written once
    att = next(p for p in pages if p["title"] == "AT&T")  # HTML entity unescaped
    assert title_for_url(att["url"]) == "AT&T" and att["url"] == wiki_url("AT&amp;T")
    assert CliRunner().invoke(_app(), ["search", "corpus", str(target), "--hotpotqa",
                                       str(tmp_path / "nope.jsonl")]).exit_code == 2


def test_stats_command_reads_the_telemetry(pg_url: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv("DATABASE_URL", pg_url)
    monkeypatch.setenv("DATA_DIR", str(tmp_path))
    get_settings.cache_clear()
    try:
        result = CliRunner().invoke(_app(), ["search", "stats", "--json", "--hours", "1"])
        assert result.exit_code == 0, result.output
        summary = json.loads(result.output)
        assert set(summary) >= {"providers", "series", "recent"}
        table = CliRunner().invoke(_app(), ["search", "stats"])
        assert table.exit_code == 0 and "provider" in table.output and "p95 ms" in table.output
        assert CliRunner().invoke(_app(), ["search", "stats", "--hours", "0"]).exit_code == 2
    finally:
        get_settings.cache_clear()


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
