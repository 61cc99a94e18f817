"""`hub eval build-sets`: render evaluation sets' documents into the cache; `hub eval check-sets`: check
their QA files against the documents as the hub reads them."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from ai_llm.common.cli_output import emit


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub eval build-sets` and `hub eval check-sets`."""

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

    @eval_app.command("check-sets")
    def check_sets(
        set_name: Annotated[list[str] | None, typer.Option(
            "--set", help="a set's folder name under benchmarks/data (repeatable; default: every set with a "
                          "rag_<set>.jsonl)")] = None,
        root: Annotated[Path | None, typer.Option(help="folder holding the set folders and their QA files "
                                                       "(default benchmarks/data)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Check each set's QA items against its documents as the hub reads them (OCR included): ids, kinds,
        the answer in the evidence, the evidence in the document and on its pages, no near-miss proxy in any
        document. Exits 1 when there is a problem."""
        from ai_llm.evals.sets.build import SETS_ROOT, resolve_docs
        from ai_llm.evals.sets.check import check_qa, find_qa_sets
        from ai_llm.evals.sets.spec import SetError, load_set

        base = root or SETS_ROOT
        available = find_qa_sets(base)
        names = set_name or sorted(available)
        unknown = [n for n in names if n not in available]
        if unknown:
            typer.echo(f"no set {', '.join(unknown)} with a rag_<set>.jsonl under {base} "
                       f"(sets: {', '.join(sorted(available))})", err=True)
            raise typer.Exit(2)
        checked: list[dict[str, Any]] = []
        for name in names:
            try:
                docs = resolve_docs(base / name / "docs")
            except SetError as exc:
                typer.echo(f"{name}: {exc}", err=True)
                raise typer.Exit(1) from exc
            qa = available[name]
            written = (base / name / "set.toml").is_file() and load_set(base / name).written_answers
            problems = check_qa(qa, docs, answer_spans=not written)
            items = sum(1 for line in qa.read_text(encoding="utf-8").splitlines() if line.strip())
            checked.append({"set": name, "qa": str(qa), "docs": str(docs), "items": items,
                            "problems": problems})
        total = sum(len(c["problems"]) for c in checked)
        emit({"sets": checked, "problems": total}, as_json,
             "\n".join(f"{c['set']}: {c['items']} items, {len(c['problems'])} "
                       f"problem{'' if len(c['problems']) == 1 else 's'}"
                       + "".join(f"\n  {p}" for p in c["problems"]) for c in checked))
        if total:
            raise typer.Exit(1)
