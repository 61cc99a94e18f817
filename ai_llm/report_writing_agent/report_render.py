"""Renders a `Report` as Markdown and as a DOCX document (python-docx).

The DOCX uses Word's own styles, so a reader's outline and navigation pane see its structure: `Title`,
`Heading 1` for the summary, each section, the conclusion and the references, `Quote` for quoted
sentences and `List Number` for the reference list. A file is cited by name and page, a web page by
title and URL; server paths never appear.
"""

from __future__ import annotations

import io

import docx
from docx.oxml.ns import qn
from docx.shared import Pt

from ai_llm.common.messages import message
from ai_llm.report_writing_agent.report_builder import Quote, Reference, Report

#: East Asian font of the body text, so Hangul renders in Word without font substitution surprises.
EAST_ASIAN_FONT = "Malgun Gothic"


def reference_line(ref: Reference) -> str:
    """`**guide.pdf**, p.13–15` or `[Title](https://…)`."""
    if ref.type == "web":
        return f"[{ref.label}]({ref.url})" if ref.url else ref.label
    return f"**{ref.label}**" + (f", {ref.page_label}" if ref.page_label else "")


def quote_source(report: Report, quote: Quote) -> str:
    """`— guide.pdf, p.33 [1]`; "" for a quote of no known source."""
    ref = report.reference(quote.reference)
    return f"— {ref.cite(quote.page)} [{ref.number}]" if ref else ""


def _header_lines(report: Report) -> list[str]:
    lines = [f"{message('report.date', report.language)}: {report.created_at:%Y-%m-%d %H:%M}"]
    if report.question:
        lines.append(f"{message('report.question', report.language)}: {report.question}")
    return lines


def _heading(report: Report, key: str) -> str:
    """The report's fixed heading `key` (summary, conclusion, references) in its language."""
    return message(f"report.{key}", report.language)


def to_markdown(report: Report) -> str:
    lines = [f"# {report.title}", ""]
    lines += [f"_{line}_  " for line in _header_lines(report)]
    lines += ["", f"## {_heading(report, 'summary')}", "", report.summary, ""]
    for section in report.sections:
        lines += [f"## {section.heading}", ""]
        for quote in section.quotes:
            source = quote_source(report, quote)
            lines += [f"> {quote.text}", *([">", f"> {source}"] if source else []), ""]
        if section.body:
            lines += [section.body, ""]
    lines += [f"## {_heading(report, 'conclusion')}", "", report.conclusion, ""]
    if report.references:
        lines += [f"## {_heading(report, 'references')}", ""]
        lines += [f"{ref.number}. {reference_line(ref)}" for ref in report.references]
        lines.append("")
    return "\n".join(lines)


def _set_east_asian_font(document: docx.document.Document) -> None:
    for name in ("Normal", "Title", "Heading 1", "Quote"):
        fonts = document.styles[name].element.get_or_add_rPr().get_or_add_rFonts()
        fonts.set(qn("w:eastAsia"), EAST_ASIAN_FONT)


def to_docx(report: Report) -> bytes:
    document = docx.Document()
    style = document.styles["Normal"]
    style.font.size = Pt(11)  # type: ignore[attr-defined]
    _set_east_asian_font(document)
    document.core_properties.title = report.title
    document.core_properties.created = report.created_at
    document.core_properties.language = report.language
    document.add_heading(report.title, level=0)
    for line in _header_lines(report):
        document.add_paragraph().add_run(line).italic = True
    document.add_heading(_heading(report, "summary"), level=1)
    for paragraph in report.summary.split("\n"):
        if paragraph.strip():
            document.add_paragraph(paragraph.strip())
    for section in report.sections:
        document.add_heading(section.heading, level=1)
        for quote in section.quotes:
            document.add_paragraph(f"“{quote.text}”", style="Quote")
            source = quote_source(report, quote)
            if source:
                document.add_paragraph(source).paragraph_format.left_indent = Pt(36)
        for paragraph in section.body.split("\n"):
            if paragraph.strip():
                document.add_paragraph(paragraph.strip())
    document.add_heading(_heading(report, "conclusion"), level=1)
    document.add_paragraph(report.conclusion)
    if report.references:
        document.add_heading(_heading(report, "references"), level=1)
        for ref in report.references:
            entry = document.add_paragraph(style="List Number")
            entry.add_run(ref.label).bold = ref.type == "file"
            if ref.type == "file" and ref.page_label:
                entry.add_run(f", {ref.page_label}")
            elif ref.type == "web" and ref.url and ref.url != ref.label:
                entry.add_run(f" — {ref.url}")
            if ref.source.get("published_at"):
                entry.add_run(f" ({ref.source['published_at']})")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
