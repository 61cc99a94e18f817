"""The report-writing agent's A2A logic (skill `write_report`).

Input: the instruction plus `data.previous_results` (the orchestrator's `depends_on` results with their
sources). Output: the report saved through the file agent's store as one file record of the asker's, private:
the Markdown (what the viewer shows, and what is indexed once the person adds it to the documents) with the DOCX
as its alternate format; the reply gives the summary, both download links, `files` (the one record, with its
`formats`) and `sources`. A report with nothing to report is not saved.
"""

from __future__ import annotations

import contextlib
import logging
import re
from datetime import datetime
from typing import Any

from ai_llm.common import identity
from ai_llm.common.a2a.events import STATUS_ERROR, STATUS_NO_RESULT, STATUS_OK, AgentReply
from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.messages import message
from ai_llm.report_writing_agent.file_store_client import FileStoreClient, ReportSaveError
from ai_llm.report_writing_agent.report_builder import ReportBuilder
from ai_llm.report_writing_agent.report_render import reference_line, to_docx, to_markdown

log = logging.getLogger(__name__)


def file_stem(title: str, when: datetime) -> str:
    """A safe file name stem from the title: `<title>_<YYYYmmdd-HHMMSS>`."""
    stem = re.sub(r'[\\/:*?"<>|\x00-\x1f]+', " ", title)
    stem = re.sub(r"\s+", "_", stem).strip("._ ")[:60] or "report"
    return f"{stem}_{when:%Y%m%d-%H%M%S}"


class ReportAgent:
    """A2A handler of the report-writing agent.

    Args:
        builder: writes the report.
        files: where report files are saved (the file agent).
        default_language: `ko` or `en`.
    """

    def __init__(self, builder: ReportBuilder, files: FileStoreClient, default_language: str = "ko",
                 hub_token: str | None = None) -> None:
        self.hub_token = hub_token
        self.builder = builder
        self.files = files
        self.default_language = default_language

    async def __call__(self, request: AgentRequest, progress: Progress) -> AgentReply:
        lang = str(request.data.get("language") or self.default_language)
        previous = [r for r in request.data.get("previous_results") or [] if isinstance(r, dict)]
        await progress(message("report.writing", lang), stage="writing", progress=0.2)
        report = await self.builder.build(request.text, previous, lang)
        markdown = to_markdown(report)
        stem = file_stem(report.title, report.created_at)
        await progress(message("report.saving", lang), stage="saving", progress=0.8)
        files: list[dict[str, Any]] = []
        error: str | None = None
        # A report quotes what its person may read: it is saved as theirs (private), never as everyone's.
        viewer = identity.viewer_of_metadata(self.hub_token, "report_writing", request.metadata)
        signed = identity.forward(self.hub_token, viewer, "file_management")
        headers = {identity.HEADER: signed[identity.METADATA_KEY]} if signed else None
        if not report.empty:  # a report with nothing to report is not saved (the reply says why)
            try:
                files.append(await self._save(stem, markdown.encode("utf-8"), to_docx(report), headers))
            except ReportSaveError as exc:
                log.warning("report %s not saved: %s", stem, exc)
                error = message("report.save_failed_detail", lang)
        lines = [f"## {report.title}", "", report.summary, ""]
        if files:
            links = " · ".join(f"[{f['name']}]({f['download_url']})" for f in files[0]["formats"])
            lines += [f"📄 {message('report.download', lang)}: {links}", ""]
        if report.references:
            lines += [f"**{message('report.references', lang)}:**",
                      *[f"{r.number}. {reference_line(r)}" for r in report.references]]
        if error:
            lines += ["", f"⚠️ {message('report.save_failed', lang)}: {error}", "", markdown]
        status = STATUS_ERROR if error else (STATUS_NO_RESULT if report.empty else STATUS_OK)
        data: dict[str, Any] = {"status": status, "title": report.title, "files": files,
                                "sources": [r.to_source() for r in report.references],
                                "sections": [s.heading for s in report.sections], "written_by": report.written_by}
        if error:
            data["error"] = error
        return AgentReply("\n".join(lines).strip(), data)

    async def _save(self, stem: str, markdown: bytes, docx_bytes: bytes,
                    headers: dict[str, str] | None) -> dict[str, Any]:
        """One file record: the Markdown, with the DOCX as its alternate format; nothing is left when either fails.
        Returns the reply's file entry: `id`, `name`, `download_url` (the Markdown) and `formats` (each format's
        name and link)."""
        record = await self.files.save(f"{stem}.md", markdown, headers=headers)
        try:
            record = await self.files.add_format(record["id"], "docx", docx_bytes, headers=headers)
        except ReportSaveError:
            with contextlib.suppress(ReportSaveError):
                await self.files.delete(record["id"], headers=headers)
            raise
        formats = [{"format": "md", "name": record["name"], "download_url": record["download_url"]}]
        formats += [{"format": a["format"], "name": a["name"], "download_url": a["download_url"]}
                    for a in record.get("alternates") or []]
        return {"id": record["id"], "name": record["name"], "download_url": record["download_url"],
                "formats": formats}
