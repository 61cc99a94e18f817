"""People with accounts, in the backend app in-process over the real Postgres: the first admin from
`HUB_ADMIN_PASSWORD`, argon2 logins with a session cookie, rate-limited failures, admin-only user management,
single sign-on through a trusted proxy, and conversations that belong to their person (a list of mine;
404 for anyone else's id on every route)."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import httpx
import psycopg
import pytest
from psycopg.conninfo import make_conninfo

from ai_llm.common.messages import message
from ai_llm.common.store.db import Database, migrate
from backend.accounts import AccountStore, LoginLimiter
from backend.api.main import create_app
from backend.chat_store import ChatStore
from tests.backend.test_app import make_settings
from tests.conftest import EMBEDDING_DIM, EMBEDDING_MODEL

TOKEN = "a-very-secret-hub-token-42"
ADMIN_PASSWORD = "admin-password-for-tests"


@asynccontextmanager
async def app_client(db: Database, tmp_path: Path, **settings: object) -> AsyncIterator[httpx.AsyncClient]:
    app = create_app(make_settings(tmp_path, hub_token=TOKEN, hub_admin_password=ADMIN_PASSWORD, **settings), db=db)
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app, client=("10.0.0.7", 5555)), base_url="http://127.0.0.1") as http:
        yield http


def fresh(prefix: str) -> str:
    return f"{prefix}-{uuid.uuid4().hex[:8]}"


async def login(http: httpx.AsyncClient, username: str, password: str) -> httpx.Response:
    return await http.post("/api/login", json={"username": username, "password": password})


async def test_the_first_admin_logs_in_and_manages_users(db: Database, tmp_path: Path) -> None:
    async with app_client(db, tmp_path) as http:
        assert (await http.get("/api/me")).status_code == 401
        wrong = await login(http, "admin", "not-the-password")
        assert wrong.status_code == 401 and "set-cookie" not in wrong.headers
        ok = await login(http, "admin", ADMIN_PASSWORD)
        assert ok.status_code == 200
        cookie = ok.headers["set-cookie"]
        assert "hub_session=" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
        me = (await http.get("/api/me")).json()
        assert me.pop("id") and me == {"kind": "user", "username": "admin", "admin": True, "teams": []}

        name = fresh("kim")
        created = await http.post("/api/users", json={"username": name, "password": "kim-password-1",
                                                      "teams": ["영업", "platform"], "admin": False})
        assert created.status_code == 201 and created.json()["teams"] == ["platform", "영업"]
        assert (await http.post("/api/users", json={"username": name, "password": "another-pass"})).status_code == 409
        short = await http.post("/api/users", json={"username": fresh("lee"), "password": "short"})
        assert short.status_code == 422 and "8" in short.json()["detail"]
        listed = {u["username"]: u for u in (await http.get("/api/users")).json()}
        assert listed[name]["teams"] == ["platform", "영업"] and "password_hash" not in listed[name]

        assert (await http.post("/api/logout")).status_code == 204
        assert (await http.get("/api/me")).status_code == 401  # the session is gone server-side
        assert (await login(http, name, "kim-password-1")).status_code == 200
        assert (await http.get("/api/me")).json()["teams"] == ["platform", "영업"]
        # Not an admin: user management is refused.
        assert (await http.post("/api/users", json={"username": fresh("x"), "password": "password-123"})).status_code == 403
        assert (await http.get("/api/users")).status_code == 403


async def test_the_service_token_is_no_person(db: Database, tmp_path: Path) -> None:
    person = await AccountStore(db).create_user(fresh("owner"), "owner-password")
    conversation = uuid.uuid4().hex
    await ChatStore(db).add_message(conversation, "user", "a person's question", owner_id=person["id"])
    async with app_client(db, tmp_path) as http:
        headers = {"Authorization": f"Bearer {TOKEN}"}
        assert (await http.get("/api/me", headers=headers)).json()["kind"] == "service"
        assert (await http.get("/api/users", headers=headers)).status_code == 403
        listed = (await http.get("/api/chats", headers=headers)).json()
        assert conversation not in {c["id"] for c in listed}


ACCOUNT_ROUTES = [("POST", "/api/users"), ("GET", "/api/users"), ("PATCH", "/api/users/some-id"),
                  ("DELETE", "/api/users/some-id"), ("GET", "/api/teams"), ("GET", "/api/audit")]


@pytest.mark.parametrize("hub_token", [None, TOKEN], ids=["local", "service-token-only"])
async def test_with_accounts_off_the_account_routes_refuse_with_a_reason(db: Database, tmp_path: Path,
                                                                         hub_token: str | None) -> None:
    """A local hub (no credential at all) or one with only the service token has no accounts: creating an
    administrator, listing people and teams and reading the audit are refused (404 `accounts_off`, the reason
    from the message catalog in the reader's language), and nobody is created."""
    name = fresh("intruder")
    app = create_app(make_settings(tmp_path, hub_token=hub_token), db=db)
    headers = {"Authorization": f"Bearer {TOKEN}"} if hub_token else {}
    async with app.router.lifespan_context(app), httpx.AsyncClient(
            transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1", headers=headers) as http:
        health = (await http.get("/api/health")).json()
        assert health["accounts"] is False
        for method, path in ACCOUNT_ROUTES:
            body = {"json": {"username": name, "password": "password-1234", "admin": True}} if method != "GET" else {}
            refused = await http.request(method, path, **body)  # type: ignore[arg-type]
            assert refused.status_code == 404, (method, path, refused.text)
            assert refused.headers["x-hub-error"] == "accounts_off"
            assert refused.json() == {"detail": message("backend.accounts_off", "ko")}
        english = await http.post("/api/users", json={"username": name, "password": "password-1234"},
                                  headers={"Accept-Language": "en-US,en;q=0.9"})
        assert english.json()["detail"] == message("backend.accounts_off", "en")
        assert "HUB_ADMIN_PASSWORD" in english.json()["detail"] and "Traceback" not in english.text
        assert (await http.get("/api/me")).status_code == 200  # who the caller is stays answerable
    assert await AccountStore(db).verify_password(name, "password-1234") is None
    assert name not in {u["username"] for u in await AccountStore(db).list_users()}


async def test_with_accounts_on_health_says_so(db: Database, tmp_path: Path) -> None:
    async with app_client(db, tmp_path) as http:
        assert (await http.get("/api/health")).json()["accounts"] is True
        assert (await login(http, "admin", ADMIN_PASSWORD)).status_code == 200
        assert (await http.get("/api/teams")).status_code == 200 and (await http.get("/api/audit")).status_code == 200


async def test_failed_logins_are_rate_limited(db: Database, tmp_path: Path) -> None:
    async with app_client(db, tmp_path) as http:
        name = fresh("target")
        for _ in range(5):
            assert (await login(http, name, "guess-guess")).status_code == 401
        limited = await login(http, name, "guess-guess")
        assert limited.status_code == 429 and int(limited.headers["retry-after"]) >= 1
        # The right password is refused too while the window lasts (the limiter runs before the check).
        assert (await login(http, "admin", ADMIN_PASSWORD)).status_code == 429  # same client address


def test_the_limiter_forgets_after_its_window() -> None:
    limiter = LoginLimiter(attempts=2, window_s=0.05)
    limiter.failed("ip", "name")
    assert limiter.retry_after("ip") == 0
    limiter.failed("ip", "name")
    assert limiter.retry_after("ip") > 0 and limiter.retry_after("other") == 0
    import time

    time.sleep(0.06)
    assert limiter.retry_after("ip", "name") == 0


async def test_a_trusted_proxy_names_the_person_and_nobody_else_can(db: Database, tmp_path: Path) -> None:
    name = fresh("sso")
    async with app_client(db, tmp_path, hub_auth_proxy_header="X-Forwarded-User",
                          hub_auth_proxy_addresses="10.0.0.0/24") as http:
        me = await http.get("/api/me", headers={"X-Forwarded-User": name})
        assert me.status_code == 200 and me.json()["username"] == name
    async with app_client(db, tmp_path, hub_auth_proxy_header="X-Forwarded-User",
                          hub_auth_proxy_addresses="192.168.1.1") as http:
        # The same header from an address that is not the proxy's is ignored.
        assert (await http.get("/api/me", headers={"X-Forwarded-User": name})).status_code == 401


async def test_conversations_are_private_to_their_person(db: Database, tmp_path: Path) -> None:
    accounts, chats = AccountStore(db), ChatStore(db)
    first, second = fresh("first"), fresh("second")
    await accounts.create_user(first, "first-password")
    await accounts.create_user(second, "second-password")
    owner = await accounts.verify_password(first, "first-password")
    assert owner is not None
    conversation = uuid.uuid4().hex
    await chats.add_message(conversation, "user", "우리 팀 분기 목표 알려줘", owner_id=owner.user_id)
    await chats.add_message(conversation, "assistant", "비밀 목표는 매출 20% 성장입니다.", owner_id=owner.user_id)
    async with app_client(db, tmp_path) as http:
        assert (await login(http, first, "first-password")).status_code == 200
        mine = (await http.get("/api/chats")).json()
        assert [c["id"] for c in mine] == [conversation] and mine[0]["title"].startswith("우리 팀")
        assert (await http.get("/api/chats", params={"q": "분기"})).json()[0]["id"] == conversation
        assert (await http.get("/api/chats", params={"q": "없는말"})).json() == []
        assert len((await http.get(f"/api/chats/{conversation}")).json()["messages"]) == 2
        renamed = await http.patch(f"/api/chats/{conversation}", json={"title": "분기 목표"})
        assert renamed.status_code == 200 and renamed.json()["title"] == "분기 목표"

        await http.post("/api/logout")
        assert (await login(http, second, "second-password")).status_code == 200
        assert (await http.get("/api/chats")).json() == []
        assert (await http.get(f"/api/chats/{conversation}")).status_code == 404
        assert (await http.patch(f"/api/chats/{conversation}", json={"title": "x"})).status_code == 404
        assert (await http.delete(f"/api/chats/{conversation}")).status_code == 404
        # Continuing someone else's conversation is refused before anything reaches the orchestrator.
        async with http.stream("POST", "/api/chat", json={"message": "이어서 말해줘",
                                                          "conversation_id": conversation}) as stream:
            body = "".join([chunk async for chunk in stream.aiter_text()])
        assert "event: error" in body and "대화를 찾을 수 없습니다" in body and "비밀 목표" not in body
        assert len(await chats.history(conversation, owner_id=owner.user_id) or []) == 2  # nothing was added

        await http.post("/api/logout")
        assert (await http.get(f"/api/chats/{conversation}", headers={"Authorization": f"Bearer {TOKEN}"})
                ).status_code == 404  # the service token reads no one's conversation
        await login(http, first, "first-password")
        assert (await http.delete(f"/api/chats/{conversation}")).status_code == 204
        assert (await http.get(f"/api/chats/{conversation}")).status_code == 404


@pytest.mark.parametrize(("username", "reason"), [("", "username"), ("a b", "username"), ("x" * 65, "username")])
async def test_bad_usernames_are_refused(db: Database, username: str, reason: str) -> None:
    from backend.accounts import AccountError

    with pytest.raises(AccountError) as info:
        await AccountStore(db).create_user(username, "long-enough-password")
    assert reason in info.value.reason


async def test_search_words_are_text_not_patterns(db: Database) -> None:
    chats, owner = ChatStore(db), str(uuid.uuid4())
    await AccountStore(db).db.execute("INSERT INTO users (id, username) VALUES (%s, %s)", (owner, fresh("p")))
    plain, percent = uuid.uuid4().hex, uuid.uuid4().hex
    await chats.add_message(plain, "user", "분기 목표", owner_id=owner)
    await chats.add_message(percent, "user", "성장률 100% 달성", owner_id=owner)
    assert [c["id"] for c in await chats.conversations(owner, "%")] == [percent]  # a literal %, not "anything"
    assert await chats.conversations(owner, "\x00") != []  # a NUL is dropped, never a server error


@pytest.fixture
async def own_db(pg_url: str) -> AsyncIterator[Database]:
    """A database of its own on the session's server, so 'the last administrator' means this test's."""
    name = f"accounts_{uuid.uuid4().hex[:10]}"
    async with await psycopg.AsyncConnection.connect(pg_url, autocommit=True) as conn:
        await conn.execute(f'CREATE DATABASE "{name}"')
    url = make_conninfo(pg_url, dbname=name)
    await migrate(url, EMBEDDING_MODEL, EMBEDDING_DIM)
    database = await Database(url).open()
    yield database
    await database.close()


async def own_file(db: Database, owner_id: str, visibility: str = "private") -> str:
    """A stored, indexed file of `owner_id` (its record and one chunk), as the file and RAG agents write them."""
    file_id = str(uuid.uuid4())
    await db.execute(
        "INSERT INTO file_records (id, name, stored_name, size, content_type, sha256, uploaded_at, index_status, "
        "chunks, storage_ref, owner_id, visibility) VALUES (%s, %s, %s, 1, 'text/plain', %s, now(), 'indexed', 1, "
        "%s, %s, %s)", (file_id, f"{file_id}.txt", file_id, file_id, f"local:{file_id}", owner_id, visibility))
    await db.execute(
        "INSERT INTO document_chunks (storage_ref, chunk_index, file_name, file_id, content, embedding, content_hash, "
        "owner_id, visibility) VALUES (%s, 0, %s, %s, '비밀', %s, 'h', %s, %s)",
        (f"local:{file_id}", f"{file_id}.txt", file_id, "[" + ",".join(["0.1"] * EMBEDDING_DIM) + "]",
         owner_id, visibility))
    return file_id


async def test_an_admin_changes_passwords_teams_and_roles(db: Database, tmp_path: Path) -> None:
    name = fresh("park")
    async with app_client(db, tmp_path) as http:
        await login(http, "admin", ADMIN_PASSWORD)
        created = (await http.post("/api/users", json={"username": name, "password": "park-password-1",
                                                       "teams": ["영업"]})).json()
    async with app_client(db, tmp_path) as person:
        assert (await login(person, name, "park-password-1")).status_code == 200
        async with app_client(db, tmp_path) as http:
            await login(http, "admin", ADMIN_PASSWORD)
            changed = await http.patch(f"/api/users/{created['id']}", json={"teams": ["기획", "platform"]})
            assert changed.status_code == 200 and changed.json()["teams"] == ["platform", "기획"]
            # The person's next request already belongs to the new teams; their session still holds.
            assert (await person.get("/api/me")).json()["teams"] == ["platform", "기획"]
            promoted = await http.patch(f"/api/users/{created['id']}", json={"admin": True})
            assert promoted.json()["admin"] is True and (await person.get("/api/users")).status_code == 200
            await http.patch(f"/api/users/{created['id']}", json={"admin": False})
            assert (await person.get("/api/users")).status_code == 403

            short = await http.patch(f"/api/users/{created['id']}", json={"password": "short"})
            assert short.status_code == 422 and short.headers["x-hub-error"] == "password_short"
            reset = await http.patch(f"/api/users/{created['id']}", json={"password": "park-new-password"})
            assert reset.status_code == 200
            # A new password ends the sessions opened with the old one.
            assert (await person.get("/api/me")).status_code == 401
            assert (await login(person, name, "park-password-1")).status_code == 401
            assert (await login(person, name, "park-new-password")).status_code == 200

            bad_team = await http.patch(f"/api/users/{created['id']}", json={"teams": ["a/b"]})
            assert bad_team.status_code == 422 and bad_team.headers["x-hub-error"] == "bad_team"
            unknown = await http.patch("/api/users/no-such-id", json={"admin": True})
            assert unknown.status_code == 404 and unknown.headers["x-hub-error"] == "unknown_user"
            teams = {t["name"]: t for t in (await http.get("/api/teams")).json()}
            assert name in teams["기획"]["members"] and name in teams["platform"]["members"]
        # Not an administrator: neither changes nor deletions nor the team list.
        assert (await person.patch(f"/api/users/{created['id']}", json={"admin": True})).status_code == 403
        assert (await person.delete(f"/api/users/{created['id']}")).status_code == 403
        assert (await person.get("/api/teams")).status_code == 403


async def test_a_deleted_person_hands_their_files_over_and_loses_everything_else(db: Database,
                                                                                 tmp_path: Path) -> None:
    accounts, chats = AccountStore(db), ChatStore(db)
    leaving, heir = fresh("leaving"), fresh("heir")
    gone = await accounts.create_user(leaving, "leaving-password", teams=["영업"])
    receiver = await accounts.create_user(heir, "heir-password")
    file_id = await own_file(db, gone["id"])
    conversation = uuid.uuid4().hex
    await chats.add_message(conversation, "user", "내 질문", owner_id=gone["id"])
    async with app_client(db, tmp_path) as person, app_client(db, tmp_path) as http:
        assert (await login(person, leaving, "leaving-password")).status_code == 200
        await login(http, "admin", ADMIN_PASSWORD)
        listed = {u["username"]: u for u in (await http.get("/api/users")).json()}
        assert listed[leaving]["documents"] == 1 and listed[leaving]["password"] is True

        refused = await http.delete(f"/api/users/{gone['id']}")
        assert refused.status_code == 409 and refused.headers["x-hub-error"] == "owns_documents"
        assert "1" in refused.json()["detail"]
        assert (await person.get("/api/me")).status_code == 200  # nothing was deleted
        nowhere = await http.delete(f"/api/users/{gone['id']}", params={"transfer_to": "no-such-id"})
        assert nowhere.status_code == 422 and nowhere.headers["x-hub-error"] == "bad_transfer"
        assert (await db.fetchone("SELECT owner_id FROM file_records WHERE id = %s", (file_id,)))["owner_id"] == gone["id"]

        done = await http.delete(f"/api/users/{gone['id']}", params={"transfer_to": receiver["id"]})
        assert done.status_code == 204
        assert (await person.get("/api/me")).status_code == 401  # their session ended with the account
        assert leaving not in {u["username"] for u in (await http.get("/api/users")).json()}
        assert (await http.delete(f"/api/users/{gone['id']}")).status_code == 404
    record = await db.fetchone("SELECT owner_id FROM file_records WHERE id = %s", (file_id,))
    chunk = await db.fetchone("SELECT owner_id FROM document_chunks WHERE file_id = %s", (file_id,))
    assert record["owner_id"] == chunk["owner_id"] == receiver["id"]
    assert await chats.history(conversation, owner_id=gone["id"]) in (None, [])
    assert await db.fetchone("SELECT 1 AS found FROM user_teams WHERE user_id = %s", (gone["id"],)) is None


async def test_nobody_deletes_themselves_and_the_last_admin_stays(own_db: Database, tmp_path: Path) -> None:
    async with app_client(own_db, tmp_path) as http:
        await login(http, "admin", ADMIN_PASSWORD)
        me = (await http.get("/api/me")).json()
        itself = await http.delete(f"/api/users/{me['id']}")
        assert itself.status_code == 409 and itself.headers["x-hub-error"] == "self_delete"
        demoted = await http.patch(f"/api/users/{me['id']}", json={"admin": False})
        assert demoted.status_code == 409 and demoted.headers["x-hub-error"] == "last_admin"
        assert (await http.get("/api/me")).json()["admin"] is True

        second = (await http.post("/api/users", json={"username": "second-admin", "password": "second-password",
                                                      "admin": True})).json()
        async with app_client(own_db, tmp_path) as other:
            await login(other, "second-admin", "second-password")
            # With two administrators one may step down; then the other is the last and stays.
            assert (await http.patch(f"/api/users/{me['id']}", json={"admin": False})).status_code == 200
            last = await http.delete(f"/api/users/{second['id']}")
            assert last.status_code == 403  # no longer an administrator at all
            kept = await other.delete(f"/api/users/{me['id']}", params={"transfer_to": second["id"]})
            assert kept.status_code == 204
            assert (await other.patch(f"/api/users/{second['id']}", json={"admin": False})).status_code == 409
