"""End-to-end in Debian's headless Chromium: the whole offline hub plus the backend serving the built UI,
driven by the frontend's playwright-core script (frontend/tests/e2e/run.mjs): upload a real PDF with a
progress bar, see it indexed, ask a question, see live progress and an answer whose source opens that PDF
at the cited page, open its quote in the in-page viewer (PDF.js, the sentence highlighted on its page) and a
Word answer's quote at its section, at desktop and 390 px, ask what no document answers and see the fallback notice and a web answer, check an XSS
message renders inert; and, on the hub with accounts (frontend/tests/e2e/users.mjs), an administrator managing
people on the users page. Screenshots are kept as test artifacts."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ai_llm.common.settings import PROJECT_ROOT
from ai_llm.evals.backend.hub import OfflineHub
from tests.conftest import EVAL_DATA, eval_pdf

pytestmark = pytest.mark.e2e

FRONTEND = PROJECT_ROOT / "frontend"
CHROMIUM = Path("/usr/bin/chromium")
PDF = "lewis2020_rag_paper_arxiv2005.11401.pdf"
QUESTION_ID = "rag-02"  # "How are the Wikipedia articles split up before they go into the RAG document index?"
#: A question no document answers whose answer is in the hub's web corpus (HotpotQA pages): the RAG→web fallback.
HOTPOTQA = EVAL_DATA / "hotpotqa" / "dev_distractor_300.jsonl"


def fallback_question() -> str:
    first = HOTPOTQA.read_text(encoding="utf-8").split("\n", 1)[0]
    return str(json.loads(first)["question"])


def question(question_id: str) -> str:
    for line in (PROJECT_ROOT / "benchmarks" / "data" / "rag_qa.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip() and (row := json.loads(line))["id"] == question_id:
            return str(row["question"])
    raise LookupError(question_id)


def test_browser_end_to_end(real_hub: OfflineHub, tmp_path: Path) -> None:
    if not (FRONTEND / "dist" / "index.html").exists():
        pytest.skip("frontend/dist is not built (run `make ui`)")
    pdf = eval_pdf(PDF)
    node = shutil.which("node")
    assert node, "node is required for the browser test (installed with the frontend toolchain)"
    assert CHROMIUM.exists(), "Debian chromium is missing: `make browser` installs it"
    assert (FRONTEND / "node_modules" / "playwright-core").exists(), "run `npm ci` in frontend/ (make ui)"
    artifacts = Path(os.environ.get("E2E_ARTIFACTS_DIR", tmp_path / "e2e-artifacts"))
    from tests.internal_rag_agent.documents import make_word

    docx = tmp_path / "travel_policy.docx"
    docx.write_bytes(make_word())
    env = {**os.environ, "HUB_URL": real_hub.backend_url, "E2E_PDF": str(pdf),
           "E2E_QUESTION": question(QUESTION_ID), "E2E_ARTIFACTS": str(artifacts),
           "E2E_FALLBACK_QUESTION": fallback_question(),
           "E2E_DOCX": str(docx), "E2E_DOCX_QUESTION": "How many days after the return do we have to file travel claims?",
           "CHROMIUM_PATH": str(CHROMIUM)}
    result = subprocess.run([node, str(FRONTEND / "tests" / "e2e" / "run.mjs")], cwd=FRONTEND, env=env,
                            capture_output=True, text=True, timeout=900)
    report = f"{result.stdout}\n{result.stderr}\nartifacts: {artifacts}"
    print(report)  # shown with `pytest -rP`: the checks passed and where the screenshots are
    assert result.returncode == 0, report
    assert "E2E passed" in result.stdout, report
    assert (artifacts / "02-answer.png").exists() and (artifacts / "02b-fallback.png").exists()


def test_an_admin_manages_people_in_the_browser(team_hub: OfflineHub, tmp_path: Path) -> None:
    """frontend/tests/e2e/users.mjs against the hub with accounts: the admin signs in, makes a person in a
    team, changes the team, checks that person has no users tab (403 from /api/users) and deletes them (their
    session ends); no page overflows at 390 px."""
    from tests.backend.conftest import TEAM_HUB_ADMIN_PASSWORD

    if not (FRONTEND / "dist" / "index.html").exists():
        pytest.skip("frontend/dist is not built (run `make ui`)")
    node = shutil.which("node")
    assert node and CHROMIUM.exists(), "node and Debian chromium are required (make ui browser)"
    artifacts = Path(os.environ.get("E2E_ARTIFACTS_DIR", tmp_path / "e2e-artifacts"))
    env = {**os.environ, "HUB_URL": team_hub.backend_url, "E2E_ADMIN_PASSWORD": TEAM_HUB_ADMIN_PASSWORD,
           "E2E_USERNAME": f"e2e-{os.getpid()}", "E2E_ARTIFACTS": str(artifacts), "CHROMIUM_PATH": str(CHROMIUM)}
    result = subprocess.run([node, str(FRONTEND / "tests" / "e2e" / "users.mjs")], cwd=FRONTEND, env=env,
                            capture_output=True, text=True, timeout=300)
    report = f"{result.stdout}\n{result.stderr}\nartifacts: {artifacts}"
    print(report)
    assert result.returncode == 0, report
    assert "users passed" in result.stdout, report
    assert (artifacts / "users-1-desktop.png").exists() and (artifacts / "users-2-mobile.png").exists()
