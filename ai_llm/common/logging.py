"""Process logging set-up (one format for every hub process; the launcher captures stderr per process)."""

from __future__ import annotations

import logging


def setup_logging(name: str, level: int = logging.INFO) -> None:
    logging.basicConfig(level=level, format=f"%(asctime)s {name} %(levelname)s %(name)s: %(message)s")
    for noisy in ("httpx", "httpcore", "a2a", "mcp", "sentence_transformers"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
