"""`hub` command line: start the hub, talk to agents, evaluate and benchmark.

Each component adds its own commands from `ai_llm/<component>/cli.py` through a `register(app)` function
(`hub eval rag`, `hub bench gateway`, `hub search stats`, …), so this file stays small.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import signal
from typing import Annotated, Any

import typer

from ai_llm.common.a2a.client import RemoteAgent, RemoteAgentError
from ai_llm.common.a2a.events import StatusEvent
from ai_llm.common.cli_output import emit
from ai_llm.common.settings import get_settings

app = typer.Typer(help="Agent Hub: A2A multi-agent hub.", no_args_is_help=True, add_completion=False)
eval_app = typer.Typer(help="Quality evaluations on real data (print JSON with --json).", no_args_is_help=True)
bench_app = typer.Typer(help="Benchmarks: ratios against a baseline measured in the same run.",
                        no_args_is_help=True)
search_app = typer.Typer(help="Search gateway tools.", no_args_is_help=True)
app.add_typer(eval_app, name="eval")
app.add_typer(bench_app, name="bench")
app.add_typer(search_app, name="search")

#: Modules contributing commands; each defines `register(app, eval_app, bench_app, search_app)`.
#: The agents' modules add their runtime commands, the `ai_llm.evals` ones every `hub eval` / `hub bench`.
PLUGINS = [
    "ai_llm.evals.launcher.cli",
    "ai_llm.internal_rag_agent.cli",
    "ai_llm.search_gateway.cli",
    "ai_llm.orchestrator_agent.cli",
    "ai_llm.file_management_agent.cli",
    "ai_llm.evals.rag.cli",
    "ai_llm.evals.reader.cli",
    "ai_llm.evals.orchestrator.cli",
    "ai_llm.evals.web.cli",
    "ai_llm.evals.gateway.cli",
    "ai_llm.evals.files.cli",
    "ai_llm.evals.embedding.cli",
    "ai_llm.evals.backend.cli",
]

AGENT_ALIASES = {
    "orchestrator": "orchestrator", "orch": "orchestrator",
    "rag": "internal_rag", "internal_rag": "internal_rag",
    "web": "web_research", "web_research": "web_research",
    "file": "file_management", "files": "file_management", "file_management": "file_management",
    "report": "report_writing", "report_writing": "report_writing",
}


@app.command(context_settings={"allow_extra_args": True, "ignore_unknown_options": True})
def up(ctx: typer.Context) -> None:
    """Start the whole hub (same as `python start_agents.py`; options pass through)."""
    from ai_llm.hub.launcher import main as launch

    raise typer.Exit(launch(list(ctx.args)))


@app.command()
def ask(
    message: Annotated[str, typer.Argument(help="the question or instruction")],
    agent: Annotated[str, typer.Option(help="orchestrator (default), rag, web, file, report")] = "orchestrator",
    data: Annotated[str | None, typer.Option(help="JSON object sent as a data part (e.g. a skill)")] = None,
    context_id: Annotated[str | None, typer.Option(help="conversation id to continue")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="print the reply as JSON")] = False,
) -> None:
    """Ask the hub (through the orchestrator) or one agent directly over A2A."""
    settings = get_settings()
    name = AGENT_ALIASES.get(agent)
    if name is None:
        typer.echo(f"unknown agent {agent!r}; choose one of: {', '.join(sorted(set(AGENT_ALIASES)))}", err=True)
        raise typer.Exit(2)
    payload = json.loads(data) if data else None
    remote = RemoteAgent(settings.agent_url(name), token=settings.hub_token, timeout_s=settings.agent_timeout_s,
                         name=name)

    async def on_status(event: StatusEvent) -> None:
        typer.echo(f"[{event.agent}] {event.message}", err=True)

    try:
        reply = asyncio.run(remote.ask(message, data=payload, context_id=context_id, on_status=on_status))
    except RemoteAgentError as exc:
        typer.echo(f"error: {exc}", err=True)
        raise typer.Exit(1) from exc
    emit({"agent": reply.agent, "state": reply.state, "text": reply.text, "data": reply.data,
          "context_id": reply.context_id}, as_json, reply.text)
    if reply.state == "failed":
        raise typer.Exit(1)


def _load_plugins() -> None:
    for module_name in PLUGINS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name and module_name.startswith(exc.name):  # component not present in this checkout
                continue
            raise
        module.register(app, eval_app, bench_app, search_app)


def _exit_on_sigterm(signum: int, _frame: Any) -> None:
    """SIGTERM ends a command as an error exit would: `finally` blocks, context managers and atexit run, so an
    evaluation's embedded Postgres and embedding server stop with it (the default action left them running).
    `hub run` replaces this with the launcher's own handler."""
    raise SystemExit(128 + signum)


def main() -> None:
    """Console-script entry point."""
    signal.signal(signal.SIGTERM, _exit_on_sigterm)
    _load_plugins()
    app(prog_name="hub")


if __name__ == "__main__":
    main()
