"""`freeze_heap`: a hub server freezes what its start-up made, and keeps collecting what comes later.

Each check runs in a fresh interpreter: freezing is process-wide, and this test process's heap is not a
server's. `gc.get_objects()` lists the objects the cyclic collector still walks; frozen ones are not in it.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SERVE = textwrap.dedent("""
    import asyncio, gc, json, socket
    from contextlib import asynccontextmanager
    from starlette.applications import Starlette
    from ai_llm.common.a2a_server import serve_app

    @asynccontextmanager
    async def lifespan(app):
        app.state.made_at_start = [object()]  # a list: tracked by the collector
        yield

    app = Starlette(lifespan=lifespan)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))

    async def main():
        frozen_before = gc.get_freeze_count()
        server = asyncio.create_task(serve_app(app, sock))
        while not hasattr(app.state, "made_at_start") or gc.get_freeze_count() == frozen_before:
            await asyncio.sleep(0.01)
        made_later = [object()]
        walked = {id(o) for o in gc.get_objects()}
        print(json.dumps({"frozen_before": frozen_before, "frozen_after": gc.get_freeze_count(),
                          "start_up_object_walked": id(app.state.made_at_start) in walked,
                          "later_object_walked": id(made_later) in walked}))
        server.cancel()

    asyncio.run(asyncio.wait_for(main(), 60))
""")


def run_python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout.strip().splitlines()[-1]


def test_a_server_freezes_its_start_up_objects_once_started() -> None:
    import json

    result = json.loads(run_python(SERVE))
    assert result["frozen_before"] == 0
    assert result["frozen_after"] > 1000  # the libraries' objects, not a handful
    assert result["start_up_object_walked"] is False  # made by the app's lifespan: frozen with the rest
    assert result["later_object_walked"] is True  # made after start-up: still collected as usual


def test_freeze_heap_collects_start_up_garbage_before_freezing() -> None:
    """A reference cycle dropped during start-up is reclaimed, not frozen for the life of the process."""
    out = run_python(textwrap.dedent("""
        import gc, weakref
        from ai_llm.common.process import freeze_heap

        class Node:
            pass

        gc.disable()  # only freeze_heap may collect here
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        freeze_heap()
        print(gone() is None, gc.get_freeze_count() > 0)
    """))
    assert out == "True True"
