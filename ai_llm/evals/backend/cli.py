"""`hub bench backend`: concurrent chats through `/api/chat` against an offline hub on ephemeral ports."""

from __future__ import annotations

import asyncio
import shutil
import tempfile
from pathlib import Path
from typing import Annotated, Any

import typer

from ai_llm.common.cli_output import emit
from ai_llm.evals.backend.census import read_counters
from ai_llm.evals.backend.hub import offline_hub
from ai_llm.evals.backend.load import DEFAULT_EVAL_DATA, DEFAULT_PDF, parse_levels, run_bench, text_report
from ai_llm.evals.backend.profile import hub_processes
from ai_llm.hub.launcher import REPLICA_ALIASES, LaunchError, parse_replicas


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add `hub bench backend`."""

    @bench_app.command("backend")
    def bench_backend(
        chats: Annotated[str, typer.Option(help="concurrent chats; several levels separated by commas "
                                                "(10,50,100,200), run one after the other on one hub")] = "50",
        eval_data: Annotated[Path, typer.Option(help="shared evaluation data folder")] = DEFAULT_EVAL_DATA,
        pdf: Annotated[str, typer.Option(help="PDF under <eval-data>/pdfs to index and ask about")] = DEFAULT_PDF,
        baseline: Annotated[int, typer.Option(help="also send this many chats straight to the orchestrator "
                                                   "over A2A (the baseline without the backend); 0: none")] = 0,
        profile: Annotated[Path | None, typer.Option(help="sample every hub process with py-spy during the "
                                                          "--profile-chats level; raw stacks go here")] = None,
        profile_chats: Annotated[int, typer.Option(help="the level that --profile samples")] = 50,
        logs: Annotated[Path | None, typer.Option(help="copy every hub process's log here at the end")] = None,
        replicas: Annotated[str | None, typer.Option(help="replicas per agent, e.g. rag=2,web=2 (each on its own "
                                                          "loopback address)")] = None,
        kill_replica: Annotated[str | None, typer.Option(help="kill -9 the last replica of this agent (e.g. rag) "
                                                              "--kill-after seconds into the first level")] = None,
        kill_after: Annotated[float, typer.Option(help="seconds into the first level for --kill-replica")] = 2.0,
        census: Annotated[bool, typer.Option(help="count the work of each chat (Postgres transactions, A2A "
                                                  "tasks, search calls, embedding texts); waits 11 s around "
                                                  "each level for Postgres' statistics")] = False,
        llm_url: Annotated[str | None, typer.Option(
            help="the hub's model (an OpenAI-compatible server, e.g. http://127.0.0.1:10020/v1): answers are "
                 "written by it and streamed; each level also reports time to the first answer token")] = None,
        llm_model: Annotated[str | None, typer.Option(help="the model id at --llm-url (default LLM_MODEL)")] = None,
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Concurrent chats through /api/chat against an offline hub (or one with --llm-url's model): chats/s,
        first-status, first-token and answer percentiles for each level, per-stage timings, CPU seconds per
        process; the question mix is the same at every level (documents, web, hybrid in turn)."""
        levels = parse_levels(chats)
        pdf_path = eval_data / "pdfs" / pdf
        if not pdf_path.exists():
            typer.echo(f"evaluation PDF {pdf_path} not found (give --eval-data / --pdf)", err=True)
            raise typer.Exit(2)
        try:
            counts = parse_replicas(replicas)
        except LaunchError as exc:
            raise typer.BadParameter(str(exc)) from exc
        victim = (REPLICA_ALIASES.get(kill_replica) or kill_replica) if kill_replica else None
        if victim is not None and counts.get(victim, 1) < 2:
            raise typer.BadParameter(f"--kill-replica {kill_replica}: give it at least two --replicas")
        with tempfile.TemporaryDirectory(prefix="hub-bench-backend-") as tmp, \
                offline_hub(Path(tmp), eval_data=eval_data, replicas=counts, freeze_heap=True,
                            llm_url=llm_url, llm_model=llm_model) as hub:

            def kill() -> dict[str, Any]:
                assert victim is not None
                replica = counts[victim]
                return {"agent": victim, "replica": replica, "pid": hub.launcher.kill(victim, replica=replica)}

            def count() -> dict[str, float]:
                assert hub.launcher.database_url is not None
                return read_counters(hub.launcher.database_url, hub.urls.get("embedding_server"))

            result = asyncio.run(run_bench(hub.backend_url, hub.urls["orchestrator"], pdf_path, levels,
                                           hub.launcher.settings.hub_token,
                                           baseline_chats=baseline, processes=hub_processes(hub),
                                           profile_dir=profile, profile_chats=profile_chats,
                                           kill=kill if victim else None, kill_after_s=kill_after,
                                           census=count if census else None))
            result["startup_s"] = round(hub.startup_s, 2)
            result["replicas"] = counts
            if logs is not None:
                shutil.copytree(hub.launcher.settings.logs_dir, logs, dirs_exist_ok=True)
        emit(result, as_json, text_report(result))
        if any(level["errors"] for level in result["levels"]):
            raise typer.Exit(1)
