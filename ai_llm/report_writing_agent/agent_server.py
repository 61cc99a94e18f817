"""A2A server of the report-writing agent: card, executor, app.

Reports are saved through the file agent at `settings.agent_url('file_management')`, or through the
`report_files` client a test passes.
"""

from __future__ import annotations

from starlette.applications import Starlette

from ai_llm.common.a2a.server import HubAgentExecutor, build_agent_app, make_card
from ai_llm.common.runtime import HubDeps
from ai_llm.report_writing_agent.agent import ReportAgent
from ai_llm.report_writing_agent.file_store_client import FileStoreClient
from ai_llm.report_writing_agent.report_builder import ReportBuilder

AGENT_NAME = "report_writing"
DESCRIPTION = ("Writes a structured report (title, summary, sections, conclusion, references with file+page or "
               "URL) as Markdown and DOCX from earlier steps' results, citing only their sources; the files are "
               "saved in the hub's file store and downloadable.")
SKILLS = [{"id": "write_report", "name": "보고서 작성", "description": DESCRIPTION,
           "examples": ["위 결과로 보고서 작성해줘", "write a report on the infection prevention guidance"]}]


def create_app(deps: HubDeps, url: str, *, report_files: FileStoreClient | None = None) -> Starlette:
    """The report-writing agent's A2A app (`report_files`: where reports are saved, by default the file agent)."""
    settings = deps.settings
    files = report_files or FileStoreClient(settings.agent_url("file_management"), token=settings.hub_token)
    agent = ReportAgent(ReportBuilder(deps.llm), files, settings.ui_language, settings.hub_token)
    card = make_card(AGENT_NAME, DESCRIPTION, url, SKILLS, token_required=bool(settings.hub_token))
    return build_agent_app(card, HubAgentExecutor(AGENT_NAME, agent, history_turns=0), token=settings.hub_token)
