"""`set.toml`: which document of a set is rendered to which format, with which options.

    [set]
    name = "formats_dev"            # the cache folder's name (default: the folder's name)
    answers = "spans"               # the QA items' answers: "spans" of their evidence (default) or "written"
                                    # replies (`hub eval check-sets` then holds only the evidence to the text)

    [[document]]
    file = "flask_configuration_manual.docx"   # the rendered file's name
    format = "docx"                             # one of FORMATS
    source = "text/flask_configuration_manual.txt"
    [document.options]                          # the format's options (render.py, pdf.py, scan.py)
    header = "…"
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

#: Formats a document can be rendered to. `csv`, `html` and `text` copy their source unchanged.
FORMATS = ("docx", "xlsx", "pptx", "hwpx", "hwp", "csv", "html", "text", "text-pdf", "scan-pdf", "scan-png",
           "scan-tiff")

_SAFE_NAME = re.compile(r"^[\w.\-]+$")


class SetError(ValueError):
    """A set's `set.toml` or source text is wrong; the message says where."""


@dataclass(frozen=True)
class DocumentSpec:
    """One rendered document: its file name, format, source text file and format options."""

    file: str
    format: str
    source: Path
    options: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class SetSpec:
    """A set folder and its documents."""

    name: str
    folder: Path
    documents: tuple[DocumentSpec, ...]
    written_answers: bool = False


def load_set(folder: Path) -> SetSpec:
    """Read and check `folder/set.toml` (raises `SetError` naming the file and the wrong entry)."""
    path = folder / "set.toml"
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise SetError(f"{path}: no set.toml") from exc
    except tomllib.TOMLDecodeError as exc:
        raise SetError(f"{path}: {exc}") from exc
    name = str(data.get("set", {}).get("name", folder.name))
    answers = data.get("set", {}).get("answers", "spans")
    if answers not in ("spans", "written"):
        raise SetError(f"{path}: [set] answers must be \"spans\" or \"written\" (got {answers!r})")
    entries = data.get("document", [])
    if not isinstance(entries, list) or not entries:
        raise SetError(f"{path}: no [[document]] entries")
    documents: list[DocumentSpec] = []
    seen: set[str] = set()
    for number, entry in enumerate(entries, 1):
        where = f"{path}: document {number}"
        unknown = set(entry) - {"file", "format", "source", "options"}
        if unknown:
            raise SetError(f"{where}: unknown keys {sorted(unknown)}")
        file, fmt, source = entry.get("file"), entry.get("format"), entry.get("source")
        if not isinstance(file, str) or not _SAFE_NAME.match(file):
            raise SetError(f"{where}: `file` must be a plain file name (got {file!r})")
        if file in seen:
            raise SetError(f"{where}: {file} is named twice")
        seen.add(file)
        if fmt not in FORMATS:
            raise SetError(f"{where} ({file}): unknown format {fmt!r}; known: {', '.join(FORMATS)}")
        if not isinstance(source, str):
            raise SetError(f"{where} ({file}): `source` must name a text file of the set")
        source_path = (folder / source).resolve()
        if folder.resolve() not in source_path.parents:
            raise SetError(f"{where} ({file}): source {source!r} is outside the set folder")
        if not source_path.is_file():
            raise SetError(f"{where} ({file}): source {source!r} does not exist")
        options = entry.get("options", {})
        if not isinstance(options, dict):
            raise SetError(f"{where} ({file}): `options` must be a table")
        documents.append(DocumentSpec(file, fmt, source_path, options))
    return SetSpec(name, folder, tuple(documents), written_answers=answers == "written")
