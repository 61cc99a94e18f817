"""The layering the code promises (docs/architecture.md), checked on the source itself.

`hub` CLI → `ai_llm.evals` → agents (`ai_llm.<agent>`, `backend`) → `ai_llm.common`; callers use the LLM port
without knowing which adapter they hold; user-facing text comes from the one message catalog.
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


def test_runtime_code_never_imports_evaluation_code_or_the_cli() -> None:
    runtime = _sources(*(f"ai_llm/{a}" for a in AGENTS), "ai_llm/common", "backend")
    runtime += [ROOT / "ai_llm" / name for name in ("launcher.py", "supervision.py", "hub_control.py")]
    assert _violations(runtime, re.compile(r"ai_llm\.(evals|cli)(\.|$)")) == []


def test_common_never_imports_an_agent_or_the_backend() -> None:
    pattern = re.compile(rf"(ai_llm\.({'|'.join(AGENTS)})|backend)(\.|$)")
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
