"""The Host/Origin guard: its rules on a small app, on an A2A agent app, and HUB_ALLOWED_HOSTS in Settings."""

from __future__ import annotations

import httpx
import pytest
from pydantic import ValidationError
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import PlainTextResponse
from starlette.routing import Route

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import AgentRequest, HubAgentExecutor, Progress, build_agent_app, make_card
from ai_llm.common.http.guard import HostAllowList, HostOriginGuard, split_host
from ai_llm.common.settings import Settings

EVIL = "http://evil.example.com"


@pytest.mark.parametrize("value,expected", [
    ("127.0.0.1:8000", ("127.0.0.1", 8000)), ("LOCALHOST", ("localhost", None)), ("[::1]:9", ("::1", 9)),
    ("::1", ("::1", None)), ("hub.example.com", ("hub.example.com", None)),
    ("http://hub.example.com", None), ("hub.example.com/x", None), ("user@hub", None), ("hub:", None),
    ("hub:99999", None), ("[::1", None), ("[nope]:1", None), ("*", None), ("*.example.com", None), ("", None),
])
def test_split_host(value: str, expected: tuple[str, int | None] | None) -> None:
    assert split_host(value) == expected


def test_allow_list_rules() -> None:
    allowed = HostAllowList(["hub.example.com", "10.0.0.5:8443", "0.0.0.0"])
    for host in ("127.0.0.1:8000", "127.0.0.5:10012", "127.255.0.1", "localhost:1", "[::1]:8000",
                 "[::ffff:127.0.0.1]:80", "hub.example.com:1234", "HUB.example.com", "10.0.0.5:8443"):
        assert allowed.allows_host_header(host, 80), host
    for host in ("evil.example.com", "127.0.0.1.evil.example.com", "localhost.evil.example.com", "10.0.0.5:8000",
                 "10.0.0.5", "0.0.0.0:8000", "128.0.0.1", "", None, "evil.example.com@127.0.0.1"):
        assert not allowed.allows_host_header(host, 80), host
    assert allowed.allows_host_header("10.0.0.5", 8443)  # no port in Host = the scheme's default port
    for origin in ("http://127.0.0.1:8000", "https://localhost", "http://[::1]:5173", "https://hub.example.com",
                   "https://10.0.0.5:8443", "http://127.0.0.1:8000/files?x=1"):
        assert allowed.allows_origin(origin), origin
    for origin in ("null", EVIL, "file:///etc/passwd", "ftp://127.0.0.1", "http://10.0.0.5", "http://127.0.0.1:x",
                   "chrome-extension://abc", ""):
        assert not allowed.allows_origin(origin), origin
    with pytest.raises(ValueError, match="not a host"):
        HostAllowList(["http://hub.example.com"])


@pytest.fixture
def guarded() -> tuple[Starlette, list[str]]:
    seen: list[str] = []

    async def endpoint(request: Request) -> PlainTextResponse:
        seen.append(f"{request.method} {await request.body()!r}")
        return PlainTextResponse("ok")

    app = Starlette(routes=[Route("/thing", endpoint, methods=["GET", "POST", "PUT", "PATCH", "DELETE"])])
    app.add_middleware(HostOriginGuard, allowed_hosts=["hub.example.com"])
    return app, seen


async def test_guard_refuses_foreign_hosts_and_cross_site_requests(guarded: tuple[Starlette, list[str]]) -> None:
    app, seen = guarded
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:8000") as http:
        misdirected = await http.get("/thing", headers={"Host": "evil.example.com"})
        assert misdirected.status_code == 421 and "HUB_ALLOWED_HOSTS" in misdirected.json()["detail"]
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            refused = await http.request(method, "/thing", content=b"payload", headers={"Origin": EVIL})
            assert refused.status_code == 403, method
            assert (await http.request(method, "/thing", headers={"Referer": EVIL + "/x"})).status_code == 403
        assert (await http.get("/thing", headers={"Origin": EVIL})).status_code == 403
        assert (await http.post("/thing", headers={"Origin": "null"})).status_code == 403
        # A foreign Referer alone does not block a read (links from other sites), a foreign Origin does.
        assert (await http.get("/thing", headers={"Referer": EVIL + "/x"})).status_code == 200
        assert seen == ["GET b''"]
        seen.clear()
        # Same origin, an allowed name, and clients that send neither header (CLI, A2A, MCP) pass.
        assert (await http.post("/thing", content=b"a", headers={"Origin": "http://127.0.0.1:8000"})).status_code == 200
        assert (await http.post("/thing", content=b"b", headers={"Origin": "https://hub.example.com",
                                                                  "Host": "hub.example.com"})).status_code == 200
        assert (await http.post("/thing", content=b"c", headers={"Referer": "http://localhost:5173/"})).status_code == 200
        assert (await http.post("/thing", content=b"d")).status_code == 200
    assert seen == ["POST b'a'", "POST b'b'", "POST b'c'", "POST b'd'"]


async def test_agent_app_is_guarded() -> None:
    calls: list[str] = []

    async def handle(request: AgentRequest, progress: Progress) -> AgentReply:
        calls.append(request.text)
        return AgentReply(text="done", data={"status": "ok"})

    card = make_card("probe", "probe agent", "http://agent-7.internal:10012", [{"id": "probe"}])
    app = build_agent_app(card, HubAgentExecutor("probe", handle), allowed_hosts=["hub.example.com"])
    rpc = {"jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": {"message": {
        "messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hello"}]}}}
    headers = {"A2A-Version": "1.0"}
    async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1:10012") as http:
        for path in ("/.well-known/agent-card.json", "/healthz"):
            assert (await http.get(path, headers={"Host": "evil.example.com:10012"})).status_code == 421
        assert (await http.post("/", json=rpc, headers={**headers, "Host": "evil.example.com"})).status_code == 421
        assert (await http.post("/", json=rpc, headers={**headers, "Origin": EVIL})).status_code == 403
        assert calls == []
        # The card's own URL names the agent; HUB_HOST / HUB_ALLOWED_HOSTS entries too.
        for host in ("agent-7.internal:10012", "hub.example.com", "127.0.0.3:10012"):
            assert (await http.get("/healthz", headers={"Host": host})).status_code == 200, host
        answered = await http.post("/", json=rpc, headers={**headers, "Origin": "http://127.0.0.1:8000"})
    assert answered.status_code == 200 and calls == ["hello"]


def test_allowed_hosts_setting() -> None:
    settings = Settings(_env_file=None, hub_allowed_hosts=" hub.example.com , 192.168.1.20:8000,")  # type: ignore[call-arg]
    assert settings.allowed_hosts == ["127.0.0.1", "hub.example.com", "192.168.1.20:8000"]
    wildcard = Settings(_env_file=None, hub_host="0.0.0.0", hub_token="t" * 20)  # type: ignore[call-arg]
    assert wildcard.allowed_hosts == []  # 0.0.0.0 is no name a client uses
    assert Settings(_env_file=None, hub_allowed_hosts="").allowed_hosts == ["127.0.0.1"]  # type: ignore[call-arg]
    for bad in ("https://hub.example.com", "*", "hub.example.com/path"):
        with pytest.raises(ValidationError, match="HUB_ALLOWED_HOSTS"):
            Settings(_env_file=None, hub_allowed_hosts=bad)  # type: ignore[call-arg]
