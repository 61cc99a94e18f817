"""`announce_if_slow`: a step's status line is sent only when the step does not finish at once."""

from __future__ import annotations

import asyncio

import pytest

from ai_llm.common.a2a.events import announce_if_slow, gather_within


async def test_a_step_that_finishes_at_once_is_not_announced() -> None:
    said: list[str] = []

    async def step() -> int:
        return 7

    async def announce() -> None:
        said.append("working…")

    assert await announce_if_slow(step(), announce, after_s=30) == 7  # returns when done, not after 30 s
    assert said == []


async def test_a_step_still_running_is_announced_once_and_its_result_returned() -> None:
    said: list[str] = []
    release = asyncio.Event()

    async def step() -> str:
        await release.wait()
        return "answer"

    async def announce() -> None:
        said.append("working…")
        release.set()  # the step goes on after its line was sent

    assert await announce_if_slow(step(), announce, after_s=0) == "answer"
    assert said == ["working…"]


async def test_cancelling_the_caller_cancels_the_step() -> None:
    started, cancelled = asyncio.Event(), asyncio.Event()

    async def step() -> None:
        started.set()
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    async def announce() -> None:
        return None

    caller = asyncio.create_task(announce_if_slow(step(), announce, after_s=0))
    await started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    await asyncio.wait_for(cancelled.wait(), 5)


async def test_a_failing_step_raises_to_the_caller() -> None:
    async def step() -> None:
        raise ValueError("no model")

    async def announce() -> None:
        raise AssertionError("a step that failed at once is not announced")

    with pytest.raises(ValueError, match="no model"):
        await announce_if_slow(step(), announce, after_s=30)


async def test_gather_within_gives_results_errors_and_none_for_what_was_late() -> None:
    cancelled = asyncio.Event()

    async def ok() -> str:
        return "page"

    async def broken() -> str:
        raise OSError("unreachable")

    async def hanging() -> str:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()
        return "never"

    out = await gather_within({"a": ok(), "b": broken(), "c": hanging()}, timeout_s=0.05)
    assert list(out) == ["a", "b", "c"]
    assert out["a"] == "page" and isinstance(out["b"], OSError) and out["c"] is None
    assert cancelled.is_set()  # the late call was cancelled, not left running
    assert await gather_within({}, timeout_s=1) == {}
