"""`hub eval web` refuses bad input clearly (no process is started for it)."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from ai_llm.evals.web.cli import register


def _app() -> typer.Typer:
    app, eval_app = typer.Typer(), typer.Typer()
    app.add_typer(eval_app, name="eval")
    register(app, eval_app, typer.Typer(), typer.Typer())
    return app


def test_eval_web_bad_inputs(tmp_path: Path) -> None:
    runner = CliRunner()
    missing = runner.invoke(_app(), ["eval", "web", "--hotpotqa", str(tmp_path / "nope.jsonl")])
    assert missing.exit_code == 2 and "does not exist" in missing.output
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"question": "q", "answer": "a", "supporting_facts": [], "context": []}\n{not json\n')
    bad = runner.invoke(_app(), ["eval", "web", "--hotpotqa", str(broken)])
    assert bad.exit_code == 2 and "broken.jsonl:2" in bad.output
    wrong = tmp_path / "wrong.jsonl"
    wrong.write_text('{"question": "q"}\n')
    assert "missing HotpotQA keys" in runner.invoke(_app(), ["eval", "web", "--hotpotqa", str(wrong)]).output
    depth = runner.invoke(_app(), ["eval", "web", "--hotpotqa", str(broken), "--depth", "deep"])
    assert depth.exit_code == 2 and "--depth" in depth.output


def test_eval_web_bad_unanswerable_set_and_skip(tmp_path: Path) -> None:
    runner = CliRunner()
    hotpot = tmp_path / "hotpot.jsonl"
    hotpot.write_text('{"question": "q", "answer": "a", "supporting_facts": [], "context": []}\n')
    negatives = tmp_path / "negatives.jsonl"
    negatives.write_text('{"question": "What is the weather in Seoul?"}\n{"kind": "off_corpus"}\n')
    bad = runner.invoke(_app(), ["eval", "web", "--hotpotqa", str(hotpot), "--unanswerable", str(negatives)])
    assert bad.exit_code == 2 and "negatives.jsonl:2" in bad.output and "question" in bad.output
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n")
    assert "holds no questions" in runner.invoke(
        _app(), ["eval", "web", "--hotpotqa", str(hotpot), "--unanswerable", str(empty)]).output
    skip = runner.invoke(_app(), ["eval", "web", "--hotpotqa", str(hotpot), "--skip", "-1"])
    assert skip.exit_code == 2 and "--skip" in skip.output
