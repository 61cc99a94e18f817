"""`hub eval intent`, `hub bench orchestrator` and `hub bench pools` (in-process Typer runner, real embedding
server for the document catalog and real benchmark agent processes)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ai_llm.common.settings import get_settings
from ai_llm.evals.orchestrator.cli import register

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

@pytest.fixture
def hub() -> Iterator[typer.Typer]:
    app, eval_app, bench_app, search_app = (typer.Typer() for _ in range(4))
    app.add_typer(eval_app, name="eval")
    app.add_typer(bench_app, name="bench")
    register(app, eval_app, bench_app, search_app)
    get_settings.cache_clear()
    yield app
    get_settings.cache_clear()


def run(app: typer.Typer, args: list[str], env: dict[str, str] | None = None):  # type: ignore[no-untyped-def]
    return CliRunner().invoke(app, args, env=env)


def test_eval_intent_reports_accuracy_and_confusion_matrix(hub: typer.Typer, embedding_server: str,
                                                           tmp_path: Path) -> None:
    rows = [{"message": "사내 보안 지침에서 비밀번호 규정 찾아줘", "intent": "INTERNAL_SEARCH"},
            {"message": "오늘 원달러 환율 알려줘", "intent": "WEB_SEARCH"},
            {"message": "Delete the old onboarding guide", "intent": "FILE_OPERATION"},
            {"message": "Hello there", "intent": "HYBRID"}]  # deliberately mislabelled: must count as an error
    path = tmp_path / "set.jsonl"
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n\n", encoding="utf-8")
    docs = tmp_path / "docs"  # the planner's catalog and probe over one small document
    docs.mkdir()
    (docs / "onboarding_guide.md").write_text("# Onboarding guide\n\nNew staff get a laptop and a badge on their "
                                              "first day. Passwords change every 90 days.\n", encoding="utf-8")
    result = run(hub, ["eval", "intent", "--input", str(path), "--docs", str(docs), "--json"],
                 {"EMBEDDING_URL": embedding_server})
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["catalog_documents"] == ["onboarding_guide.md"] and report["probe_used"]
    assert report["n"] == 4 and report["accuracy"] == 0.75 and report["mode"] == "offline"
    matrix = report["confusion_matrix"]
    assert sum(sum(row.values()) for row in matrix.values()) == 4
    assert matrix["HYBRID"]["DIRECT"] == 1 and matrix["WEB_SEARCH"]["WEB_SEARCH"] == 1
    assert report["errors"] == [{"message": "Hello there", "gold": "HYBRID", "predicted": "DIRECT"}]
    assert report["per_intent"]["HYBRID"]["recall"] == 0.0


@pytest.mark.parametrize(("content", "expected"), [
    ('{"message": "hi", "intent": "DIRECT"}\n{"message": "oops"\n', ":2: not valid JSON"),
    ('{"message": "hi", "intent": "SMALL_TALK"}\n', "intent 'SMALL_TALK' is not one of"),
    ('{"message": "  ", "intent": "DIRECT"}\n', ":1: 'message' must be a non-empty string"),
    ('["message", "intent"]\n', ":1: expected a JSON object"),
    ("\n\n", "no labelled lines"),
])
def test_eval_intent_refuses_bad_files_clearly(hub: typer.Typer, tmp_path: Path, content: str,
                                               expected: str) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content, encoding="utf-8")
    result = run(hub, ["eval", "intent", "--input", str(path)])
    assert result.exit_code == 2 and expected in result.output


def test_eval_intent_missing_file(hub: typer.Typer, tmp_path: Path) -> None:
    result = run(hub, ["eval", "intent", "--input", str(tmp_path / "nope.jsonl")])
    assert result.exit_code == 2 and "no such file" in result.output


@pytest.mark.parametrize("args", [["--ks", "2,x"], ["--ks", "0"], ["--delay", "0"], ["--hops", "0"]])
def test_bench_refuses_bad_options(hub: typer.Typer, args: list[str]) -> None:
    assert run(hub, ["bench", "orchestrator", *args]).exit_code == 2


def test_bench_runs_against_real_sleeping_agents(hub: typer.Typer) -> None:
    result = run(hub, ["bench", "orchestrator", "--ks", "2", "--delay", "0.3", "--repeats", "1", "--hops", "3",
                       "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    fan = report["fan_out"]["k2"]
    assert fan["k"] == 2 and fan["ratio"] > 0 and fan["serial_baseline_ratio"] > 0
    assert fan["slowest_step_ms"] >= 300  # each step includes the agent's 0.3 s sleep
    assert report["hop"]["n"] == 3 and report["hop"]["overhead_p95_ms"] >= report["hop"]["overhead_p50_ms"]
    # CPU per call for each measure, the caller's and the server's (a server's is read in clock ticks, so
    # three calls may round to zero; the caller's is this process's CPU clock).
    cpu = report["hop"]["cpu_ms_per_call"]
    assert set(cpu) == {"hop", "a2a_sdk_echo", "plain_http_echo", "hop_nodelay_socket"}
    for measure in cpu.values():
        assert measure["client"] > 0 and measure["server"] >= 0


@pytest.mark.parametrize("args", [["--concurrent", "4,x"], ["--concurrent", "0"], ["--rounds", "0"]])
def test_bench_pools_refuses_bad_options(hub: typer.Typer, args: list[str]) -> None:
    assert run(hub, ["bench", "pools", *args]).exit_code == 2


def test_bench_pools_measures_both_clients_against_a_real_streaming_server(hub: typer.Typer) -> None:
    result = run(hub, ["bench", "pools", "--concurrent", "3,6", "--rounds", "1", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert [row["concurrent"] for row in report["levels"]] == [3, 6]
    for row in report["levels"]:  # every stream was read to its end, so each client used CPU
        assert row["one_pool_cpu_ms"] > 0 and row["pool_shards_cpu_ms"] > 0
        assert row["ratio"] == pytest.approx(row["one_pool_cpu_ms"] / row["pool_shards_cpu_ms"], abs=0.02)
