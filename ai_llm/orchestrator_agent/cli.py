"""`hub classify`: plan one request the way the orchestrator would, without running it."""

from __future__ import annotations

import asyncio
import time
from typing import Annotated, Any

import typer

from ai_llm.common.cli_output import emit


def register(app: typer.Typer, eval_app: typer.Typer, bench_app: typer.Typer, search_app: typer.Typer) -> None:
    """Add the orchestrator's runtime command to the `hub` CLI."""

    @app.command("classify")
    def classify(
        message: Annotated[str, typer.Argument(help="the request to plan")],
        as_json: Annotated[bool, typer.Option("--json", help="print one JSON object")] = False,
    ) -> None:
        """Plan one request (intent + steps) the way the orchestrator would, without running it."""
        from ai_llm.common.settings import get_settings
        from ai_llm.orchestrator_agent.planner import make_planner, plan_json
        from ai_llm.orchestrator_agent.registry import build_registry

        if not message.strip():
            typer.echo("the message is empty", err=True)
            raise typer.Exit(2)
        settings = get_settings()

        async def run() -> dict[str, Any]:
            infos = await build_registry(settings).infos()
            started = time.perf_counter()
            outcome = await make_planner(settings).plan(message, infos)
            return {"message": message, "intent": outcome.plan.intent, "planner": outcome.planner,
                    "plan": plan_json(outcome.plan), "notes": outcome.notes,
                    "classification": outcome.decision.to_dict() if outcome.decision else None,
                    "elapsed_ms": round((time.perf_counter() - started) * 1000, 1)}

        payload = asyncio.run(run())
        steps = ", ".join(s["agent"] + (f"/{s['skill']}" if s.get("skill") else "") for s in payload["plan"]["steps"])
        emit(payload, as_json, f"{payload['intent']}  [{payload['planner']}]  {steps or '(no agent)'}")
