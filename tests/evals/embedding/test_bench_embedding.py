"""`hub bench embedding` helpers: the query workload and the caller driver (no timing asserted)."""

from __future__ import annotations

import asyncio

from ai_llm.evals.embedding.benchmark import SOURCES, drive, load_texts, text_report


def test_workload_is_distinct_real_queries() -> None:
    assert all(path.is_file() for path, _ in SOURCES)  # a moved set would silently shrink the workload
    texts = load_texts(1024)
    assert len(texts) == len(set(texts)) == 1024
    assert any("?" in t for t in texts) and any(any("가" <= c <= "힣" for c in t) for t in texts)


async def test_every_text_is_sent_once_by_the_concurrent_callers() -> None:
    seen: list[str] = []
    active = 0
    peak = 0

    async def call(text: str) -> None:
        nonlocal active, peak
        active += 1
        peak = max(peak, active)
        await asyncio.sleep(0)
        seen.append(text)
        active -= 1

    texts = [f"t{i}" for i in range(100)]
    assert await drive(call, texts, 8) > 0
    assert sorted(seen) == sorted(texts) and peak == 8


def test_text_report_shows_each_level_and_the_goal() -> None:
    result = {"model": "m", "cpu_threads": 2, "texts_per_level": 4, "load_average_at_start": 1.0,
              "load_average_at_end": 1.5, "servers": {"onnx": {"runtime": "onnx", "cache": {}}},
              "levels": {"1": {"bare_torch": 10.0, "server_onnx": 20.0, "ratio_server_onnx": 2.0},
                         "64": {"bare_torch": 10.0, "server_onnx": 35.0, "ratio_server_onnx": 3.5}},
              "goal": "g", "goal_met": True, "best_ratio_at_top": 3.5}
    report = text_report(result)
    assert "3.50x" in report and "met" in report and report.count("\n") >= 4
