"""How every `hub` command prints its result: one JSON object with `--json`, else readable text."""

from __future__ import annotations

import json
from typing import Any

import typer


def emit(payload: dict[str, Any], as_json: bool, text: str | None = None) -> None:
    """Print one JSON object (`--json`) or a human-readable text (the JSON, indented, when none is given)."""
    if as_json or text is None:
        typer.echo(json.dumps(payload, ensure_ascii=False, indent=2, default=str))
    else:
        typer.echo(text)
