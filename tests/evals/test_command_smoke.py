"""Every `hub eval` and `hub bench` command runs end to end on tiny inputs, through the `hub` app as the console
script builds it, and prints JSON with its figures: a schema, API or option change that breaks a command fails
here. The commands reuse the session's Postgres and embedding server where they can take one (`EMBEDDING_URL`,
or a database of their own on the session's server); each test checks the report's shape and that its figures
are possible ones, not their values."""

from __future__ import annotations

import asyncio
import importlib
import json
import uuid
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import psycopg
import pytest
import typer
from typer.testing import CliRunner

from ai_llm.common.settings import get_settings
from ai_llm.common.store.db import migrate
from ai_llm.evals.backend import cli as backend_cli
from ai_llm.evals.backend.hub import OfflineHub, offline_hub
from ai_llm.hub import cli
from tests.conftest import EMBEDDING_DIM, EMBEDDING_MODEL
from tests.internal_rag_agent.conftest import make_pdf
from tests.search_gateway.conftest import HOTPOT_ROWS, write_hotpot

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

#: Each command's smoke test: a test of this module, or `module::test` where another file runs the command
#: through its CLI with `--json`.
SMOKE_TESTS = {
    "eval rag": "test_eval_rag",
    "eval build-sets": "test_eval_build_sets",
    "eval check-sets": "tests.evals.sets.test_check::test_check_sets_reports_each_set_and_exits_1_on_a_problem",
    "eval intent": "tests.evals.orchestrator.test_orchestrator_evals::"
                   "test_eval_intent_reports_accuracy_and_confusion_matrix",
    "eval web": "test_eval_web",
    "eval verify": "test_eval_verify",
    "eval files": "tests.evals.files.test_instruction_eval::test_eval_counts_right_and_wrong_expectations",
    "bench startup": "test_bench_startup",
    "bench rag": "test_bench_rag",
    "bench pools": "tests.evals.orchestrator.test_orchestrator_evals::"
                   "test_bench_pools_measures_both_clients_against_a_real_streaming_server",
    "bench orchestrator": "tests.evals.orchestrator.test_orchestrator_evals::"
                          "test_bench_runs_against_real_sleeping_agents",
    "bench gateway": "test_bench_gateway",
    "bench files": "test_bench_files",
    "bench embedding": "test_bench_embedding",
    "bench backend": "test_bench_backend",
}

DOCUMENT = ["Greenfield travel rules",
            "Staff book trains through the travel desk at least five days ahead.\n"
            "The daily meal allowance on a business trip is 42 euros.\n"
            "Hotel rooms up to 120 euros a night are paid by the company card.",
            "Overtime after 9 pm is paid at one and a half times the hourly rate.\n"
            "A taxi home after 10 pm is refunded with the receipt."]


@pytest.fixture(scope="module")
def hub() -> typer.Typer:
    """The `hub` app with every plugin's commands, as `hub` (the console script) builds it."""
    if not cli.bench_app.registered_commands:
        cli._load_plugins()
    return cli.app


def run(hub: typer.Typer, args: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """`hub <args> --json`: the exit status must be 0 and stdout one JSON object."""
    get_settings.cache_clear()  # the command reads the environment given here
    try:
        result = CliRunner().invoke(hub, [*args, "--json"], env=env)
    finally:
        get_settings.cache_clear()
    assert result.exit_code == 0, (result.output, result.exception)
    report = json.loads(result.stdout)  # stdout only: another thread's stray stderr may interleave
    assert isinstance(report, dict)
    return report


def share(value: Any) -> bool:
    return isinstance(value, int | float) and 0.0 <= value <= 1.0


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    """A folder with one small two-page text PDF."""
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "travel_rules.pdf").write_bytes(make_pdf(["\n".join(DOCUMENT[:2]), DOCUMENT[2]]))
    return folder


@pytest.fixture
def own_database(pg_url: str) -> str:
    """A migrated database of its own on the session's Postgres: what a command writes there reaches no other
    test's index."""
    name = f"smoke_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    url = psycopg.conninfo.make_conninfo(pg_url, dbname=name)
    asyncio.run(migrate(url, EMBEDDING_MODEL, EMBEDDING_DIM))
    return url


def test_every_eval_and_bench_command_has_a_smoke_test(hub: typer.Typer) -> None:
    commands = {f"{group.name} {command.name}" for group in hub.registered_groups
                if group.name in ("eval", "bench") and group.typer_instance is not None
                for command in group.typer_instance.registered_commands}
    assert commands == set(SMOKE_TESTS)
    for test in SMOKE_TESTS.values():
        module, _, name = test.rpartition("::")
        where = vars(importlib.import_module(module)) if module else globals()
        assert callable(where.get(name)), f"no test {test}"


