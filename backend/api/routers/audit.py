"""`GET /api/audit`: who asked what, which documents and pages were read, and what each answer cost (the
model's calls and tokens, the searches and their spend), for administrators of a hub with accounts."""

from __future__ import annotations

from typing import Annotated, Any

from fastapi import APIRouter, Query

from ai_llm.common.usage import Usage
from backend.api.deps import ChatStoreDep
from backend.api.routers.auth import AccountsOn, AdminDep

#: Refused (404 `accounts_off`) while accounts are off: without accounts there is nobody to audit.
router = APIRouter(prefix="/api/audit", tags=["audit"], dependencies=[AccountsOn],
                   responses={404: {"description": "accounts are off on this hub (`accounts_off`)"}})


@router.get("", responses={403: {"description": "not an administrator"}})
async def audit(chats: ChatStoreDep, _: AdminDep,
                limit: Annotated[int, Query(ge=1, le=1000)] = 100,
                # Postgres text cannot hold NUL: such a name is refused (422) before it reaches the query.
                username: Annotated[str | None, Query(max_length=64, pattern=r"^[^\x00]*$")] = None
                ) -> dict[str, Any]:
    """The latest answers of every person (or of one `username`), newest first, with the totals of what they
    cost: `{"answers": [{time, username, conversation_id, question, intent, documents: [{file_name, pages}],
    usage}], "totals": {answers, and the sum of every `usage` field}}`. An answer to the service credential
    has `username` null."""
    answers = await chats.audit(limit, username)
    total = Usage()
    for answer in answers:
        total.add(Usage.from_dict(answer["usage"] or {}))
    return {"answers": answers, "totals": {"answers": len(answers), **total.to_dict()}}
