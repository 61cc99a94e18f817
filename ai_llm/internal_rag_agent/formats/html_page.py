"""Web pages saved as HTML: the main content only (trafilatura drops navigation, cookie banners, footers).

trafilatura's Markdown output keeps headings (`#`), lists and tables; emphasis marks are removed so a quoted
sentence reads as on the page. Sections are cut at headings (`structure.sections_from_blocks`).
"""

from __future__ import annotations

import re

from ai_llm.internal_rag_agent.formats.structure import (
    DocumentError,
    Section,
    markdown_blocks,
    sections_from_blocks,
)

_EMPHASIS = re.compile(r"(\*\*|__)(.+?)\1|(?<![\w*])\*(?!\s)(.+?)(?<!\s)\*(?![\w*])")
#: Code in trafilatura's Markdown (fenced blocks and inline spans), whose `*` and `_` are the code's own.
_CODE = re.compile(r"```.*?```|`[^`\n]+`", re.S)


def _without_emphasis(markdown: str) -> str:
    """The Markdown with its bold and italic marks removed outside code (`__init__`, `**kwargs` stay)."""
    def unmark(text: str) -> str:
        return _EMPHASIS.sub(lambda m: m.group(2) or m.group(3) or "", text)

    parts: list[str] = []
    position = 0
    for code in _CODE.finditer(markdown):
        parts += [unmark(markdown[position:code.start()]), code.group()]
        position = code.end()
    return "".join([*parts, unmark(markdown[position:])])


def html_sections(text: str) -> list[Section]:
    import trafilatura

    markdown = trafilatura.extract(text, output_format="markdown", include_tables=True, include_formatting=True,
                                   include_comments=False, include_images=False, favor_recall=True)
    if not markdown or not markdown.strip():
        raise DocumentError("the web page has no main text to index (only navigation or scripts).", "no_text")
    plain = _without_emphasis(markdown)
    return sections_from_blocks(markdown_blocks(plain), articles=True)
