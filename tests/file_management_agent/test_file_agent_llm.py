"""With an online model the file agent maps instructions through it (scripted fake implementing the LLM
protocol; OpenAI is unreachable here), resolving dates by rules; when the model fails, the rules answer."""

from __future__ import annotations

from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.llm import LLMError
from ai_llm.common.runtime import HubDeps
from ai_llm.file_management_agent.agent import FileAgent
from ai_llm.hub.process import Child
from tests.file_management_agent.conftest import clear_records, file_agent
from tests.structured_llm import StructuredReplies


async def test_model_mapped_instructions_and_rule_fallback(deps: HubDeps, test_rag: Child) -> None:
    await clear_records(deps.db)
    async with file_agent(deps, rag_agent_url=test_rag.url) as agent:
        ids = {}
        for name in ("cdc_outpatient_infection_prevention_guide.txt", "sales.csv", "roadmap.md"):
            ids[name] = (await agent.upload(name, f"{name} content".encode())).json()["id"]
        await agent.service.wait_idle()
        llm = StructuredReplies(
            {"operation": "delete", "name_terms": ["infection"]},
            {"operation": "list", "time_range": "this_week", "extension": "csv"},
            LLMError("scripted outage"),
        )
        files = FileAgent(agent.service, llm, "en")
        progress = Progress("file_management")

        gone = await files(AgentRequest(text="감염 관련 안내서는 이제 필요 없어, 치워줘", context_id="c1"), progress)
        assert gone.status == "ok" and [d["id"] for d in gone.data["deleted"]] == [
            ids["cdc_outpatient_infection_prevention_guide.txt"]]
        assert "sales.csv" in llm.prompts[0][1]["content"]  # the model sees the stored names

        listed = await files(AgentRequest(text="what spreadsheets came in this week?", context_id="c2"), progress)
        assert [f["name"] for f in listed.data["files"]] == ["sales.csv"]

        fallback = await files(AgentRequest(text="delete roadmap.md", context_id="c3"), progress)
        assert fallback.status == "ok" and [d["id"] for d in fallback.data["deleted"]] == [ids["roadmap.md"]]
        assert [r["name"] for r in (await agent.http.get("/files")).json()] == ["sales.csv"]
