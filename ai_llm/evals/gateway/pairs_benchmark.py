"""`hub bench gateway --pairs FILE.jsonl`: does the semantic cache serve a query another query's results?

Each line of the pair file is `{"a": str, "b": str, "same": bool}` (optional `kind`, `lang` tags): `a` is
searched first and cached, then `b` is asked. With `same: false`, serving `b` from `a`'s entry is a *wrong
hit* (another question's results); with `same: true`, serving it is the wanted *same hit*.

Everything runs through the real path, as `hub bench gateway` does: an embedded Postgres, the embedding
server (the configured offline model) and gateway processes over MCP, the local provider answering from a corpus of the
pair texts themselves (one page per text, so every query has results and is cached). Two gateways run in
the same run: one with the same-request guard (`cache.semantic_guard: true`, the default policy) and the
cosine-only baseline (`semantic_guard: false`) at the same threshold, plus cosine-only gateways at any
`--baseline-threshold` (such as the old policy's 0.93).

Isolation: every search of a pair carries a `region` unique to that pair, run and gateway
(`pair-<run>-<gateway>-<index>`). The region is part of the cache key's parameters (and ignored by the
local provider), so `b` can only ever be served from its own pair's `a`, never from another pair's entry or
from the other gateway's.
"""

from __future__ import annotations

import asyncio
import json
import tempfile
import uuid
from contextlib import ExitStack
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai_llm.common.embeddings import index_model
from ai_llm.common.settings import get_settings
from ai_llm.common.store.db import migrate, start_embedded_postgres
from ai_llm.common.store.jsonl import iter_jsonl
from ai_llm.evals.gateway.benchmark import gateway_process, mcp_calls
from ai_llm.hub.process import embedding_server
from ai_llm.search_gateway.config import load_config

GUARD, COSINE = "guard", "cosine"


class PairFileError(ValueError):
    """The pair file is missing or malformed (the message names file and line)."""


@dataclass
class Pair:
    """One labelled pair: `b` asked after `a` was cached; `same` says whether `a`'s results answer `b`."""

    a: str
    b: str
    same: bool
    kind: str | None = None
    lang: str | None = None


def read_pairs(path: Path) -> list[Pair]:
    """Parse a pair file; `PairFileError` naming file and line on bad input."""
    pairs = []
    for lineno, row in iter_jsonl(path, PairFileError, missing="pair file {path} does not exist"):
        if not isinstance(row, dict) or not all(isinstance(row.get(k), str) and row[k].strip() for k in "ab"):
            raise PairFileError(f"{path}:{lineno}: each line needs non-empty strings 'a' and 'b'")
        if not isinstance(row.get("same"), bool):
            raise PairFileError(f"{path}:{lineno}: 'same' must be true or false")
        pairs.append(Pair(row["a"], row["b"], row["same"], _tag(row.get("kind")), _tag(row.get("lang"))))
    if not pairs:
        raise PairFileError(f"{path}: no pairs")
    return pairs


def _tag(value: Any) -> str | None:
    return str(value) if value not in (None, "") else None


def write_pair_corpus(pairs: list[Pair], target: Path) -> int:
    """One local-provider page per distinct pair text (title and content = the text)."""
    texts = list(dict.fromkeys(t for p in pairs for t in (p.a, p.b)))
    with target.open("w", encoding="utf-8") as out:
        for i, text in enumerate(texts):
            out.write(json.dumps({"url": f"https://pairs.invalid/{i}", "title": text, "content": text},
                                 ensure_ascii=False) + "\n")
    return len(texts)


def _rate(hits: int, total: int) -> float | None:
    return round(hits / total, 4) if total else None


@dataclass(frozen=True)
class Variant:
    """One gateway of the run: with or without the same-request guard, at a threshold."""

    name: str
    guard: bool
    threshold: float


def _counts(pairs: list[Pair], served: list[bool], indices: list[int]) -> tuple[int, float | None]:
    """(wrong hits, same-hit rate) of one variant over some pairs."""
    same = [i for i in indices if pairs[i].same]
    wrong = sum(served[i] for i in indices if not pairs[i].same)
    return wrong, _rate(sum(served[i] for i in same), len(same))


def _figures(pairs: list[Pair], served: dict[str, list[bool]], indices: list[int]) -> dict[str, Any]:
    same = sum(pairs[i].same for i in indices)
    wrong, rate = _counts(pairs, served[GUARD], indices)
    base_wrong, base_rate = _counts(pairs, served[COSINE], indices)
    return {"n": len(indices), "same": same, "different": len(indices) - same, "wrong_hits": wrong,
            "same_hit_rate": rate, "baseline_wrong_hits": base_wrong, "baseline_same_hit_rate": base_rate}


