"""`python -m ai_llm.search_gateway [--stdio] [--port N]`: run the search gateway MCP server."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys

from ai_llm.common.a2a.server import base_url, bind_socket, run_server
from ai_llm.common.logging import setup_logging
from ai_llm.common.settings import get_settings
from ai_llm.search_gateway.config import ConfigError
from ai_llm.search_gateway.providers.local import CorpusError
from ai_llm.search_gateway.server import create_http_app, create_server, run_stdio

log = logging.getLogger("ai_llm.search_gateway")


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="serve over stdio instead of streamable HTTP")
    parser.add_argument("--port", type=int, default=settings.search_gateway_port)
    args = parser.parse_args()
    setup_logging("search_gateway")
    if args.stdio:
        # stdout carries the MCP protocol: logs must go to stderr only (basicConfig's default).
        logging.getLogger().handlers[:] = [logging.StreamHandler(sys.stderr)]
    try:
        mcp = create_server(settings, port=args.port)
    except (ConfigError, CorpusError) as exc:
        print(f"search gateway: configuration error: {exc}", file=sys.stderr)
        raise SystemExit(2) from exc
    if args.stdio:
        asyncio.run(run_stdio(mcp))
        return
    sock = bind_socket(settings.hub_host, args.port)
    url = base_url(settings.hub_host, sock.getsockname()[1])
    log.info("search gateway serving MCP at %s/mcp", url)
    run_server(create_http_app(settings, mcp), sock)


if __name__ == "__main__":
    main()
