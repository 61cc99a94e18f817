"""What every agent process shares: settings, the embeddings and LLM adapters, the database, and the
runner that binds a port, builds the card and serves the app (`python -m ai_llm.<agent>`)."""

from __future__ import annotations

import argparse
import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.applications import Starlette

from ai_llm.common.a2a.server import base_url, bind_socket, run_server
from ai_llm.common.embeddings import KNOWN_DIMENSIONS, Embeddings, make_embeddings
from ai_llm.common.llm import LLM, make_llm
from ai_llm.common.logging import setup_logging
from ai_llm.common.settings import Settings, get_settings
from ai_llm.common.store.db import Database, close_shared, migrate, open_shared, resolve_database_url

log = logging.getLogger(__name__)


@dataclass
class HubDeps:
    """The ports an agent depends on, built once by `from_settings` (the composition root: the only place
    that knows whether the LLM is online). Tests build one with whatever they inject; an agent's own
    collaborators (a document store, an index client) are keyword arguments of its app factory."""

    settings: Settings
    embeddings: Embeddings
    llm: LLM
    db: Database | None = None
    _pg_server: Any = None

    @classmethod
    def from_settings(cls, settings: Settings) -> HubDeps:
        embeddings = make_embeddings(settings)
        return cls(settings=settings, embeddings=embeddings, llm=make_llm(settings))

    async def open_db(self) -> Database:
        """Open (and migrate) the hub database once; later calls return the same pool."""
        if self.db is None:
            url, self._pg_server = await asyncio.to_thread(resolve_database_url, self.settings)
            dimension = self.embeddings.dimension or KNOWN_DIMENSIONS.get(self.embeddings.model, 0)
            await migrate(url, self.embeddings.model, dimension)
            self.db = await open_shared(url)
        return self.db

    async def close(self) -> None:
        if self.db is not None:
            await close_shared(self.db)
            self.db = None
        await self.embeddings.close()


AppFactory = Callable[[HubDeps, str], Starlette]


def run_agent(name: str, factory: AppFactory, default_port: int | None = None) -> None:
    """Entry point of an agent process: parse `--port`, bind, build the app for its URL, serve.

    Args:
        name: agent name as in `Settings.agent_url` (`internal_rag`, …).
        factory: `(deps, base_url) -> Starlette`; open async resources in the app's lifespan.
    """
    settings = get_settings()
    parser = argparse.ArgumentParser(prog=f"python -m ai_llm.{name}")
    parser.add_argument("--port", type=int, default=default_port if default_port is not None
                        else settings.agent_port(name))
    args = parser.parse_args()
    setup_logging(name)
    sock = bind_socket(settings.hub_host, args.port)
    url = base_url(settings.hub_host, sock.getsockname()[1])
    deps = HubDeps.from_settings(settings)
    app = factory(deps, url)
    log.info("%s serving at %s", name, url)
    run_server(app, sock)
