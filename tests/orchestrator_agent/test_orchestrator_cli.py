"""`hub classify` (in-process Typer runner): the plan only, no agent runs and no service is needed."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import typer
from typer.testing import CliRunner

from ai_llm.common.settings import get_settings
from ai_llm.orchestrator_agent.cli import register


@pytest.fixture
def hub() -> Iterator[typer.Typer]:
    app, eval_app, bench_app, search_app = (typer.Typer() for _ in range(4))
    app.add_typer(eval_app, name="eval")  # a group, as in `hub`: not collapsed into its one command
    register(app, eval_app, bench_app, search_app)
    get_settings.cache_clear()
    yield app
    get_settings.cache_clear()


def test_classify_prints_the_plan(hub: typer.Typer) -> None:
    result = CliRunner().invoke(hub, ["classify", "우리 재택근무 규정을 최신 근로기준법과 비교해줘", "--json"])
    assert result.exit_code == 0, result.output
    payload = json.loads(result.stdout)
    assert payload["intent"] == "HYBRID" and payload["planner"] == "offline"
    assert [s["agent"] for s in payload["plan"]["steps"]] == ["internal_rag", "web_research"]
    assert CliRunner().invoke(hub, ["classify", "  "]).exit_code == 2