def _breakdown(pairs: list[Pair], served: dict[str, list[bool]], attr: str) -> dict[str, Any]:
    groups: dict[str, list[int]] = {}
    for i, pair in enumerate(pairs):
        tag = getattr(pair, attr)
        if tag is not None:
            groups.setdefault(tag, []).append(i)
    return {tag: _figures(pairs, served, idx) for tag, idx in sorted(groups.items())}


def _baseline(pairs: list[Pair], served: list[bool], threshold: float) -> dict[str, Any]:
    every = list(range(len(pairs)))
    wrong, rate = _counts(pairs, served, every)
    different = sum(not p.same for p in pairs)
    return {"semantic_threshold": threshold, "wrong_hits": wrong, "wrong_hit_rate": _rate(wrong, different),
            "same_hits": sum(served[i] for i in every if pairs[i].same), "same_hit_rate": rate}


def summarise(pairs: list[Pair], variants: list[Variant], served: dict[str, list[bool]],
              a_cached: dict[str, list[bool]], candidates: int, path: Path | None = None,
              show_errors: bool = False) -> dict[str, Any]:
    """The report: guarded figures, the cosine-only baseline, breakdowns by `kind` and `lang` tags.

    Args:
        pairs: the pairs, in file order.
        variants: the gateways that ran: `guard`, `cosine` (same threshold) and any extra cosine-only ones.
        served: per variant name, whether `b` was served from the cache, per pair.
        a_cached: per variant name, whether `a` had results (and so was cached), per pair.
        candidates: `cache.semantic_candidates` of the guarded gateway.
        path: the pair file, for the report.
        show_errors: list the guarded gateway's wrong hits and missed same pairs (for tuning on dev data).
    """
    every = list(range(len(pairs)))
    threshold = next(v.threshold for v in variants if v.name == GUARD)
    total = _figures(pairs, served, every)
    report: dict[str, Any] = {
        "file": str(path) if path else None,
        "n": len(pairs), "same": total["same"], "different": total["different"],
        "semantic_threshold": threshold, "semantic_candidates": candidates,
        "wrong_hits": total["wrong_hits"], "wrong_hit_rate": _rate(total["wrong_hits"], total["different"]),
        "same_hits": sum(served[GUARD][i] for i in every if pairs[i].same),
        "same_hit_rate": total["same_hit_rate"],
        "baseline_cosine_only": _baseline(pairs, served[COSINE], threshold),
    }
    extra = [v for v in variants if v.name not in (GUARD, COSINE)]
    if extra:
        report["baseline_cosine_only_at"] = {f"{v.threshold:g}": _baseline(pairs, served[v.name], v.threshold)
                                             for v in extra}
    report["a_without_results"] = sum(not ok for v in variants for ok in a_cached[v.name])
    report["isolation"] = "one cache-key region per pair, run and gateway"
    kinds = _breakdown(pairs, served, "kind")
    langs = _breakdown(pairs, served, "lang")
    if kinds:
        report["by_kind"] = kinds
    if langs:
        report["by_lang"] = langs
    if show_errors:
        from ai_llm.search_gateway.query_match import compare

        def item(i: int) -> dict[str, Any]:
            p = pairs[i]
            return {"a": p.a, "b": p.b, "kind": p.kind, "lang": p.lang, "check": compare(p.a, p.b).reason,
                    "cosine_hit": served[COSINE][i]}

        report["errors"] = {
            "wrong_hits": [item(i) for i in every if not pairs[i].same and served[GUARD][i]],
            "missed_same": [item(i) for i in every if pairs[i].same and not served[GUARD][i]],
        }
    return report


def _config(threshold: float, guard: bool, candidates: int) -> str:
    return ("chain: [local]\nproviders:\n  local: {timeout_s: 30}\n"
            f"cache: {{enabled: true, semantic: true, semantic_threshold: {threshold}, embed_timeout_s: 60, "
            f"semantic_guard: {'true' if guard else 'false'}, semantic_candidates: {candidates}}}\n")


