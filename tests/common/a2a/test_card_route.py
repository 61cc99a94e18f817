"""The agent card route's HTTP caching: Cache-Control, ETag, Last-Modified and 304 answers."""

from __future__ import annotations

import re
from email.utils import formatdate, parsedate_to_datetime

import httpx

from ai_llm.common.a2a.card_route import CARD_MAX_AGE_S
from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card

CARD_PATH = "/.well-known/agent-card.json"


async def _handle(request: AgentRequest, progress: Progress) -> AgentReply:
    return AgentReply(text="ok")


def _client(token: str | None = None) -> httpx.AsyncClient:
    card = make_card("probe", "probe agent", "http://127.0.0.1:10099", [{"id": "probe"}],
                     token_required=bool(token))
    app = build_agent_app(card, HubAgentExecutor("probe", _handle), token=token, allowed_hosts=[])
    return httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:10099")


async def test_card_is_cacheable_and_revalidates_with_304() -> None:
    async with _client(token="t" * 20) as http:
        first = await http.get(CARD_PATH)  # public even when a token is required
        assert first.status_code == 200 and first.json()["name"] == "probe"
        assert first.headers["content-type"] == "application/json"
        assert first.headers["cache-control"] == f"public, max-age={CARD_MAX_AGE_S}"
        etag, modified = first.headers["etag"], first.headers["last-modified"]
        assert re.fullmatch(r'"[0-9a-f]{32}"', etag)
        assert parsedate_to_datetime(modified).tzinfo is not None
        assert (await http.get(CARD_PATH)).headers["etag"] == etag  # stable

        for if_none_match in (etag, f"W/{etag}", f'"other", {etag}', "*"):
            cached = await http.get(CARD_PATH, headers={"If-None-Match": if_none_match})
            assert cached.status_code == 304 and cached.content == b"", if_none_match
            assert cached.headers["etag"] == etag and cached.headers["cache-control"].startswith("public")
        changed = await http.get(CARD_PATH, headers={"If-None-Match": '"stale"', "If-Modified-Since": modified})
        assert changed.status_code == 200  # If-None-Match wins over If-Modified-Since

        assert (await http.get(CARD_PATH, headers={"If-Modified-Since": modified})).status_code == 304
        later = formatdate(parsedate_to_datetime(modified).timestamp() + 3600, usegmt=True)
        assert (await http.get(CARD_PATH, headers={"If-Modified-Since": later})).status_code == 304
        earlier = formatdate(parsedate_to_datetime(modified).timestamp() - 3600, usegmt=True)
        assert (await http.get(CARD_PATH, headers={"If-Modified-Since": earlier})).status_code == 200
        assert (await http.get(CARD_PATH, headers={"If-Modified-Since": "yesterday"})).status_code == 200
        head = await http.head(CARD_PATH)
        assert head.status_code == 200 and head.headers["etag"] == etag
