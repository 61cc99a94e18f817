"""The hub's one message catalog: every user-facing text (status lines, replies, report headings) in Korean
and English, and one lookup.

Each area keeps its entries in a module of this package (`orchestrator.py`, `rag.py`, …) as
`MESSAGES = {"key": {"ko": "…", "en": "…"}}`; keys are looked up as `"<module>.<key>"`. Korean is the
default (the users are Korean teams); an unknown language falls back to it. Placeholders are
`str.format` fields (a literal brace is doubled), and both languages of an entry name the same ones (checked by a test).

```python
from ai_llm.common.messages import message
message("rag.searching", "en", n=3)   # '📚 Searching internal documents with 3 queries…'
```
"""

from __future__ import annotations

import functools
import importlib
import pkgutil
from typing import Any

DEFAULT_LANGUAGE = "ko"
LANGUAGES = ("ko", "en")


@functools.cache
def catalog() -> dict[str, dict[str, str]]:
    """Every entry of every area module, keyed `"<module>.<key>"`."""
    entries: dict[str, dict[str, str]] = {}
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{__name__}.{info.name}")
        for key, texts in getattr(module, "MESSAGES", {}).items():
            missing = [lang for lang in LANGUAGES if lang not in texts]
            if missing:
                raise ValueError(f"message {info.name}.{key} lacks {', '.join(missing)}")
            entries[f"{info.name}.{key}"] = dict(texts)
    return entries


def message(key: str, language: str = DEFAULT_LANGUAGE, /, **fields: Any) -> str:
    """The text of `key` ("<module>.<key>") in `language` (Korean when unknown), formatted with `fields`.

    Raises:
        KeyError: no such message (a bug in the caller, never user input).
    """
    texts = catalog()[key]
    text = texts.get(language) or texts[DEFAULT_LANGUAGE]
    return text.format(**fields)


def language_or_default(language: str | None) -> str:
    """`language` when the catalog has it, else Korean."""
    return language if language in LANGUAGES else DEFAULT_LANGUAGE
