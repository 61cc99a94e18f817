"""`hub eval files` scores parsed instructions against expectations and reports failures."""

from __future__ import annotations

import json
from pathlib import Path

import typer
from typer.testing import CliRunner

from ai_llm.evals.files.cli import register
from ai_llm.evals.files.evaluation import evaluate


def test_eval_counts_right_and_wrong_expectations(tmp_path: Path) -> None:
    spec = {"now": "2026-11-25T15:00:00+09:00",
            "catalogue": [{"name": "guide.pdf", "age_days": 1}, {"name": "report.md", "age_days": 9}],
            "cases": [{"id": "ko1", "text": "지난주에 올린 보고서 목록", "operation": "list", "targets": ["report.md"]},
                      {"id": "en1", "text": "delete the guide", "operation": "delete", "targets": ["report.md"]},
                      {"id": "en2", "text": "delete all files", "operation": "delete", "targets": "ALL",
                       "confirm": True}]}
    path = tmp_path / "eval.json"
    path.write_text(json.dumps(spec, ensure_ascii=False), encoding="utf-8")
    result = evaluate(path)
    assert result["cases"] == 3 and result["operation_accuracy"] == 1.0
    assert result["target_accuracy"] == round(2 / 3, 3) and result["confirmation_accuracy"] == 1.0
    assert [f["id"] for f in result["failures"]] == ["en1"] and result["failures"][0]["targets"] == ["guide.pdf"]

    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    register(app, eval_app, typer.Typer(), typer.Typer())
    out = CliRunner().invoke(app, ["eval", "files", "--data", str(path), "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.output)["target_accuracy"] == result["target_accuracy"]
