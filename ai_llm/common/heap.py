"""A process's heap once it has started: frozen out of the cyclic collector's reach (`freeze_heap`)."""

from __future__ import annotations

import gc


def freeze_heap() -> None:
    """Collect the garbage of start-up, then move every object still alive out of the cyclic collector's reach.

    A hub process holds 275,000–335,000 objects once started (its libraries' modules, classes and tables, models,
    pools), nearly all of them alive until it exits. Python's full collection walks every one: 140–160 ms each in
    the orchestrator, the RAG agent and the embedding server, with about one each in a 50-chat burst — a tenth
    of the hub's CPU there, with the younger generations' collections. Frozen (`gc.freeze`), they are skipped
    (a full collection then took 14–26 ms); objects made later are collected as before. Called before the
    launcher forks its children, a child's collections also leave the pages it shares with the launcher
    untouched (copy-on-write). What start-up made and later drops in a reference cycle is not reclaimed: a
    process replaces few such objects (a broken pool or session), so this costs little memory.
    """
    gc.collect()
    gc.freeze()


def refreeze_heap() -> None:
    """`freeze_heap` again in a process that has frozen its heap already (a server that has loaded more since,
    such as the embedding server's model); a process that never froze it (a test) is left alone."""
    if gc.get_freeze_count():
        freeze_heap()
