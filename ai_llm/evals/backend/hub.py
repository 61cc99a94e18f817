"""The whole hub, offline, on ephemeral ports: for `hub bench backend` and the backend's real-hub and browser
end-to-end tests.

Offline means: no OpenAI key or base URL (offline mode: no model is called), the local embedding server,
and, when the evaluation data is present, the search gateway's local-corpus provider over the HotpotQA
pages (no network search at all).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx

from ai_llm.common.settings import Settings
from ai_llm.evals.harness import with_model_server
from ai_llm.hub.launcher import SERVICES, Launcher
from ai_llm.search_gateway.corpus import write_hotpotqa_corpus

#: Blanked in every child, so a developer's shell cannot turn the offline hub into an online one.
ONLINE_VARIABLES = ("OPENAI_API_KEY", "OPENAI_BASE_URL", "TAVILY_API_KEY", "SERPER_API_KEY", "EXA_API_KEY",
                    "BRIGHTDATA_API_KEY", "FIRECRAWL_API_KEY", "OPENAI_WEB_SEARCH_API_KEY", "GEMINI_API_KEY",
                    "MCP_SERVERS", "SUPABASE_URL", "SUPABASE_KEY")


class OfflineLauncher(Launcher):
    """The hub launcher with every online service switched off in the children's environment (but a model
    server given as `openai_base_url`, a local one for the LLM-path tests and benchmarks)."""

    def child_env(self) -> dict[str, str]:
        env = super().child_env()
        env.update({name: "" for name in ONLINE_VARIABLES})
        env["EMBEDDING_PROVIDER"] = "local"
        if self.settings.openai_base_url:  # a model server the caller chose (`offline_hub(llm_url=…)`): kept
            env["OPENAI_BASE_URL"] = self.settings.openai_base_url
        return env


@dataclass
class OfflineHub:
    """URLs of a running offline hub."""

    backend_url: str
    urls: dict[str, str]
    startup_s: float
    launcher: Launcher


def hotpotqa_corpus(eval_data: Path | None, target: Path) -> Path | None:
    """Write the local search corpus from the HotpotQA eval file; None when the file is absent."""
    source = eval_data / "hotpotqa" / "dev_distractor_300.jsonl" if eval_data else None
    if source is None or not source.exists():
        return None
    write_hotpotqa_corpus(source, target)
    return target


@contextmanager
def offline_hub(data_dir: Path, *, eval_data: Path | None = None, database_url: str | None = None,
                embedding_url: str | None = None, timeout_s: float = 240.0,
                replicas: dict[str, int] | None = None, freeze_heap: bool = False,
                hub_token: str | None = None, admin_password: str | None = None,
                llm_url: str | None = None, llm_model: str | None = None,
                agent_timeouts: str | None = None) -> Iterator[OfflineHub]:
    """Start every hub process on free ports (reusing a database / embedding server when given); stop all.

    Args:
        data_dir: the hub's data directory (embedded Postgres, files, logs).
        eval_data: the shared evaluation data (for the local search corpus), if present.
        database_url: an existing database to use instead of an embedded one under `data_dir`.
        embedding_url: an existing embedding server (`…/v1`) instead of starting one.
        replicas: agent -> number of replicas (`parse_replicas`), each on its own loopback address; not
            supervised here, so a replica killed by a benchmark stays down.
        freeze_heap: freeze this process's heap before forking the hub's processes, as `hub up` does
            (`Launcher`); for a command that only runs this hub, not a test process.
        hub_token, admin_password: `HUB_TOKEN` and `HUB_ADMIN_PASSWORD` (accounts and login), when given.
        llm_url, llm_model: an OpenAI-compatible model server (`OPENAI_BASE_URL`, `LLM_MODEL`) every agent uses
            instead of the offline mode.
        agent_timeouts: the orchestrator's per-agent step limits (`ORCHESTRATOR_AGENT_TIMEOUTS`; default the
            product's): tests give the RAG step more than its 20 s, so a loaded machine does not turn a document
            answer into the web fallback.
    """
    corpus = hotpotqa_corpus(eval_data, data_dir / "corpus" / "hotpotqa.jsonl")
    settings = Settings(_env_file=None, hub_host="127.0.0.1", data_dir=data_dir,  # type: ignore[call-arg]
                        database_url=database_url,
                        embedding_url=embedding_url, local_corpus=corpus, openai_api_key=None,
                        openai_base_url=llm_url, embedding_provider="local", hub_token=hub_token,
                        hub_admin_password=admin_password)
    if agent_timeouts is not None:
        settings = settings.model_copy(update={"orchestrator_agent_timeouts": agent_timeouts})
    if llm_url:
        settings = with_model_server(settings, llm_url, llm_model)
    only = {s.name for s in SERVICES} - ({"embedding_server"} if embedding_url else set())
    launcher = OfflineLauncher(settings, only=only, ephemeral=True, replicas=replicas, freeze_heap=freeze_heap)
    try:
        startup_s = launcher.start(timeout_s=timeout_s)
        urls = {child.name: child.url or "" for child in launcher.children}
        yield OfflineHub(backend_url=urls["backend"], urls=urls, startup_s=startup_s, launcher=launcher)
    finally:
        launcher.stop()


async def upload_and_wait(http: httpx.AsyncClient, path: Path, timeout_s: float = 300.0) -> dict[str, Any]:
    """Upload a file through the backend and wait until it is indexed; returns its record."""
    with path.open("rb") as handle:
        response = await http.post("/api/files", files={"file": (path.name, handle, "application/pdf")})
    response.raise_for_status()
    record: dict[str, Any] = response.json()
    deadline = time.monotonic() + timeout_s
    while record.get("index_status") == "indexing":
        if time.monotonic() > deadline:
            raise TimeoutError(f"{path.name} was not indexed within {timeout_s:.0f}s")
        await asyncio.sleep(0.5)
        record = (await http.get(f"/api/files/{record['id']}")).json()
    if record.get("index_status") not in ("indexed", "skipped"):
        raise RuntimeError(f"{path.name} could not be indexed: {record.get('index_error')}")
    return record
