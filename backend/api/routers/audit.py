"""`GET /api/audit`: who asked what, which documents and pages were read, and what each answer cost (the
model's calls and tokens, the searches and their spend), for administrators."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from backend.api.deps import ChatStoreDep
from backend.api.routers.auth import AdminDep

router = APIRouter(prefix="/api/audit", tags=["audit"])


@router.get("", responses={403: {"description": "not an administrator"}})
async def audit(chats: ChatStoreDep, _: AdminDep,
                limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                username: Annotated[str | None, Query(max_length=64)] = None) -> dict[str, Any]:
    """The latest answers of every person (or of one `username`), newest first, with the totals of what they
    cost: `{"answers": [{time, username, conversation_id, question, intent, documents: [{file_name, pages}],
    usage}], "totals": {answers, llm_calls, llm_prompt_tokens, llm_completion_tokens, searches, paid_searches,
    search_cost_usd}}`. An answer to the service credential has `username` null."""
    answers = await chats.audit(limit, username)
    keys = ("llm_calls", "llm_prompt_tokens", "llm_completion_tokens", "searches", "paid_searches")
    totals: dict[str, Any] = {"answers": len(answers)}
    for key in keys:
        totals[key] = sum(int((a["usage"] or {}).get(key) or 0) for a in answers)
    totals["search_cost_usd"] = round(sum(float((a["usage"] or {}).get("search_cost_usd") or 0)
                                          for a in answers), 6)
    return {"answers": answers, "totals": totals}
