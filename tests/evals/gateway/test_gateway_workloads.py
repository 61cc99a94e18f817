"""`hub bench gateway --workloads` on tiny inputs: the curve per workload, the default-depth rule, the price
each workload is billed at, and bad dev sets refused."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ai_llm.evals.gateway.cli import register
from ai_llm.evals.gateway.workloads import call_price, default_depth, priced_provider
from ai_llm.search_gateway.config import load_config
from tests.search_gateway.conftest import hub_app, write_hotpot

NEWS_PAGES = [
    {"url": "https://news.example/strike-1", "title": "Dock workers strike in Kessport",
     "content": "Dock workers in Kessport began a strike over pay on Monday.", "published_at": "2026-11-10"},
    {"url": "https://news.example/strike-2", "title": "Kessport dock strike ends",
     "content": "The Kessport dock strike ended on Friday with a pay deal.", "published_at": "2026-11-14"},
    {"url": "https://news.example/bakery", "title": "New bakery opens",
     "content": "A bakery opened in the old town, selling rye bread.", "published_at": "2026-11-12"},
]
NEWS_DEV = [
    {"workload": "news", "kind": "news", "question": "Kessport dock strike",
     "gold": ["https://news.example/strike-1", "https://news.example/strike-2"]},
    {"workload": "latest", "kind": "web", "question": "Has the Kessport dock strike ended?",
     "gold": ["https://news.example/strike-2"]},
]


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _keys(value: Any) -> list[str]:
    if isinstance(value, dict):
        return [k for k in value if not k.isdigit()] + [k for v in value.values() for k in _keys(v)]
    if isinstance(value, list):
        return [k for v in value for k in _keys(v)]
    return []


def test_the_workloads_bench_prints_a_curve_per_workload(tmp_path: Path) -> None:
    app = hub_app(register)
    args = ["bench", "gateway", str(write_hotpot(tmp_path / "hotpot.jsonl")), "--workloads", "--limit", "3",
            "--news-dev", str(_jsonl(tmp_path / "dev.jsonl", NEWS_DEV)),
            "--news-corpus", str(_jsonl(tmp_path / "corpus.jsonl", NEWS_PAGES))]
    result = CliRunner().invoke(app, [*args, "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output)
    assert all(re.fullmatch(r"[a-z][a-z0-9_]*", key) for key in _keys(report))
    assert list(report["workloads"]) == ["research", "fact_check", "news", "latest"]
    assert report["depths"] == list(range(2, 11))
    research = report["workloads"]["research"]
    assert research["questions"] == 1  # the first half of the two HotpotQA rows
    fact_check = report["workloads"]["fact_check"]
    assert fact_check["questions"] == 3  # --limit
    assert fact_check["depth"]["2"]["result_chars"] < fact_check["depth"]["10"]["result_chars"]  # depth is asked
    for name, item in report["workloads"].items():
        recalls = [item["depth"][str(d)]["recall"] for d in range(2, 11)]
        chars = [item["depth"][str(d)]["result_chars"] for d in range(2, 11)]
        assert all(0 <= r <= 1 for r in recalls) and recalls == sorted(recalls), name  # more results, no less
        assert chars == sorted(chars), name
        assert item["default_depth"] == default_depth(item["depth"])
    # Both news questions find their gold pages among three corpus pages plus the verify fixture's.
    assert report["workloads"]["news"]["depth"]["10"]["recall"] == 1.0
    assert report["workloads"]["latest"]["depth"]["10"]["recall"] == 1.0
    # The local corpus is free: each workload is priced as its shipped chain's first paid provider.
    config = load_config()
    latest = report["workloads"]["latest"]
    assert latest["priced_as"] == "openai_web_search"
    assert latest["depth"]["2"]["cost_per_1000_queries_usd"] == pytest.approx(
        1000 * call_price(config, "openai_web_search"), abs=1e-4)
    assert latest["price_per_call_usd"] > research["price_per_call_usd"] > 0
    # The table for the terminal.
    text = CliRunner().invoke(app, args).output
    assert "latest: 1 questions" in text and "default depth" in text


def test_the_default_depth_is_the_smallest_near_the_best() -> None:
    curve = {str(d): {"recall": r} for d, r in [(2, 0.5), (3, 0.7), (4, 0.79), (5, 0.8), (6, 0.8)]}
    assert default_depth(curve) == 4
    assert default_depth(curve, near_best=0.0) == 5
    assert default_depth(curve, near_best=0.3) == 2


def test_prices_come_from_the_config(tmp_path: Path) -> None:
    path = tmp_path / "cfg.yaml"
    path.write_text("chain: [duckduckgo, serper]\nproviders:\n  serper: {cost_per_call: 0.003}\n"
                    "  gemini_grounding: {cost_per_call: 0.02, input_usd_per_mtok: 1, output_usd_per_mtok: 2}\n"
                    "workloads:\n  latest: {chain: [gemini_grounding, default]}\n  free: {chain: [duckduckgo]}\n",
                    encoding="utf-8")
    config = load_config(path)
    assert priced_provider(config, "research") == "serper"  # duckduckgo is free: the first paid one
    assert priced_provider(config, "free") is None
    assert priced_provider(config, "latest") == "gemini_grounding"
    assert call_price(config, "gemini_grounding", (1000, 100)) == pytest.approx(0.02 + (1000 * 1 + 100 * 2) / 1e6)
    assert call_price(config, "serper") == 0.003


def test_a_gold_page_outside_the_corpus_is_refused(tmp_path: Path) -> None:
    bad = [{**NEWS_DEV[0], "gold": ["https://news.example/nowhere"]}]
    result = CliRunner().invoke(hub_app(register), [
        "bench", "gateway", str(write_hotpot(tmp_path / "hotpot.jsonl")), "--workloads",
        "--news-dev", str(_jsonl(tmp_path / "dev.jsonl", bad)),
        "--news-corpus", str(_jsonl(tmp_path / "corpus.jsonl", NEWS_PAGES))])
    assert result.exit_code == 2 and "every gold URL a corpus page" in result.output
