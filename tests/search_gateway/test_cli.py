"""`hub search stats` and `hub search corpus`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ai_llm.common.settings import get_settings
from ai_llm.search_gateway import cli
from ai_llm.search_gateway.corpus import title_for_url, wiki_url
from tests.search_gateway.conftest import hub_app


def _app() -> typer.Typer:
    return hub_app(cli.register)


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
