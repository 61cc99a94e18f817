"""`hub eval files`: how well natural-language file instructions map to operations and files.

Reads a JSON file with a fixed catalogue (names, ages in days before `now`, index status) and cases
(`text`, expected `operation`, expected `targets` — a list of names, `"ALL"`, or null for no target —,
optional `confirm` and `new_name`), runs the same parser and matcher the agent uses, and reports
operation accuracy, target exact-match accuracy and confirmation accuracy (Korean and English apart).
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from ai_llm.file_management_agent.file_records import FileRecord
from ai_llm.file_management_agent.instructions import match_files, parse_instruction


def _catalogue(items: list[dict[str, Any]], now: datetime) -> list[FileRecord]:
    return [FileRecord(id=str(i), name=item["name"], stored_name=f"{i}", size=1, content_type="", sha256="",
                       uploaded_at=now - timedelta(days=float(item["age_days"])),
                       index_status=item.get("index_status", "indexed"), index_error=None, chunks=0,
                       storage_ref=f"eval://{i}") for i, item in enumerate(items)]


def targets_of(text: str, records: list[FileRecord], now: datetime) -> tuple[str, list[str] | None, str | None]:
    """(operation, names the agent would act on or None when it would ask which, new name)."""
    command = parse_instruction(text, now=now)
    if command.operation in ("unknown", "upload"):
        return command.operation, None, None
    if command.operation == "reindex" and not command.has_filter and not command.only_errors:
        command.only_errors = True
    if command.operation != "list" and not (command.has_filter or command.all_files or command.only_errors):
        return command.operation, None, command.new_name
    return command.operation, [r.name for r in match_files(records, command)], command.new_name


def evaluate(path: Path) -> dict[str, Any]:
    spec = json.loads(path.read_text(encoding="utf-8"))
    now = datetime.fromisoformat(spec["now"])
    records = _catalogue(spec["catalogue"], now)
    everything = sorted(r.name for r in records)
    rows = []
    for case in spec["cases"]:
        operation, names, new_name = targets_of(case["text"], records, now)
        expected = everything if case["targets"] == "ALL" else case["targets"]
        target_ok = (names is None and expected is None) or (
            names is not None and expected is not None and sorted(names) == sorted(expected))
        if case.get("new_name"):
            target_ok = target_ok and new_name == case["new_name"]
        would_confirm = operation == "delete" and names is not None and len(names) > 1
        rows.append({"id": case["id"], "lang": "ko" if case["id"].startswith("ko") else "en",
                     "split": case.get("split", "dev"),
                     "operation_ok": operation == case["operation"], "target_ok": target_ok,
                     "confirm_ok": would_confirm == bool(case.get("confirm")),
                     "got": {"operation": operation, "targets": names, "new_name": new_name}})

    def share(items: list[dict[str, Any]], key: str) -> float:
        return round(sum(1 for r in items if r[key]) / len(items), 3) if items else 0.0

    by_lang = {lang: [r for r in rows if r["lang"] == lang] for lang in ("ko", "en")}
    by_split = {split: [r for r in rows if r["split"] == split] for split in sorted({r["split"] for r in rows})}
    return {
        "cases": len(rows),
        "operation_accuracy": share(rows, "operation_ok"),
        "target_accuracy": share(rows, "target_ok"),
        "confirmation_accuracy": share(rows, "confirm_ok"),
        "by_language": {lang: {"cases": len(items), "operation_accuracy": share(items, "operation_ok"),
                               "target_accuracy": share(items, "target_ok")} for lang, items in by_lang.items()},
        "by_split": {split: {"cases": len(items), "operation_accuracy": share(items, "operation_ok"),
                             "target_accuracy": share(items, "target_ok")} for split, items in by_split.items()},
        "failures": [{"id": r["id"], **r["got"]} for r in rows if not (r["operation_ok"] and r["target_ok"])],
    }
