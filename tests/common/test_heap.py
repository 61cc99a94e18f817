"""`freeze_heap`: a hub server process freezes what its start-up made, and keeps collecting what comes later;
an app served inside another process (a test, a tool) leaves that process's heap alone.

Each check runs in a fresh interpreter: freezing is process-wide, and this test process's heap is not a
server's. `gc.get_objects()` lists the objects the cyclic collector still walks; frozen ones are not in it.
"""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.integration  # real processes, servers or the embedded Postgres

APP = textwrap.dedent("""
    import asyncio, gc, json, os, socket
    from contextlib import asynccontextmanager
    from starlette.applications import Starlette
    from ai_llm.common.a2a.server import run_server, serve_app

    @asynccontextmanager
    async def lifespan(app):
        app.state.made_at_start = [object()]  # a list: tracked by the collector
        yield

    app = Starlette(lifespan=lifespan)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.bind(("127.0.0.1", 0))

    def report():
        made_later = [object()]
        walked = {id(o) for o in gc.get_objects()}
        print(json.dumps({"frozen": gc.get_freeze_count(),
                          "start_up_object_walked": id(app.state.made_at_start) in walked,
                          "later_object_walked": id(made_later) in walked}), flush=True)
""")


def run_python(code: str) -> dict[str, object]:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    result: dict[str, object] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_a_server_process_freezes_its_start_up_objects_once_started() -> None:
    """`run_server`, every hub process's main loop, freezes once the app's lifespan has run."""
    result = run_python(APP + textwrap.dedent("""
        async def watch():  # started by the app's lifespan: runs once the server is up
            while gc.get_freeze_count() == 0:
                await asyncio.sleep(0.01)
            report()
            os._exit(0)

        @asynccontextmanager
        async def lifespan_and_watch(app):
            async with lifespan(app):
                task = asyncio.create_task(watch())
                yield

        app.router.lifespan_context = lifespan_and_watch
        run_server(app, sock)
    """))
    assert result["frozen"] > 1000  # type: ignore[operator]  # the libraries' objects, not a handful
    assert result["start_up_object_walked"] is False  # made by the app's lifespan: frozen with the rest
    assert result["later_object_walked"] is True  # made after start-up: still collected as usual


def test_an_app_served_inside_another_process_leaves_its_heap_alone() -> None:
    result = run_python(APP + textwrap.dedent("""
        async def main():
            server = asyncio.create_task(serve_app(app, sock))
            while not hasattr(app.state, "made_at_start"):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.3)  # well past the start-up
            report()
            server.cancel()

        asyncio.run(main())
    """))
    assert result == {"frozen": 0, "start_up_object_walked": True, "later_object_walked": True}


def test_freeze_heap_collects_start_up_garbage_before_freezing() -> None:
    """A reference cycle dropped during start-up is reclaimed, not frozen for the life of the process."""
    result = run_python(textwrap.dedent("""
        import gc, json, weakref
        from ai_llm.common.heap import freeze_heap

        class Node:
            pass

        gc.disable()  # only freeze_heap may collect here
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
        freeze_heap()
        print(json.dumps({"collected": gone() is None, "frozen": gc.get_freeze_count()}))
    """))
    assert result["collected"] is True
    assert result["frozen"] > 0  # type: ignore[operator]


def test_refreeze_heap_acts_only_in_a_process_that_froze_its_heap() -> None:
    """The embedding server freezes again once its model has loaded: only where the server froze at start."""
    result = run_python(textwrap.dedent("""
        import gc, json
        from ai_llm.common.heap import freeze_heap, refreeze_heap

        refreeze_heap()
        untouched = gc.get_freeze_count()
        freeze_heap()
        loaded_later = [object()]  # e.g. a model's objects, made after the first freeze
        refreeze_heap()
        walked = {id(o) for o in gc.get_objects()}
        print(json.dumps({"untouched": untouched, "later_object_walked": id(loaded_later) in walked}))
    """))
    assert result == {"untouched": 0, "later_object_walked": False}
