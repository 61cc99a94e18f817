"""The agent card route (`/.well-known/agent-card.json`) with HTTP caching, as A2A discovery recommends.

The card is fixed for the life of the app, so it is serialised once: `Cache-Control: public, max-age=N`,
a strong `ETag` over the served bytes and `Last-Modified` (when the app was built), and `304 Not Modified`
for a matching `If-None-Match` or, without one, a not-older `If-Modified-Since` (RFC 9110 §13.2.2 order).
"""

from __future__ import annotations

import hashlib
import json
import time
from datetime import UTC
from email.utils import formatdate, parsedate_to_datetime

from a2a.server.request_handlers.response_helpers import agent_card_to_dict
from a2a.types import AgentCard
from a2a.utils.constants import AGENT_CARD_WELL_KNOWN_PATH
from starlette.datastructures import Headers
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

#: How long clients may reuse a card without asking again (an agent's card changes only on restart).
CARD_MAX_AGE_S = 300


def not_modified(headers: Headers, etag: str, last_modified: int) -> bool:
    """Whether the request's conditional headers match the current card (so 304 is the answer)."""
    if_none_match = headers.get("if-none-match")
    if if_none_match is not None:  # takes precedence over If-Modified-Since
        tags = {tag.strip().removeprefix("W/") for tag in if_none_match.split(",")}
        return "*" in tags or etag in tags
    if_modified_since = headers.get("if-modified-since")
    if not if_modified_since:
        return False
    try:
        since = parsedate_to_datetime(if_modified_since)
    except (TypeError, ValueError, IndexError):
        return False  # an unparsable date is ignored (RFC 9110 §13.1.3)
    if since.tzinfo is None:
        since = since.replace(tzinfo=UTC)
    return last_modified <= since.timestamp()


def agent_card_route(card: AgentCard, max_age_s: int = CARD_MAX_AGE_S,
                     path: str = AGENT_CARD_WELL_KNOWN_PATH) -> Route:
    """A GET (and HEAD) route serving `card` with `Cache-Control`, `ETag`, `Last-Modified` and 304s.

    Args:
        card: the agent card.
        max_age_s: the `max-age` clients may cache it for.
        path: where it is served (the A2A well-known path).
    """
    body = json.dumps(agent_card_to_dict(card), ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    etag = f'"{hashlib.sha256(body).hexdigest()[:32]}"'
    last_modified = int(time.time())
    headers = {"Cache-Control": f"public, max-age={max_age_s}", "ETag": etag,
               "Last-Modified": formatdate(last_modified, usegmt=True)}

    async def get_card(request: Request) -> Response:
        if not_modified(request.headers, etag, last_modified):
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    return Route(path, get_card, methods=["GET"], name="agent_card")
