"""The report's file record as the report agent saves it, against a file store that refuses the second format:
nothing is left half-saved, and the person reads what to do in the catalog's words."""

from __future__ import annotations

from typing import Any

from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.llm import LocalEngine
from ai_llm.common.messages import message
from ai_llm.report_writing_agent.agent import ReportAgent
from ai_llm.report_writing_agent.file_store_client import FileStoreClient, ReportSaveError
from ai_llm.report_writing_agent.report_builder import ReportBuilder
from tests.report_writing_agent.report_inputs import hybrid_results


class RefusingDocx(FileStoreClient):
    """Stores the Markdown, refuses the DOCX; records what was asked."""

    def __init__(self) -> None:
        super().__init__("http://files.invalid")
        self.calls: list[tuple[str, str]] = []

    async def save(self, name: str, content: bytes, source_kind: str = "report",
                   headers: dict[str, str] | None = None) -> dict[str, Any]:
        self.calls.append(("save", name))
        return {"id": "f-1", "name": name, "download_url": "/api/files/f-1/download", "alternates": []}

    async def add_format(self, file_id: str, fmt: str, content: bytes,
                         headers: dict[str, str] | None = None) -> dict[str, Any]:
        self.calls.append(("add_format", f"{file_id}:{fmt}"))
        raise ReportSaveError("the file store refused docx: disk full at /srv/files")

    async def delete(self, file_id: str, headers: dict[str, str] | None = None) -> None:
        self.calls.append(("delete", file_id))


async def test_a_refused_second_format_leaves_no_half_saved_report() -> None:
    files = RefusingDocx()
    agent = ReportAgent(ReportBuilder(LocalEngine()), files)
    reply = await agent(AgentRequest(text="손 위생 보고서 작성해줘", data={"previous_results": hybrid_results()}),
                        Progress("report_writing"))
    assert [c[0] for c in files.calls] == ["save", "add_format", "delete"]
    assert files.calls[0][1].endswith(".md") and files.calls[1][1] == "f-1:docx" and files.calls[2][1] == "f-1"
    assert reply.data["status"] == "error" and reply.data["files"] == []
    assert reply.data["error"] == message("report.save_failed_detail", "ko")
    assert "/srv/files" not in reply.text and "/api/files/" not in reply.text
