"""Evaluation sets as data, and the one builder that renders their documents.

A set is a folder under `benchmarks/data/` holding text only: the documents' source text (`text/*.txt`, in the
markup of `markup.py`), a `set.toml` naming which document is rendered to which format with which options
(`spec.py`), its QA file and `SOURCES.md`. `build.build_set` renders the documents into a cache folder
(`.data/eval-sets/<set>/` by default), deterministically: the same source gives the same bytes, so the same
extracted text, on every run. `hub eval build-sets` builds them; `hub eval rag` builds a set when its rendered
documents are missing (`resolve_docs`). `check.check_qa` (`hub eval check-sets`) checks a set's QA file against
its documents as the hub reads them.
"""

from __future__ import annotations

from ai_llm.evals.sets.build import build_set, default_cache, find_sets, resolve_docs
from ai_llm.evals.sets.spec import FORMATS, SetError, SetSpec, load_set

__all__ = ["FORMATS", "SetError", "SetSpec", "build_set", "default_cache", "find_sets", "load_set", "resolve_docs"]
