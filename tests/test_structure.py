"""The layering the code promises (docs/architecture.md), checked on the source itself.

`ai_llm.hub` (CLI, launcher) → `ai_llm.evals` → agents (`ai_llm.<agent>`, `backend`) → the hub's leaf helpers →
`ai_llm.common`; every concern is a package; callers use the LLM port without knowing which adapter they hold;
user-facing text comes from the one message catalog.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
AGENTS = ("orchestrator_agent", "internal_rag_agent", "web_research_agent", "file_management_agent",
          "report_writing_agent", "search_gateway", "embedding_server")


def _sources(*folders: str) -> list[Path]:
    return sorted(p for folder in folders for p in (ROOT / folder).rglob("*.py"))


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _violations(paths: list[Path], forbidden: re.Pattern[str]) -> list[str]:
    return [f"{p.relative_to(ROOT)} imports {name}" for p in paths for name in sorted(_imports(p))
            if forbidden.match(name)]


#: What the agents, `common` and the backend may use of `ai_llm.hub`: its leaf helpers, which import only
#: `ai_llm.common` (child processes, the launcher's status file).
HUB_LEAVES = ("ai_llm/hub/process.py", "ai_llm/hub/supervision.py")


def test_runtime_code_never_imports_evaluation_code_or_the_cli() -> None:
    runtime = _sources(*(f"ai_llm/{a}" for a in AGENTS), "ai_llm/common", "backend", "ai_llm/hub")
    runtime = [p for p in runtime if p != ROOT / "ai_llm/hub/cli.py"]
    assert _violations(runtime, re.compile(r"ai_llm\.(evals|hub\.cli)(\.|$)")) == []


def test_every_concern_is_a_package_and_nothing_is_loose_at_the_top() -> None:
    loose = sorted(p.name for p in (ROOT / "ai_llm").glob("*.py") if p.name != "__init__.py")
    assert loose == []
    packages = sorted(p.name for p in (ROOT / "ai_llm").iterdir() if (p / "__init__.py").exists())
    assert packages == sorted(("common", "evals", "hub", *AGENTS))
    # `common` holds its larger concerns as packages; each of them is one.
    assert {p.name for p in (ROOT / "ai_llm/common").iterdir() if (p / "__init__.py").exists()} \
        == {"a2a", "http", "messages", "store", "text"}


def test_agents_and_the_backend_use_only_the_hub_leaf_helpers() -> None:
    leaves = {".".join(Path(p).with_suffix("").parts) for p in HUB_LEAVES}
    users = _sources(*(f"ai_llm/{a}" for a in AGENTS), "backend")
    found = [f"{p.relative_to(ROOT)} imports {name}" for p in users for name in sorted(_imports(p))
             if re.match(r"ai_llm\.hub(\.|$)", name) and not any(name == m or name.startswith(m + ".") for m in leaves)]
    assert found == []
    # The leaves import nothing above `common`, so the hub's launcher and CLI stay on top of everything.
    above = re.compile(rf"(ai_llm\.({'|'.join(AGENTS)}|evals|hub\.(launcher|cli|local_llm))|backend)(\.|$)")
    assert _violations([ROOT / p for p in HUB_LEAVES], above) == []


def test_the_hub_imports_no_agent_statically() -> None:
    """The launcher pre-imports agents by module name (`importlib`), so no agent module loads with the hub's own."""
    pattern = re.compile(rf"(ai_llm\.({'|'.join(AGENTS)})|backend)(\.|$)")
    assert _violations(_sources("ai_llm/hub"), pattern) == []


def test_common_never_imports_an_agent_or_the_backend() -> None:
    pattern = re.compile(rf"(ai_llm\.({'|'.join(AGENTS)}|hub)|backend)(\.|$)")
    assert _violations(_sources("ai_llm/common"), pattern) == []


def test_the_backend_reaches_the_search_gateway_only_through_its_interface() -> None:
    assert _violations(_sources("backend"), re.compile(r"ai_llm\.search_gateway(\.|$)")) == []


def test_no_evaluation_code_or_fixture_inside_the_runtime_packages() -> None:
    names = re.compile(r"(evaluation|verify_eval|bench|benchmark|bench_agent|pairs_benchmark)\.py$|_fixture\.ya?ml$")
    found = [str(p.relative_to(ROOT)) for folder in (*(f"ai_llm/{a}" for a in AGENTS), "ai_llm/common", "backend")
             for p in (ROOT / folder).rglob("*") if names.search(p.name)]
    assert found == []


@pytest.mark.parametrize("pattern", [r"isinstance\([^)]*LocalEngine", r"\.online\b", r"getattr\([^)]*['\"]online['\"]"])
def test_callers_use_the_llm_port_without_probing_the_adapter(pattern: str) -> None:
    """Only the composition root (`ai_llm/common/runtime.py`) and the adapters themselves know the mode."""
    allowed = {ROOT / "ai_llm/common/runtime.py", ROOT / "ai_llm/common/llm.py"}
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in _sources("ai_llm", "backend") if p not in allowed
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if re.search(pattern, line)]
    assert hits == []


def test_user_facing_tables_live_only_in_the_message_catalog() -> None:
    """No module outside `ai_llm/common/messages/` keeps a ko/en text table of its own."""
    table = re.compile(r"""^\s*["']ko["']\s*:\s*["{]""")
    hits = [f"{p.relative_to(ROOT)}:{i}" for p in _sources("ai_llm", "backend")
            if "ai_llm/common/messages" not in p.as_posix()
            for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if table.search(line)]
    assert hits == []