def run_pairs_benchmark(path: Path, threshold: float | None = None, baseline_thresholds: tuple[float, ...] = (),
                        candidates: int | None = None, show_errors: bool = False, log_dir: Path | None = None,
                        database_url: str | None = None, embedding_url: str | None = None) -> dict[str, Any]:
    """Run the pair benchmark; returns `{"pairs": report}` (see `summarise`).

    Args:
        path: the pair file (JSONL).
        threshold: semantic threshold of the guarded gateway and its cosine-only baseline (default: the
            shipped `search_config.yaml` value).
        baseline_thresholds: more cosine-only gateways at these thresholds (e.g. the old policy's 0.93).
        candidates: nearest candidates the guarded gateway checks (default: the shipped value).
        show_errors: include the guarded gateway's errors in the report.
        log_dir: where child processes log (a temporary folder by default).
        database_url: use this migrated Postgres instead of starting an embedded one (tests).
        embedding_url: use this embedding server (`…/v1`) instead of starting one (tests).
    """
    defaults = load_config().cache
    threshold = defaults.semantic_threshold if threshold is None else threshold
    candidates = defaults.semantic_candidates if candidates is None else candidates
    variants = [Variant(GUARD, True, threshold), Variant(COSINE, False, threshold)]
    variants += [Variant(f"cosine@{t:g}", False, t) for t in dict.fromkeys(baseline_thresholds) if t != threshold]
    pairs = read_pairs(path)
    tmp = Path(tempfile.mkdtemp(prefix="hub-bench-pairs-"))
    log_dir = log_dir or tmp / "logs"
    corpus = tmp / "corpus.jsonl"
    write_pair_corpus(pairs, corpus)
    run = uuid.uuid4().hex[:8]
    server = None
    try:
        if database_url is None:
            server, database_url = start_embedded_postgres(tmp / "pg")
            asyncio.run(migrate(database_url, *index_model(get_settings())))
        with ExitStack() as stack:
            embedding = stack.enter_context(embedding_server(embedding_url, log_dir=log_dir, timeout_s=180))
            urls = {}
            for number, variant in enumerate(variants):
                config = tmp / f"search_config_{number}.yaml"
                config.write_text(_config(variant.threshold, variant.guard, candidates), encoding="utf-8")
                env = {"DATABASE_URL": database_url, "EMBEDDING_URL": embedding, "LOCAL_CORPUS": str(corpus),
                       "SEARCH_CONFIG": str(config), "DATA_DIR": str(tmp / f"data-{number}")}
                urls[variant.name] = stack.enter_context(gateway_process(f"search_gateway_{number}", env, log_dir))
            served, a_cached = _ask_pairs(pairs, variants, urls, run)
    finally:
        if server is not None:
            server.cleanup()
    return {"pairs": summarise(pairs, variants, served, a_cached, candidates, path, show_errors)}


def _ask_pairs(pairs: list[Pair], variants: list[Variant], urls: dict[str, str],
               run: str) -> tuple[dict[str, list[bool]], dict[str, list[bool]]]:
    """Ask each gateway every pair (`a`, then `b`); per variant name: was `b` served from the cache, and
    did `a` have results (and so get cached)."""
    served: dict[str, list[bool]] = {}
    a_cached: dict[str, list[bool]] = {}
    for number, variant in enumerate(variants):
        calls = []
        for i, pair in enumerate(pairs):
            region = f"pair-{run}-{number}-{i}"
            calls += [{"query": pair.a, "region": region, "agent": "bench-pairs"},
                      {"query": pair.b, "region": region, "agent": "bench-pairs"}]
        outs = asyncio.run(mcp_calls(urls[variant.name], calls))
        a_cached[variant.name] = [bool(out["results"]) for out, _ in outs[0::2]]
        served[variant.name] = [out["cache"] != "miss" for out, _ in outs[1::2]]
    return served, a_cached


def pairs_text(report: dict[str, Any]) -> str:
    """A few human-readable lines of the report."""
    r = report["pairs"]
    base = r["baseline_cosine_only"]
    lines = [f"{r['n']} pairs ({r['same']} same, {r['different']} different), threshold {r['semantic_threshold']}",
             f"same-request guard: wrong hits {r['wrong_hits']}, same hit rate {_pct(r['same_hit_rate'])}",
             f"cosine only:        wrong hits {base['wrong_hits']}, same hit rate {_pct(base['same_hit_rate'])}"]
    for t, extra in r.get("baseline_cosine_only_at", {}).items():
        lines.append(f"cosine only at {t}: wrong hits {extra['wrong_hits']}, same hit rate "
                     f"{_pct(extra['same_hit_rate'])}")
    for name, group in r.get("by_kind", {}).items():
        lines.append(f"  {name:<18} n={group['n']:<4} wrong {group['wrong_hits']} (cosine {group['baseline_wrong_hits']})"
                     f"  same hits {_pct(group['same_hit_rate'])} (cosine {_pct(group['baseline_same_hit_rate'])})")
    return "\n".join(lines)


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"
