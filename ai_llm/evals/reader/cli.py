"""`hub train reader`: the RAG agent's reader model, trained from development data (docs/models/reader.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import get_settings


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub train reader`."""
    train_app = typer.Typer(help="Train the models the project ships, from development data.", no_args_is_help=True)
    app.add_typer(train_app, name="train")

    @train_app.command("reader")
    def train_reader(
        recollect: Annotated[bool, typer.Option(help="ask the development sets again instead of reading the "
                                                     "cached candidates (.data/reader)")] = False,
        sets: Annotated[str | None, typer.Option(help="comma-separated development set names (default: all)")] = None,
        output: Annotated[Path | None, typer.Option(help="where to write the model; the question encoder's layers go beside it "
                                                             "(default: the shipped files)")]
        = None,
        ablate: Annotated[bool, typer.Option(
            "--ablate", help="measure each hand rule of evidence selection and no-answer: the shipped design "
                             "without it, on the same writer-disjoint folds (writes nothing)")] = False,
        followers: Annotated[bool, typer.Option(
            "--followers", help="measure the rules for the further quoted sentences: leave-one-writer-out on the "
                                "development sets and on the parallel-entity set (writes nothing)")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Collect the development sets' candidate sentences, compare the reader designs on writers they were
        not trained on, and write the better one with its threshold (docs/models/reader.md)."""
        from ai_llm.evals.reader.training import all_sets, run
        from ai_llm.internal_rag_agent.reader.model import MODEL_PATH

        chosen = all_sets()
        if sets:
            names = {n.strip() for n in sets.split(",") if n.strip()}
            unknown = names - {d.name for d in chosen}
            if unknown:
                typer.echo(f"unknown development sets: {', '.join(sorted(unknown))}; "
                           f"choose from: {', '.join(d.name for d in chosen)}", err=True)
                raise typer.Exit(2)
            chosen = tuple(d for d in chosen if d.name in names)
        if followers:
            from ai_llm.evals.reader.followers import measure

            report = measure(get_settings(), chosen, echo=lambda line: typer.echo(line, err=True))
            emit(report, as_json, json.dumps(report, indent=1, ensure_ascii=False))
            return
        report = run(get_settings(), chosen, recollect, output or MODEL_PATH,
                     echo=lambda line: typer.echo(line, err=True), ablation=ablate)
        emit(report, as_json, json.dumps({k: v for k, v in report.items() if k != "curve"}, indent=1,
                                         ensure_ascii=False))

