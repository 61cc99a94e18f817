"""`hub bench files` reports throughput and a streamed upload (on the session Postgres here; the command
starts its own)."""

from __future__ import annotations

from ai_llm.evals.files.benchmark import run_bench


async def test_bench_reports_throughput_and_a_heap_far_below_the_file_size(pg_url: str) -> None:
    result = await run_bench(size_mb=4, rounds=2, database_url=pg_url)
    assert result["file_mb"] == 4.0 and result["upload_mb_per_s"] > 0 and result["disk_write_mb_per_s"] > 0
    assert result["upload_vs_disk_write_ratio"] > 0
    assert result["peak_heap_vs_file_size_ratio"] < 0.5  # the body is streamed, never held whole
