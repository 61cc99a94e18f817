"""Hangul word-processor documents: HWPX (OWPML, a zip of XML) and HWP 5 (a compound binary file).

Both are read by `python-hwpx` (Apache-2.0), which opens either into one document model; its Markdown export
keeps paragraphs and tables in reading order. Sections follow the document's own outline: paragraphs in an
outline style (Hangul's `개요 N`, or a `Heading N` / `제목 N` style) are headings of that level, and a
regulation's `제N장` chapters, `제N조(…)` articles, `부칙` and annex tables and forms (`[별표 1] …`, `별지 제1호 서식`;
`structure.sections_from_blocks`) cut it further, so a quote is cited as the heading, article or annex it sits in.
"""

from __future__ import annotations

import io
import re
import warnings
import zipfile
from collections.abc import Sequence

from ai_llm.internal_rag_agent.formats.structure import (
    Block,
    DocumentError,
    Section,
    markdown_blocks,
    sections_from_blocks,
)

#: A paragraph style that makes a heading, and its level: Hangul's outline styles (`개요 1` … `개요 10`,
#: English `Outline 1`), or a style named like Word's (`Heading 2`, `제목 2`).
_OUTLINE_STYLE = re.compile(r"^\s*(?:개요|outline|heading|제목)\s*(\d{1,2})\s*$", re.I)


def hangul_sections(data: bytes) -> list[Section]:
    from hwpx import HwpxDocument
    from hwpx.errors import HwpxError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the library warns about its own API moves
            document = HwpxDocument.open(io.BytesIO(data))
            markdown = document.export_markdown()
            headings = outline_headings(document)
    except HwpxError as exc:
        message = str(exc)
        if "password" in message.lower() or "encrypted" in message.lower():
            raise DocumentError("the HWP document is password-protected or a distribution (read-only) copy "
                                "whose text is encrypted; save an unprotected copy and upload it again.",
                                "encrypted") from exc
        raise DocumentError(f"the HWP document is damaged and cannot be read ({message}).", "corrupt") from exc
    except (zipfile.BadZipFile, KeyError, ValueError, OSError, IndexError, AttributeError) as exc:
        raise DocumentError(f"the HWP document is damaged and cannot be read ({type(exc).__name__}).",
                            "corrupt") from exc
    return sections_from_blocks(mark_headings(markdown_blocks(markdown), headings), articles=True)


def outline_headings(document: object) -> list[tuple[int, str]]:
    """(level, text) of the document's paragraphs in an outline style (`_OUTLINE_STYLE`), in order."""
    levels: dict[str, int] = {}
    for key, style in getattr(document, "styles", {}).items():
        for name in (getattr(style, "name", None), getattr(style, "eng_name", None)):
            match = _OUTLINE_STYLE.match(name or "")
            if match:
                levels[str(key)] = max(1, int(match.group(1)))
                break
    if not levels:
        return []
    headings: list[tuple[int, str]] = []
    for paragraph in getattr(document, "paragraphs", []):
        level = levels.get(str(getattr(paragraph, "style_id_ref", "")))
        text = " ".join(str(getattr(paragraph, "text", "") or "").split())
        if level and text:
            headings.append((level, text))
    return headings


def mark_headings(blocks: Sequence[Block], headings: Sequence[tuple[int, str]]) -> list[Block]:
    """The export's paragraphs that are the outline's headings, marked with their level: each heading is
    looked for, in order, among the paragraphs after the previous one (a heading the export wrote differently
    is left as text)."""
    marked = list(blocks)
    start = 0
    for level, text in headings:
        for i in range(start, len(marked)):
            block = marked[i]
            if block.rows is None and " ".join(block.text.split()) == text:
                marked[i] = Block(text=block.text, heading=block.heading or level)
                start = i + 1
                break
    return marked
