"""Renders a `Report` as Markdown and as a DOCX document (python-docx)."""

from __future__ import annotations

import io

import docx
from docx.shared import Pt

from ai_llm.report_writing_agent.report_builder import PHRASES, Reference, Report


def reference_line(ref: Reference) -> str:
    """`**guide.pdf** (p.13–15) — /api/files/…` or `[Title](https://…)`."""
    if ref.type == "web":
        return f"[{ref.label}]({ref.url})" if ref.url else ref.label
    pages = f" ({ref.page_label})" if ref.page_label else ""
    link = f" — {ref.url}" if ref.url else ""
    return f"**{ref.label}**{pages}{link}"


def to_markdown(report: Report) -> str:
    p = PHRASES.get(report.language, PHRASES["ko"])
    lines = [f"# {report.title}", "", f"_{p['date']}: {report.created_at:%Y-%m-%d %H:%M}_", "",
             f"## {p['summary']}", "", report.summary, ""]
    for section in report.sections:
        lines += [f"## {section.heading}", "", section.body, ""]
    lines += [f"## {p['conclusion']}", "", report.conclusion, ""]
    if report.references:
        lines += [f"## {p['references']}", ""]
        lines += [f"{ref.number}. {reference_line(ref)}" for ref in report.references]
        lines.append("")
    return "\n".join(lines)


def to_docx(report: Report) -> bytes:
    p = PHRASES.get(report.language, PHRASES["ko"])
    document = docx.Document()
    style = document.styles["Normal"]
    style.font.size = Pt(11)  # type: ignore[attr-defined]
    document.core_properties.title = report.title
    document.add_heading(report.title, level=0)
    document.add_paragraph(f"{p['date']}: {report.created_at:%Y-%m-%d %H:%M}")
    document.add_heading(p["summary"], level=1)
    document.add_paragraph(report.summary)
    for section in report.sections:
        document.add_heading(section.heading, level=1)
        for paragraph in section.body.split("\n\n"):
            if paragraph.strip():
                document.add_paragraph(paragraph.strip())
    document.add_heading(p["conclusion"], level=1)
    document.add_paragraph(report.conclusion)
    if report.references:
        document.add_heading(p["references"], level=1)
        for ref in report.references:
            entry = document.add_paragraph(f"[{ref.number}] ")
            entry.add_run(ref.label).bold = ref.type == "file"
            if ref.page_label:
                entry.add_run(f" ({ref.page_label})")
            if ref.url:
                entry.add_run(f" — {ref.url}")
    buffer = io.BytesIO()
    document.save(buffer)
    return buffer.getvalue()
