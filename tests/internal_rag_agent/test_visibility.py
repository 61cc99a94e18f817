"""Document visibility inside retrieval, over the real Postgres and embedding server: a private document
never reaches another person's answer (the filter runs in the SQL search functions), a team document
reaches its team, and a caller without a verified identity sees only what is shared with everyone."""

from __future__ import annotations

import base64

from ai_llm.common.a2a.server import AgentRequest
from ai_llm.common.identity import METADATA_KEY, Viewer, issue
from ai_llm.common.runtime import HubDeps
from ai_llm.common.store.db import Database
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.vector_store import PgVectorStore
from tests.internal_rag_agent.conftest import unique_ref

TOKEN = "a-very-secret-hub-token-42"
QUESTION = "What is the launch code name of Project Nimbus?"
FACT = "The launch code name of Project Nimbus is BLUE-HERON-7."


def as_user(user: str, teams: tuple[str, ...] = ()) -> dict[str, str]:
    token = issue(TOKEN, "internal_rag", user, user, teams)
    assert token is not None
    return {METADATA_KEY: token}


async def ask(agent: RagAgent, metadata: dict[str, str]) -> str:
    state = await agent.run_state(AgentRequest(text=QUESTION, data={"language": "en"}, metadata=metadata))
    return state["reply"].text


async def test_private_team_and_everyone_documents_reach_only_their_readers(deps: HubDeps, db: Database) -> None:
    settings = deps.settings.model_copy(update={"hub_token": TOKEN})
    agent = RagAgent(PgVectorStore(db, settings.rag_ef_search), deps.embeddings, deps.llm, settings)
    owner, other, teammate = unique_ref("u-owner"), unique_ref("u-other"), unique_ref("u-mate")
    team = unique_ref("nimbus-team")
    refs = {"private": unique_ref("private"), "team": unique_ref("team")}
    text = f"Project Nimbus notes.\n{FACT}\nThe project started in March."
    results = await agent.indexing.index_many([
        DocumentInput(refs["private"], "nimbus_private.txt", owner_id=owner, visibility="private",
                      content_b64=base64.b64encode(text.encode()).decode()),
        DocumentInput(refs["team"], "nimbus_team.txt", owner_id=owner, visibility=f"team:{team}",
                      content_b64=base64.b64encode(text.replace("BLUE-HERON-7", "RED-KITE-3").encode()).decode()),
    ])
    assert [r.status for r in results] == ["success", "success"]
    try:
        mine = await ask(agent, as_user(owner))
        assert "BLUE-HERON-7" in mine
        stranger = await ask(agent, as_user(other))
        assert "BLUE-HERON-7" not in stranger and "RED-KITE-3" not in stranger and "nimbus" not in stranger.lower()
        member = await ask(agent, as_user(teammate, (team,)))
        assert "RED-KITE-3" in member and "BLUE-HERON-7" not in member
        service = await ask(agent, {})  # the service token, no person: nothing private or team-only
        assert "BLUE-HERON-7" not in service and "RED-KITE-3" not in service
        forged = await ask(agent, {METADATA_KEY: as_user(owner)[METADATA_KEY][:-4] + "AAAA"})
        assert "BLUE-HERON-7" not in forged  # a tampered identity is the service's

        # The owner shares it with everyone: the same search now reaches the stranger, without re-indexing.
        store = PgVectorStore(db)
        assert await store.set_visibility(refs["private"], "everyone") >= 1
        assert "BLUE-HERON-7" in await ask(agent, as_user(other))
        stats = await store.term_stats(["nimbus"], viewer=Viewer(user_id=other))
        assert stats.df["nimbus"] >= 1
    finally:
        for ref in refs.values():
            await agent.indexing.delete(ref)
