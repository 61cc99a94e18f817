"""Dates relative to today for fixtures that a `time_range` filter judges against the clock.

A fixed date ages out of "the past week" a week later and fails a news test on an unchanged tree.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta


def days_ago(days: int) -> str:
    """ISO date `days` days before today (UTC), as a search result's `published_at`."""
    return (datetime.now(UTC) - timedelta(days=days)).date().isoformat()
