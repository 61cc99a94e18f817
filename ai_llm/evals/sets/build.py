"""Render a set's documents into a folder, and find the rendered folder a `--docs` path means."""

from __future__ import annotations

import hashlib
import json
import shutil
from dataclasses import dataclass
from pathlib import Path

from ai_llm.evals.sets import markup
from ai_llm.evals.sets.pdf import render_text_pdf
from ai_llm.evals.sets.render import render_docx, render_hangul, render_pptx, render_xlsx
from ai_llm.evals.sets.scan import render_scan
from ai_llm.evals.sets.spec import DocumentSpec, SetError, SetSpec, load_set

REPO = Path(__file__).resolve().parents[3]
SETS_ROOT = REPO / "benchmarks" / "data"
STAMP = ".build.json"
#: The package's modules that decide a rendered file's bytes (checking and the command line do not).
RENDERING_MODULES = ("build.py", "markup.py", "pdf.py", "render.py", "scan.py", "sources.py", "spec.py")


def default_cache() -> Path:
    """Where rendered sets go unless told otherwise: `.data/eval-sets/` of the repository."""
    return REPO / ".data" / "eval-sets"


def find_sets(root: Path = SETS_ROOT) -> list[Path]:
    """The set folders (those with a `set.toml`) under `root`, by name."""
    return sorted(p.parent for p in root.glob("*/set.toml"))


def _digest(spec: SetSpec) -> str:
    """What the rendered files depend on: the set's files and the builder's code."""
    sha = hashlib.sha256()
    paths = [spec.folder / "set.toml", *(d.source for d in spec.documents),
             *(Path(__file__).with_name(module) for module in RENDERING_MODULES)]
    for path in paths:
        sha.update(path.name.encode() + b"\0" + path.read_bytes() + b"\0")
    return sha.hexdigest()


def render_document(document: DocumentSpec, out: Path, cache: Path) -> Path:
    """Render one document to `out/<file>` and return its path."""
    target = out / document.file
    if document.format in ("csv", "html", "text"):
        shutil.copyfile(document.source, target)
        return target
    try:
        parts = markup.parse(document.source.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise SetError(f"{document.source}: {exc}") from exc
    options = document.options
    try:
        if document.format == "docx":
            render_docx(parts, options, target)
        elif document.format == "pptx":
            render_pptx(parts, options, target)
        elif document.format == "xlsx":
            render_xlsx(parts, options, target)
        elif document.format in ("hwpx", "hwp"):
            if target.suffix != "." + document.format:
                raise SetError(f"a {document.format} document's file name must end in .{document.format}")
            render_hangul(parts, options, target)
        elif document.format == "text-pdf":
            render_text_pdf(parts, options, cache, target)
        else:
            render_scan(parts, document.format, options, cache, target)
    except SetError as exc:
        raise SetError(f"{document.source} ({document.file}): {exc}") from exc
    return target


@dataclass(frozen=True)
class Built:
    """A rendered set: its folder, its files, and whether they were rendered now or were up to date."""

    name: str
    folder: Path
    files: list[str]
    rendered: bool


def build_set(folder: Path, out: Path | None = None, *, force: bool = False) -> Built:
    """Render the set at `folder` into `out` (default `default_cache()/<set name>`), unless the files there were
    rendered from the same sources by the same builder code (`force` renders anyway)."""
    spec = load_set(folder)
    cache = default_cache()
    target = out if out is not None else cache / spec.name
    digest = _digest(spec)
    files = [d.file for d in spec.documents]
    stamp = target / STAMP
    if not force and stamp.is_file() and all((target / f).is_file() for f in files):
        try:
            if json.loads(stamp.read_text(encoding="utf-8")).get("digest") == digest:
                return Built(spec.name, target, files, rendered=False)
        except (ValueError, OSError):
            pass
    target.mkdir(parents=True, exist_ok=True)
    stamp.unlink(missing_ok=True)
    for document in spec.documents:
        render_document(document, target, cache)
    stamp.write_text(json.dumps({"set": spec.name, "digest": digest, "files": files}, indent=1) + "\n",
                     encoding="utf-8")
    return Built(spec.name, target, files, rendered=True)


def set_folder_of(docs: Path) -> Path | None:
    """The set a `--docs` path names: the set folder itself, or its `docs/` folder when that holds no files
    (a set whose documents are rendered, not committed)."""
    if (docs / "set.toml").is_file():
        return docs
    parent = docs.parent
    if docs.name == "docs" and (parent / "set.toml").is_file() and not (docs.is_dir() and any(docs.iterdir())):
        return parent
    return None


def resolve_docs(docs: Path) -> Path:
    """The folder of documents `docs` means: a set's rendered folder (built now when missing or stale), or
    `docs` itself for a plain folder of documents."""
    folder = set_folder_of(docs)
    if folder is None:
        return docs
    return build_set(folder).folder