def test_eval_build_sets(hub: typer.Typer, tmp_path: Path) -> None:
    sets = tmp_path / "sets"
    (sets / "tiny" / "text").mkdir(parents=True)
    (sets / "tiny" / "text" / "rules.txt").write_text("# Travel rules\n" + DOCUMENT[1] + "\n", encoding="utf-8")
    (sets / "tiny" / "set.toml").write_text('[[document]]\nfile = "rules.docx"\nformat = "docx"\n'
                                            'source = "text/rules.txt"\n', encoding="utf-8")
    args = ["eval", "build-sets", "--root", str(sets), "--out", str(tmp_path / "out")]
    report = run(hub, args)
    assert report["sets"] == [{"set": "tiny", "folder": str(tmp_path / "out" / "tiny"), "files": 1,
                               "rendered": True}]
    assert (tmp_path / "out" / "tiny" / "rules.docx").stat().st_size > 0
    assert run(hub, args)["sets"][0]["rendered"] is False  # up to date: not rendered again


def test_eval_rag(hub: typer.Typer, embedding_server: str, docs: Path, tmp_path: Path) -> None:
    qa = tmp_path / "qa.jsonl"
    items: list[dict[str, Any]] = [
        {"id": "en-1", "file": "travel_rules.pdf", "kind": "en", "answer": "42 euros", "pages": [1],
         "question": "How much is the daily meal allowance on a business trip?"},
        {"id": "en-2", "file": "travel_rules.pdf", "kind": "en", "answer": "after 10 pm", "pages": [2],
         "question": "When is a taxi home refunded?"},
        {"id": "neg-1", "file": None, "kind": "near_miss", "answer": None, "pages": [],
         "question": "How many parking places does the Busan office have?"}]
    qa.write_text("".join(json.dumps(item) + "\n" for item in items), encoding="utf-8")
    report = run(hub, ["eval", "rag", "--docs", str(docs), "--qa", str(qa), "--details"],
                 {"EMBEDDING_URL": embedding_server})
    assert [d["status"] for d in report["indexed_documents"]] == ["success"]
    assert report["indexed_documents"][0]["chunks"] >= 1
    assert [item["id"] for item in report["items"]] == [item["id"] for item in items]
    assert (report["questions"], report["answerable"], report["unanswerable"]) == (3, 2, 1)
    for key in ("page_recall", "file_recall", "answer_hit", "evidence_in_answer", "no_answer_accuracy",
                "false_no_result"):
        assert share(report[key]), key
    assert report["llm"] == "offline" and report["embedding_model"] == EMBEDDING_MODEL
    assert report["mean_latency_ms"] > 0 and report["index_seconds"] > 0


def test_bench_rag(hub: typer.Typer, embedding_server: str, docs: Path) -> None:
    report = run(hub, ["bench", "rag", "--docs", str(docs), "--chunks", "300", "--insert-chunks", "20",
                       "--queries", "2", "--no-compare-models"], {"EMBEDDING_URL": embedding_server})
    indexing = report["indexing"]
    assert indexing["documents"] == ["travel_rules.pdf"] and indexing["chunks"] >= 1
    assert indexing["pipeline_chunks_per_s"] > 0 and indexing["throughput_ratio"] > 0
    insert = report["batched_insert"]  # both sides wrote every row (through the store's columns)
    assert insert["rows_written"] == {"batched": 20, "per_row": 20} and insert["speedup"] > 0
    assert 1 <= report["multi_query"]["queries"] <= 2 and report["multi_query"]["latency_ratio"] > 0
    assert report["reader"]["questions"] >= 1 and report["reader"]["latency_ratio"] > 0
    hnsw = report["hnsw_vs_exact"]
    assert hnsw["chunks"] == 300 and hnsw["dimension"] == EMBEDDING_DIM and share(hnsw["recall_at_10"])
    assert "models" not in report


def test_eval_web(hub: typer.Typer, embedding_server: str, tmp_path: Path) -> None:
    hotpot = write_hotpot(tmp_path / "hotpot.jsonl")
    negatives = tmp_path / "negatives.jsonl"
    negatives.write_text(json.dumps({"question": "What is the air quality in Bangkok right now?",
                                     "kind": "off_corpus", "language": "en"}) + "\n", encoding="utf-8")
    report = run(hub, ["eval", "web", "--hotpotqa", str(hotpot), "--n", "1", "--depth", "both",
                       "--unanswerable", str(negatives)], {"EMBEDDING_URL": embedding_server})
    titles = {title for row in HOTPOT_ROWS for title, _ in row["context"]}
    assert report["questions"] == 1 and report["corpus_pages"] == len(titles)  # one page per paragraph title
    assert set(report["modes"]) == {"snippets", "pages"}
    for mode in report["modes"].values():
        assert mode["questions"] == 1 and mode["error_rate"] == 0.0
        for key in ("supporting_recall", "exact_match", "f1", "answer_in_text_rate", "no_result_rate"):
            assert share(mode[key]), key
        assert mode["unanswerable"]["n"] == 1 and share(mode["unanswerable"]["no_answer_accuracy"])
        assert mode["searches_per_question"] >= 1
    assert set(report["pages_vs_snippets"]) == {"supporting_recall", "exact_match", "f1", "answer_in_text_rate",
                                               "no_result_rate"}


