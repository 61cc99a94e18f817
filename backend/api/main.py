"""Builds the backend's FastAPI app: API routers, Host/Origin guard, login check, the Vue app at `/`."""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from fastapi import FastAPI, HTTPException, Request
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, HTMLResponse, Response

from ai_llm.common.embeddings import index_model
from ai_llm.common.http.guard import HostOriginGuard
from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.common.store.db import Database, migrate, resolve_database_url
from backend.api.routers import audit, auth, chat, files, health, search, users
from backend.api.state import BackendState

log = logging.getLogger(__name__)

FRONTEND_DIST = PROJECT_ROOT / "frontend" / "dist"

NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>Agent Hub</title>
<p>The chat UI is not built yet: run <code>make ui</code> (or <code>npm run build</code> in
<code>frontend/</code>). The API is up: <a href="/docs">/docs</a>.</p>"""


async def open_database(settings: Settings) -> tuple[Database, Any]:
    """The hub database (embedded Postgres unless DATABASE_URL is set), migrated."""
    url, server = await asyncio.to_thread(resolve_database_url, settings)
    await migrate(url, *index_model(settings))
    return await Database(url, max_size=16).open(), server


def create_app(settings: Settings, *, db: Database | None = None, static_dir: Path | None = None) -> FastAPI:
    """The backend app.

    With `HUB_TOKEN` set, every route but login/logout, health and the UI's static files needs the token or
    the session cookie (`routers/auth.py`), whatever the bind address.

    Args:
        settings: hub settings (agent URLs, token, allowed hosts, limits).
        db: an open, migrated database to use (tests); by default one is opened in the lifespan.
        static_dir: the built UI (default `frontend/dist`); served at `/` with an SPA fallback when present.
    """
    dist = static_dir or FRONTEND_DIST

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        own_db, server = (db, None) if db is not None else await open_database(settings)
        state = BackendState.build(settings, own_db)
        if await state.accounts.ensure_admin(settings.hub_admin_password):
            log.info("created the administrator account 'admin' (HUB_ADMIN_PASSWORD)")
        app.state.backend = state
        try:
            yield
        finally:
            await state.close()
            if db is None:
                await own_db.close()
            del server  # the embedded Postgres stays up while another hub process still uses it

    app = FastAPI(title="Agent Hub API", version="0.1.0", lifespan=lifespan,
                  description="Chat over Server-Sent Events, files, search telemetry and health of the hub.")
    app.add_middleware(auth.SessionAuthMiddleware)
    app.add_middleware(HostOriginGuard, allowed_hosts=settings.allowed_hosts)  # added last: runs first

    @app.exception_handler(RequestValidationError)
    async def validation_error(_: Request, exc: RequestValidationError) -> Response:
        # ASCII-escaped, so an invalid input echoed back (a lone surrogate, say) cannot break the 422 itself.
        body = json.dumps({"detail": jsonable_encoder(exc.errors())}, ensure_ascii=True, default=str)
        return Response(body, status_code=422, media_type="application/json")

    for module in (auth, users, chat, files, search, audit, health):
        app.include_router(module.router)

    @app.get("/{path:path}", include_in_schema=False, name=auth.STATIC_UI_ROUTE)
    async def frontend(path: str) -> Response:
        # Unknown /api/* paths are API 404s, never the SPA's index page.
        if path == "api" or path.startswith("api/"):
            raise HTTPException(404, "not found")
        index = dist / "index.html"
        if not index.is_file():
            return HTMLResponse(NOT_BUILT)
        root = dist.resolve()
        candidate = (dist / path).resolve()
        if path and candidate.is_file() and candidate.is_relative_to(root):
            return FileResponse(candidate)
        return FileResponse(index, headers={"Cache-Control": "no-cache"})

    return app
