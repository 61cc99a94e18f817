"""`hub index` in-process (`--local`) against the session database, and a clear error when no agent runs."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import typer
from typer.testing import CliRunner

from ai_llm.common.a2a.server import free_port
from ai_llm.common.settings import get_settings
from ai_llm.internal_rag_agent.cli import register


@pytest.fixture
def hub_app(pg_url: str, embedding_server: str, tmp_path: Path,
            monkeypatch: pytest.MonkeyPatch) -> Iterator[typer.Typer]:
    monkeypatch.setenv("DATABASE_URL", pg_url)
    monkeypatch.setenv("EMBEDDING_URL", embedding_server)
    monkeypatch.setenv("DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("FILE_AGENT_URL", f"http://127.0.0.1:{free_port()}")  # nothing listens there
    get_settings.cache_clear()
    app, sub = typer.Typer(), [typer.Typer() for _ in range(3)]
    register(app, *sub)
    yield app
    get_settings.cache_clear()


def test_hub_index_local_reports_each_file(hub_app: typer.Typer, tmp_path: Path, pg_url: str) -> None:
    good = tmp_path / "docs" / "policy.md"
    good.parent.mkdir()
    good.write_text("Remote work is allowed two days per week.", encoding="utf-8")
    (tmp_path / "docs" / "image.png").write_bytes(b"\x89PNG\r\n")
    result = CliRunner().invoke(hub_app, ["index", str(tmp_path / "docs"), "--local", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout[result.stdout.index("{"):])
    statuses = {r["file_name"]: r["status"] for r in payload["results"]}
    assert statuses == {"policy.md": "success", "image.png": "error"}
    ref = str(good.resolve())
    with psycopg.connect(pg_url, autocommit=True) as conn:
        assert conn.execute("SELECT count(*) FROM document_chunks WHERE storage_ref = %s", (ref,)).fetchone() == (1,)
        conn.execute("DELETE FROM document_chunks WHERE storage_ref = %s", (ref,))


def test_hub_index_without_a_running_agent_says_so(hub_app: typer.Typer, tmp_path: Path) -> None:
    doc = tmp_path / "a.txt"
    doc.write_text("text", encoding="utf-8")
    result = CliRunner().invoke(hub_app, ["index", str(doc)])
    assert result.exit_code == 1
    assert "hub up" in result.output and "--local" in result.output
    missing = CliRunner().invoke(hub_app, ["index", str(tmp_path / "nope.pdf"), "--local"])
    assert missing.exit_code == 2 and "not found" in missing.output
