"""Keyboard and screen-reader checks of the built UI in Debian's headless Chromium, driven by
frontend/tests/e2e/a11y.mjs with the hub's API answered inside the browser (no hub is started): the skip link
is the first Tab stop and reaches the chat input; one h1; a complete answer is announced once in the status
region and the message list is no live region; the document viewer keeps Tab inside, closes on Escape and
returns the focus to its quote; at 390 px a long location chip wraps instead of scrolling the message list;
axe-core (npm) finds no WCAG 2.1 A/AA violation on the chat (Korean and English, desktop and 390 px), the open
viewer and the search dashboard; in Korean, the chat (with an answer's steps), the viewer and the dashboard show
no English words outside names (their visible text and accessible names; the mocked data left out)."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from ai_llm.common.settings import PROJECT_ROOT

pytestmark = pytest.mark.e2e

FRONTEND = PROJECT_ROOT / "frontend"
CHROMIUM = Path("/usr/bin/chromium")


def test_keyboard_and_screen_reader_basics(tmp_path: Path) -> None:
    if not (FRONTEND / "dist" / "index.html").exists():
        pytest.skip("frontend/dist is not built (run `make ui`)")
    node = shutil.which("node")
    assert node and CHROMIUM.exists(), "node and Debian chromium are required (make ui browser)"
    assert (FRONTEND / "node_modules" / "playwright-core").exists(), "run `npm ci` in frontend/ (make ui)"
    artifacts = Path(os.environ.get("E2E_ARTIFACTS_DIR", tmp_path / "e2e-artifacts"))
    env = {**os.environ, "E2E_ARTIFACTS": str(artifacts), "CHROMIUM_PATH": str(CHROMIUM)}
    result = subprocess.run([node, str(FRONTEND / "tests" / "e2e" / "a11y.mjs")], cwd=FRONTEND, env=env,
                            capture_output=True, text=True, timeout=180)
    report = f"{result.stdout}\n{result.stderr}\nartifacts: {artifacts}"
    print(report)
    assert result.returncode == 0, report
    assert "a11y passed" in result.stdout, report
    assert (artifacts / "a11y-390.png").exists()