def test_eval_verify(hub: typer.Typer) -> None:
    report = run(hub, ["eval", "verify", "--limit", "4"])
    assert report["count"] == len(report["cases"]) == 4
    assert 0 <= report["passed"] <= report["count"]
    assert sum(code["expected"] for code in report["per_code"].values()) == report["count"]
    assert sum(code["got"] for code in report["per_code"].values()) <= report["count"]
    assert report["verified_precision"] is None or share(report["verified_precision"])
    assert share(report["verified_recall"])


def test_bench_startup(hub: typer.Typer) -> None:
    report = run(hub, ["bench", "startup", "--only", "file_management", "--runs", "1"])
    assert 0 < report["warm_s"] and 0 < report["cold_s"]
    assert report["warm_ratio_vs_sleep"] == pytest.approx(report["warm_s"] / report["sleep_baseline_s"], abs=0.01)
    assert report["idle_rss_gib"] > 0
    assert "database" in report["cold_timings_s"]


def test_bench_gateway(hub: typer.Typer, tmp_path: Path) -> None:
    hotpot = write_hotpot(tmp_path / "hotpot.jsonl")
    report = run(hub, ["bench", "gateway", str(hotpot), "--delay-ms", "50", "--paraphrases", "2"])
    latency, hits = report["latency"], report["hit_rate"]
    assert latency["cold_mean_ms"] >= 50  # every cold call waits for the simulated provider
    assert 0 < latency["warm_exact_mean_ms"] and share(hits["exact_repeat_hit_rate"])
    assert share(hits["paraphrase_semantic_hit_rate"]) and 0 <= hits["paraphrase_wrong_hits"] <= 2
    assert report["cost_per_1000_queries_usd"]["cold"] >= report["cost_per_1000_queries_usd"]["warm"] >= 0
    assert report["depth"] and all(share(d["supporting_recall"]) for d in report["depth"].values())


def test_bench_files(hub: typer.Typer) -> None:
    report = run(hub, ["bench", "files", "--size-mb", "2", "--rounds", "1"])
    assert report["file_mb"] == 2.0 and report["upload_mb_per_s"] > 0 and report["disk_write_mb_per_s"] > 0
    assert report["upload_vs_disk_write_ratio"] > 0 and report["peak_heap_mb_during_upload"] > 0


def test_bench_embedding(hub: typer.Typer) -> None:
    report = run(hub, ["bench", "embedding", "--texts", "8", "--callers", "1", "--callers", "2",
                       "--runtime", "torch"])
    assert report["texts_per_level"] == 8 and set(report["levels"]) == {"1", "2"}
    for row in report["levels"].values():
        assert row["bare_torch"] > 0 and row["server_torch"] > 0
        assert row["ratio_server_torch"] == pytest.approx(row["server_torch"] / row["bare_torch"], abs=0.01)
    assert report["servers"]["torch"]["runtime"] == "torch"


def test_bench_backend(hub: typer.Typer, own_database: str, embedding_server: str, tmp_path: Path,
                       monkeypatch: pytest.MonkeyPatch) -> None:
    eval_data = tmp_path / "eval-data"
    (eval_data / "pdfs").mkdir(parents=True)
    (eval_data / "pdfs" / "travel_rules.pdf").write_bytes(make_pdf(["\n".join(DOCUMENT)]))
    (eval_data / "hotpotqa").mkdir()
    write_hotpot(eval_data / "hotpotqa" / "dev_distractor_300.jsonl")  # the hub's web: a closed local corpus

    def session_hub(data_dir: Path, **kwargs: Any) -> AbstractContextManager[OfflineHub]:
        # The session's embedding server and a database of its own instead of new ones; no heap freeze in
        # the test process.
        kwargs.update(database_url=own_database, embedding_url=embedding_server, freeze_heap=False)
        return offline_hub(data_dir, **kwargs)

    monkeypatch.setattr(backend_cli, "offline_hub", session_hub)
    report = run(hub, ["bench", "backend", "--chats", "3", "--eval-data", str(eval_data),
                       "--pdf", "travel_rules.pdf"])
    assert report["pdf"] == "travel_rules.pdf" and report["chunks"] >= 1 and report["warmup_answered"]
    [level] = report["levels"]
    assert level["chats"] == level["completed"] == 3 and level["errors"] == 0
    assert 0 < level["first_status_p50_ms"] <= level["answer_p50_ms"] and level["chats_per_s"] > 0
    assert report["startup_s"] > 0 and report["replicas"] == {}
