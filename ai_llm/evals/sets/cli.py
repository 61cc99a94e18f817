"""`hub eval build-sets`: render evaluation sets' documents into the cache."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ai_llm.common.cli_output import emit


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub eval build-sets`."""

    @eval_app.command("build-sets")
    def build_sets(
        set_name: Annotated[list[str] | None, typer.Option(
            "--set", help="a set's folder name under benchmarks/data (repeatable; default: every set with a "
                          "set.toml)")] = None,
        out: Annotated[Path | None, typer.Option(
            help="render into OUT/<set> instead of .data/eval-sets/<set>")] = None,
        root: Annotated[Path | None, typer.Option(help="folder holding the set folders (default "
                                                       "benchmarks/data)")] = None,
        force: Annotated[bool, typer.Option(help="render even when the cache is up to date")] = False,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Render each set's documents from its text and set.toml (deterministic; skipped when up to date)."""
        from ai_llm.evals.sets.build import SETS_ROOT, build_set, find_sets
        from ai_llm.evals.sets.spec import SetError

        base = root or SETS_ROOT
        available = {p.name: p for p in find_sets(base)}
        names = set_name or sorted(available)
        unknown = [n for n in names if n not in available]
        if unknown:
            typer.echo(f"no set {', '.join(unknown)} under {base} (sets: {', '.join(sorted(available))})", err=True)
            raise typer.Exit(2)
        built = []
        for name in names:
            try:
                result = build_set(available[name], out / name if out else None, force=force)
            except SetError as exc:
                typer.echo(f"{name}: {exc}", err=True)
                raise typer.Exit(1) from exc
            built.append({"set": result.name, "folder": str(result.folder), "files": len(result.files),
                          "rendered": result.rendered})
        report = {"sets": built}
        emit(report, as_json, "\n".join(f"{b['set']}: {b['files']} files in {b['folder']}"
                                        f"{'' if b['rendered'] else ' (up to date)'}" for b in built))
