"""`hub bench gateway --pairs`: wrong hits and same-hit rate on labelled pairs, guarded and cosine-only."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ai_llm.evals.gateway import cli, pairs_benchmark
from ai_llm.evals.gateway.pairs_benchmark import PairFileError, read_pairs
from tests.search_gateway.conftest import hub_app

PAIRS = [
    {"a": "Korea GDP growth rate 2023", "b": "Korea GDP growth rate 2024", "same": False, "kind": "year",
     "lang": "en"},  # near in any embedding model: cosine above 0.85
    {"a": "원달러 환율 오늘", "b": "원엔 환율 오늘", "same": False, "kind": "currency", "lang": "ko"},
    {"a": "원달러 환율 오늘", "b": "오늘의 원달러 환율", "same": True, "kind": "particles", "lang": "ko"},
    {"a": "Python 3.12 release date", "b": "python 3.12 release date?", "same": True, "kind": "casing",
     "lang": "en"},  # exact hit
    # `b` is the first pair's `a`: served only if pairs leaked into each other's cache entries
    {"a": "Busan port container cargo", "b": "Korea GDP growth rate 2023", "same": False, "kind": "isolation",
     "lang": "en"},
]


def _app() -> typer.Typer:
    return hub_app(cli.register)


def _write(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in rows) + "\n", encoding="utf-8")
    return path


def test_pairs_bench_counts_wrong_hits_with_and_without_the_guard(
        tmp_path: Path, pg_url: str, embedding_server: str, monkeypatch: pytest.MonkeyPatch) -> None:
    pairs = _write(tmp_path / "pairs.jsonl", PAIRS)
    # The session's Postgres and embedding server instead of starting new ones; the gateways are real processes.
    monkeypatch.setattr(pairs_benchmark, "run_pairs_benchmark", functools.partial(
        pairs_benchmark.run_pairs_benchmark, database_url=pg_url, embedding_url=embedding_server,
        log_dir=tmp_path / "logs"))
    result = CliRunner().invoke(_app(), ["bench", "gateway", "--pairs", str(pairs), "--threshold", "0.85",
                                         "--baseline-threshold", "0.9999", "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)["pairs"]  # stdout only: stray stderr of other threads may interleave
    assert (report["n"], report["same"], report["different"], report["semantic_threshold"]) == (5, 2, 3, 0.85)
    assert report["wrong_hits"] == 0 and report["same_hit_rate"] == 1.0
    assert report["baseline_cosine_only"]["wrong_hits"] == 2  # the year and the currency
    assert report["baseline_cosine_only"]["same_hit_rate"] == 1.0
    # At 0.9999 no two different texts are near enough: only the exact (casing) pair is served.
    assert report["baseline_cosine_only_at"]["0.9999"]["wrong_hits"] == 0
    assert report["baseline_cosine_only_at"]["0.9999"]["same_hit_rate"] == 0.5
    assert report["a_without_results"] == 0
    kinds = report["by_kind"]
    assert set(kinds) == {"year", "currency", "particles", "casing", "isolation"}
    assert kinds["year"] == {"n": 1, "same": 0, "different": 1, "wrong_hits": 0, "same_hit_rate": None,
                             "baseline_wrong_hits": 1, "baseline_same_hit_rate": None}
    assert kinds["isolation"]["wrong_hits"] == kinds["isolation"]["baseline_wrong_hits"] == 0
    assert report["by_lang"]["ko"]["n"] == 2 and "errors" not in report


def test_pair_file_errors_name_file_and_line(tmp_path: Path) -> None:
    with pytest.raises(PairFileError, match="does not exist"):
        read_pairs(tmp_path / "missing.jsonl")
    bad = _write(tmp_path / "bad.jsonl", [{"a": "x", "b": "y", "same": True}, {"a": "x", "b": "y", "same": "no"}])
    with pytest.raises(PairFileError, match=r"bad\.jsonl:2: 'same' must be true or false"):
        read_pairs(bad)
    _write(bad, [{"a": "x", "same": True}])
    with pytest.raises(PairFileError, match=r"bad\.jsonl:1: each line needs"):
        read_pairs(bad)
    result = CliRunner().invoke(_app(), ["bench", "gateway", "--pairs", str(tmp_path / "missing.jsonl")])
    assert result.exit_code == 2 and "does not exist" in result.output
