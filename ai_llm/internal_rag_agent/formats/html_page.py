"""Web pages saved as HTML: the main content only (trafilatura drops navigation, cookie banners, footers).

trafilatura's Markdown output keeps headings (`#`), lists and tables; emphasis marks are removed so a quoted
sentence reads as on the page. Sections are cut at headings (`structure.sections_from_blocks`).
"""

from __future__ import annotations

from ai_llm.internal_rag_agent.formats.structure import (
    DocumentError,
    Section,
    markdown_as_read,
    markdown_blocks,
    sections_from_blocks,
)


def html_sections(text: str) -> list[Section]:
    import trafilatura

    markdown = trafilatura.extract(text, output_format="markdown", include_tables=True, include_formatting=True,
                                   include_comments=False, include_images=False, favor_recall=True)
    if not markdown or not markdown.strip():
        raise DocumentError("the web page has no main text to index (only navigation or scripts).", "no_text")
    return sections_from_blocks(markdown_blocks(markdown_as_read(markdown)), articles=True)
