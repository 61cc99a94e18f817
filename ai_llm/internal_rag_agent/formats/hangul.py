"""Hangul word-processor documents: HWPX (OWPML, a zip of XML) and HWP 5 (a compound binary file).

Both are read by `python-hwpx` (Apache-2.0), which opens either into one document model; its Markdown export
keeps paragraphs and tables in reading order. Sections follow the document's own numbering: `제N장` chapters
and `제N조(…)` articles (`structure.sections_from_blocks`), so a quote is cited as the article it sits in.
"""

from __future__ import annotations

import io
import warnings
import zipfile

from ai_llm.internal_rag_agent.formats.structure import (
    DocumentError,
    Section,
    markdown_blocks,
    sections_from_blocks,
)


def hangul_sections(data: bytes) -> list[Section]:
    from hwpx import HwpxDocument
    from hwpx.errors import HwpxError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the library warns about its own API moves
            document = HwpxDocument.open(io.BytesIO(data))
            markdown = document.export_markdown()
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
    return sections_from_blocks(markdown_blocks(markdown), articles=True)
