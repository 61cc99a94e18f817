"""`python -m backend [--port N]`: serve the backend (API + built UI) on HUB_HOST."""

from __future__ import annotations

import argparse
import logging

from ai_llm.common.a2a.server import base_url, bind_socket, run_server
from ai_llm.common.logging import setup_logging
from ai_llm.common.settings import get_settings
from backend.api.main import create_app

log = logging.getLogger("backend")


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(prog="python -m backend", description=__doc__)
    parser.add_argument("--port", type=int, default=settings.backend_port)
    args = parser.parse_args()
    setup_logging("backend")
    sock = bind_socket(settings.hub_host, args.port)
    log.info("backend serving at %s", base_url(settings.hub_host, sock.getsockname()[1]))
    run_server(create_app(settings), sock)


if __name__ == "__main__":
    main()
