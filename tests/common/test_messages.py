"""The message catalog: every entry complete in both languages, one lookup for all areas."""

from __future__ import annotations

import string

import pytest

from ai_llm.common.messages import catalog, language_or_default, message


def _fields(text: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_entry_has_korean_and_english_with_the_same_placeholders() -> None:
    entries = catalog()
    assert len(entries) >= 20  # every area's messages are in the catalog
    for key, texts in entries.items():
        assert texts["ko"].strip() and texts["en"].strip(), key
        assert _fields(texts["ko"]) == _fields(texts["en"]), key


def _value(spec: str) -> object:
    """A value for a placeholder: a number where its format spec wants one (`{n:,}`, `{cost:.4f}`), else text."""
    return 1234 if spec and spec[-1] in "bcdeEfFgGnosxX%," else "XYZ"


def test_every_entry_formats_in_both_languages_and_an_unknown_language_reads_korean() -> None:
    for key, texts in catalog().items():
        specs = {name: spec for _, name, spec, _ in string.Formatter().parse(texts["en"]) if name}
        values = {name: _value(spec or "") for name, spec in specs.items()}
        korean, english = message(key, "ko", **values), message(key, "en", **values)
        assert message(key, "fr", **values) == korean != english or texts["ko"] == texts["en"], key
        for name, value in values.items():  # every value shows in both languages
            shown = f"{value:,}" if isinstance(value, int) and "," in specs[name] else str(value)
            assert isinstance(value, int) or (shown in korean and shown in english), (key, name)


def test_unknown_key_is_an_error_and_language_defaults() -> None:
    with pytest.raises(KeyError):
        message("nowhere.nothing", "ko")
    assert language_or_default(None) == "ko"
    assert language_or_default("en") == "en"
    assert language_or_default("de") == "ko"
