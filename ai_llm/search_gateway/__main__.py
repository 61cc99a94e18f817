"""`python -m ai_llm.search_gateway [--stdio] [--port N]`: run the search gateway MCP server."""

from __future__ import annotations

import argparse

from ai_llm.common.logging import setup_logging
from ai_llm.common.settings import get_settings
from ai_llm.search_gateway.server import create_server


def main() -> None:
    settings = get_settings()
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--stdio", action="store_true", help="serve over stdio instead of streamable HTTP")
    parser.add_argument("--port", type=int, default=settings.search_gateway_port)
    args = parser.parse_args()
    setup_logging("search_gateway")
    server = create_server(settings, port=args.port)
    server.run(transport="stdio" if args.stdio else "streamable-http")


if __name__ == "__main__":
    main()
