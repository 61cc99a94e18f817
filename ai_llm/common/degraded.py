"""Counting silent fallbacks: what a reply skipped because a dependency was down.

Several steps have a cheaper fallback when a dependency fails (keyword scores when the embedding server is
down, for instance). A fallback keeps the hub answering, but a reply — or an evaluation's figure — produced
that way must say so. Code that falls back calls `note_degraded("embeddings", why)`; the name is collected
for the request being handled (a context variable, so nothing is threaded through call signatures) and the
agent's reply carries it as `data.degraded`. The log warns once per name per cool-down, not once per call.

```python
with collect_degraded() as skipped:
    reply = await agent.run(request)
reply.data["degraded"] = sorted(skipped)   # what `HubAgentExecutor` does for every A2A request
```
"""

from __future__ import annotations

import contextvars
import logging
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

log = logging.getLogger(__name__)

#: Seconds between two warnings about the same fallback.
WARN_COOLDOWN_S = 60.0

_current: contextvars.ContextVar[set[str] | None] = contextvars.ContextVar("hub_degraded", default=None)
_last_warned: dict[str, float] = {}


def note_degraded(name: str, detail: object = "") -> None:
    """Record that the current request skipped `name` (e.g. "embeddings"); warn once per cool-down."""
    found = _current.get()
    if found is not None:
        found.add(name)
    now = time.monotonic()
    if now - _last_warned.get(name, -WARN_COOLDOWN_S) >= WARN_COOLDOWN_S:
        _last_warned[name] = now
        log.warning("degraded: %s skipped (%s); further occurrences are counted in replies' data.degraded "
                    "and not logged for %.0fs", name, str(detail)[:200], WARN_COOLDOWN_S)


def add_degraded(names: Iterable[str]) -> None:
    """Record names reported by another component (a sub-agent's `data.degraded`)."""
    for name in names:
        if isinstance(name, str) and name:
            found = _current.get()
            if found is not None:
                found.add(name)


@contextmanager
def collect_degraded() -> Iterator[set[str]]:
    """Collect the fallbacks of the code run inside (nested collections also feed the outer one)."""
    outer = _current.get()
    found: set[str] = set()
    token = _current.set(found)
    try:
        yield found
    finally:
        _current.reset(token)
        if outer is not None:
            outer.update(found)
