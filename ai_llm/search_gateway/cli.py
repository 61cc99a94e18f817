"""`hub search stats`, `hub search corpus`: the search gateway's runtime commands."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import typer

from ai_llm.common.cli_output import emit
from ai_llm.common.settings import PROJECT_ROOT, get_settings

DEFAULT_HOTPOTQA = PROJECT_ROOT.parent / "shared" / "eval-data" / "hotpotqa" / "dev_distractor_300.jsonl"


async def _stats(hours: float) -> dict[str, Any]:
    from ai_llm.common.embeddings import KNOWN_DIMENSIONS
    from ai_llm.common.store.db import Database, migrate, resolve_database_url
    from ai_llm.search_gateway.telemetry import telemetry_summary

    settings = get_settings()
    url, _server = await asyncio.to_thread(resolve_database_url, settings)
    model = settings.embedding_model_name
    await migrate(url, model, KNOWN_DIMENSIONS.get(model, 384))
    async with Database(url, max_size=2) as db:
        return await telemetry_summary(db, hours=hours)


def _stats_table(summary: dict[str, Any]) -> str:
    lines = [f"search gateway, last {summary['hours']:g} h",
             f"{'provider':<14}{'requests':>9}{'spend $':>11}{'hit rate':>10}{'p50 ms':>10}{'p95 ms':>10}"]
    for p in summary["providers"]:
        lines.append(f"{p['provider']:<14}{p['requests']:>9}{p['spend_usd']:>11.4f}{p['hit_rate']:>10.1%}"
                     f"{p['p50_ms']:>10.1f}{p['p95_ms']:>10.1f}")
    if not summary["providers"]:
        lines.append("(no searches recorded)")
    if summary.get("workloads"):
        lines += ["", f"{'workload':<14}{'requests':>9}{'spend $':>11}{'hit rate':>10}{'tokens':>10}  providers"]
        for w in summary["workloads"]:
            providers = ", ".join(f"{p['provider']} {p['requests']}" for p in w["providers"])
            lines.append(f"{w['workload']:<14}{w['requests']:>9}{w['spend_usd']:>11.4f}{w['hit_rate']:>10.1%}"
                         f"{w['tokens']:>10}  {providers}")
    return "\n".join(lines)


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub search stats` and `hub search corpus`."""

    @search_app.command("stats")
    def stats(
        hours: Annotated[float, typer.Option(help="time window in hours")] = 24.0,
        as_json: Annotated[bool, typer.Option("--json", help="print the dashboard JSON")] = False,
    ) -> None:
        """Spend, hit rate and p50/p95 latency per provider, and spend per workload (from the hub database's
        telemetry)."""
        if hours <= 0:
            typer.echo("--hours must be positive", err=True)
            raise typer.Exit(2)
        summary = asyncio.run(_stats(hours))
        emit(summary, as_json, _stats_table(summary))

    @search_app.command("corpus")
    def corpus(
        target: Annotated[Path, typer.Argument(help="JSONL file to write (use it as LOCAL_CORPUS)")],
        hotpotqa: Annotated[Path, typer.Option(help="HotpotQA distractor JSONL")] = DEFAULT_HOTPOTQA,
    ) -> None:
        """Build a local-provider corpus (one page per paragraph, Wikipedia URLs) from HotpotQA."""
        from ai_llm.search_gateway.corpus import write_hotpotqa_corpus

        if not hotpotqa.is_file():
            typer.echo(f"not found: {hotpotqa}", err=True)
            raise typer.Exit(2)
        typer.echo(f"{write_hotpotqa_corpus(hotpotqa, target)} pages written to {target}")
