"""Report-writing agent commands (none yet beyond `hub ask --agent report`)."""

from __future__ import annotations

import typer


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """No extra commands: reports are requested with `hub ask --agent report "…"`."""
