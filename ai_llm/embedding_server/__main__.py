"""`python -m ai_llm.embedding_server [--port N]`: serve the offline embedding model."""

from __future__ import annotations

import argparse

from ai_llm.common.a2a.server import bind_socket, run_server
from ai_llm.common.logging import setup_logging
from ai_llm.common.settings import get_settings
from ai_llm.embedding_server.server import ServerConfig, create_app


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--port", type=int, default=settings.embedding_port)
    args = parser.parse_args()
    setup_logging("embedding_server")
    sock = bind_socket(settings.hub_host, args.port)
    run_server(create_app(settings.hub_token, settings.allowed_hosts,
                          ServerConfig.from_settings(settings)), sock)


if __name__ == "__main__":
    main()
