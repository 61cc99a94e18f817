"""Every Korean text of the message catalog is Korean: a Latin-letter word in it is a name a Korean reader knows
by that name (a file format, a protocol, a product), a placeholder, a key name in backticks or a file name."""

from __future__ import annotations

import re
import string

from ai_llm.common.messages import catalog

#: Words Korean technical writing keeps in Latin letters. Each is a name, not an English word to translate.
ALLOWED = frozenset({
    # File formats: people pick and name files by these (the upload dialog, the file list).
    "PDF", "DOCX", "HWP", "HWPX", "XLSX", "PPTX", "CSV", "TXT", "HTML",
    # Protocols and interfaces named as such in Korean IT documents (there is no Korean word in use).
    "A2A", "MCP", "URL", "API", "HTTP",
    # Techniques better known by their abbreviation; a text that uses one also says it in Korean where it helps
    # ("글자 인식(OCR)").
    "LLM", "OCR",
    # Products and services the hub names (search providers, the model vendor, the database, the e5 encoder).
    "Tavily", "DuckDuckGo", "OpenAI", "Postgres", "e5",
    # Units of size and time as Korean text writes them.
    "KB", "MB", "GB", "ms",
})

# A name the person must type or find as written: a key name in backticks (`storage_ref`) or a file name with
# its extension ('보고서.md', 'A.pdf').
_LITERAL = re.compile(r"`[^`]*`|[^\s'\"(]+\.[A-Za-z0-9]{1,5}(?![A-Za-z0-9])")
# A Latin-letter word: a letter, then letters, digits or underscores (`A2A`, `e5`, `HUB_TOKEN`), Hangul allowed to
# follow directly ("PDF를").
_WORD = re.compile(r"(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_]*")


def latin_words(text: str) -> list[str]:
    """The Latin-letter words of `text` outside placeholders, literals and `ALLOWED` (single letters are not words)."""
    literal = "".join(part for part, _, _, _ in string.Formatter().parse(text))  # drops `{name}` and `{n:,}`
    words = _WORD.findall(_LITERAL.sub(" ", literal))
    return [word for word in words if len(word) > 1 and word not in ALLOWED]


def test_the_word_finder_sees_english_and_passes_names() -> None:
    assert latin_words("업로드 실패 the file is empty") == ["the", "file", "is", "empty"]
    assert latin_words("HUB_TOKEN을 설정하세요") == ["HUB_TOKEN"]
    assert latin_words("🔍 '{file_name}': 글자 인식(OCR) {page}/{pages}쪽, PDF를 A2A로") == []
    assert latin_words("`storage_ref` 값이 필요합니다 ('A.pdf 이름을 B.pdf로', {n:,}개, e5)") == []


def test_every_korean_text_of_the_catalog_is_korean() -> None:
    english = {key: words for key, texts in catalog().items() if (words := latin_words(texts["ko"]))}
    assert english == {}, f"Latin words in Korean texts (translate them, or justify a name in ALLOWED): {english}"
