"""A new team's first hour in Debian's headless Chromium (frontend/tests/e2e/first_hour.mjs) against the whole
offline hub with its search gateway down: a keyboard-only upload, question, citation and close; five formats
(Markdown, HWPX, DOCX, PPTX, XLSX) uploaded and indexed; a question about one's own file answered from it while
the web is down; a follow-up shown as typed; a report on a documented topic carrying its facts, saved as one file
with both formats; a rename through the chat; a delete; the deleted note's fact gone. Screenshots of every step
(and of a failure) stay in frontend/test-artifacts/first-hour (or E2E_ARTIFACTS_DIR) for CI to keep."""

from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
from pathlib import Path

import httpx
import pytest

from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.evals.backend.hub import OfflineHub
from tests.internal_rag_agent.documents import make_deck, make_regulation, make_word, make_workbook

pytestmark = pytest.mark.e2e

FRONTEND = PROJECT_ROOT / "frontend"
CHROMIUM = Path("/usr/bin/chromium")


def write_documents(folder: Path, code: str) -> tuple[Path, list[Path]]:
    """The note the keyboard walk uploads, and four more formats."""
    folder.mkdir(parents=True, exist_ok=True)
    note = folder / "한빛_프로젝트_메모.md"
    note.write_text("# 신규 프로젝트 메모\n\n"
                    "## 한빛 프로젝트\n\n"
                    f"한빛 프로젝트의 출시 코드명은 {code}입니다. 한빛 프로젝트의 출시일은 2027년 3월 15일입니다.\n"
                    "담당 부서는 플랫폼개발팀이며, 주간 점검은 매주 화요일에 합니다.\n\n"
                    "## 다온 프로젝트\n\n"
                    "다온 프로젝트의 출시 코드명은 은하수-2입니다. 다온 프로젝트의 출시일은 2027년 9월 1일입니다.\n"
                    "담당 부서는 데이터플랫폼팀이며, 주간 점검은 매주 목요일에 합니다.\n", encoding="utf-8")
    word = folder / "travel_policy.docx"
    word.write_bytes(make_word())
    deck = folder / "quarterly_results.pptx"
    deck.write_bytes(make_deck())
    sheet = folder / "budget.xlsx"
    sheet.write_bytes(make_workbook())
    regulation = make_regulation(folder / "출장_여비_규정.hwpx")
    return note, [regulation, word, deck, sheet]


def test_a_first_hour_in_the_browser(real_hub: OfflineHub, tmp_path: Path) -> None:
    if not (FRONTEND / "dist" / "index.html").exists():
        pytest.skip("frontend/dist is not built (run `make ui`)")
    node = shutil.which("node")
    assert node and CHROMIUM.exists(), "node and Debian chromium are required (make ui browser)"
    artifacts = Path(os.environ.get("E2E_ARTIFACTS_DIR", FRONTEND / "test-artifacts")) / "first-hour"
    shutil.rmtree(artifacts, ignore_errors=True)
    code = f"파랑새-{random.randrange(1000, 9999)}"
    note, others = write_documents(tmp_path / "docs", code)
    question = "한빛 프로젝트의 출시 코드명은 무엇인가요?"
    scenario = {
        "keyboard_file": str(note), "files": [str(p) for p in others],
        "ask": {"question": question, "expect": code},
        "follow_up": {"question": "그럼 출시일은 언제예요?", "expect": "3월 15일", "absent": "9월 1일"},
        "report": {"question": "국내 출장 여비 규정을 정리한 보고서를 만들어줘", "expect_any": ["3만 원", "14일", "8만 원"]},
        "rename": {"question": "budget.xlsx 파일 이름을 예산_2027.xlsx로 바꿔줘", "from": "budget.xlsx",
                   "to": "예산_2027.xlsx"},
        "delete": note.name,
        "ask_deleted": {"question": question, "absent": code},
    }
    scenario_path = tmp_path / "scenario.json"
    scenario_path.write_text(json.dumps(scenario, ensure_ascii=False), encoding="utf-8")
    env = {**os.environ, "HUB_URL": real_hub.backend_url, "E2E_SCENARIO": str(scenario_path),
           "E2E_ARTIFACTS": str(artifacts), "CHROMIUM_PATH": str(CHROMIUM)}
    before = {f["id"] for f in httpx.get(f"{real_hub.backend_url}/api/files", timeout=30).json()}
    real_hub.launcher.kill("search_gateway")  # the web is down for the whole hour
    try:
        result = subprocess.run([node, str(FRONTEND / "tests" / "e2e" / "first_hour.mjs")], cwd=FRONTEND, env=env,
                                capture_output=True, text=True, timeout=900)
    finally:
        real_hub.launcher.restart("search_gateway")
        # The hub is shared with the session's other tests: every file the hour left (the uploads, the report)
        # goes, passed or failed.
        for record in httpx.get(f"{real_hub.backend_url}/api/files", timeout=30).json():
            if record["id"] not in before:
                httpx.delete(f"{real_hub.backend_url}/api/files/{record['id']}", timeout=60)
    report = f"{result.stdout}\n{result.stderr}\nartifacts: {artifacts}"
    print(report)
    assert result.returncode == 0, report
    assert "first hour passed" in result.stdout, report
    assert (artifacts / "hour-08-deleted.png").exists(), report
