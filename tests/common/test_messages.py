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


def test_lookup_formats_and_falls_back_to_korean() -> None:
    key = next(k for k, t in catalog().items() if not _fields(t["ko"]))
    assert message(key, "fr") == catalog()[key]["ko"]
    assert message(key, "en") == catalog()[key]["en"]
    with_field = next((k, t) for k, t in catalog().items() if _fields(t["en"]))
    values = {name: "XYZ" for name in _fields(with_field[1]["en"])}
    try:
        assert "XYZ" in message(with_field[0], "en", **values)
    except (ValueError, TypeError):  # a numeric format spec: give it a number
        assert message(with_field[0], "en", **{n: 7 for n in values})


def test_unknown_key_is_an_error_and_language_defaults() -> None:
    with pytest.raises(KeyError):
        message("nowhere.nothing", "ko")
    assert language_or_default(None) == "ko"
    assert language_or_default("en") == "en"
    assert language_or_default("de") == "ko"
