"""Reading JSONL data files (corpora, evaluation sets) with errors that name the file and line."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any


def iter_jsonl(path: Path, error: type[Exception], missing: str = "{path} does not exist") -> Iterator[tuple[int, Any]]:
    """Yield `(line number, parsed value)` for each non-blank line of `path`.

    Args:
        path: the JSONL file.
        error: exception class raised for a missing file or a line that is not JSON.
        missing: message for a missing file (`{path}` is filled in).
    """
    if not path.is_file():
        raise error(missing.format(path=path))
    with path.open(encoding="utf-8") as handle:
        for lineno, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                value = json.loads(line)
            except json.JSONDecodeError as exc:
                raise error(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
            yield lineno, value
