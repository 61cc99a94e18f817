"""`hub bench gateway --workloads`: each workload's development questions replayed at depths 2–10, with the
recall and the cost of each depth, and the default depth the curve gives.

Dev sets (every question with the pages that answer it, `gold`):

* `research`: the first half of the HotpotQA file (the second half is `hub eval web`'s test half) over the
  closed corpus built from that file; gold = the supporting paragraphs' pages.
* `fact_check`: the questions of `hub eval verify` (`ai_llm/evals/web/verify_eval_fixture.yaml`) over its
  pages; gold = the pages written for the question (every source the verifier has to weigh).
* `news` and `latest`: `benchmarks/data/gateway_news_dev.jsonl` over `gateway_news_dev_corpus.jsonl` plus the
  verify fixture's pages (news-like pages of the same fictional country, as distractors); gold = every report
  of the story (`news`) or the newest one (`latest`).

Questions go through an in-process `SearchGateway` (the query cleaning, filters and truncation the tools apply)
over the local corpus, with the workload named and `max_results` set to each depth; no cache. Recall of a
question = the share of its gold pages among the results.

Cost: the local corpus is free, so each workload is priced as the first paid provider its shipped chain
would call (`default` read as the automatic chain with every key set: Tavily, then DuckDuckGo), at that
provider's price in the gateway config: `cost_per_call`, plus for a model vendor's own search its tokens at the
config's token prices for an assumed token count per call (`native_tokens`). Every configured price is per
call (none depends on the number of results up to 10), so cost is flat in depth; what grows with depth is
the text the caller reads (`result_chars`: titles and snippets per search).

Default depth: the smallest depth whose recall is within `NEAR_BEST` of the best depth's.
"""

from __future__ import annotations

import asyncio
import json
import statistics
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.search_gateway.config import DEFAULT_CHAIN, GatewayConfig, load_config
from ai_llm.search_gateway.corpus import read_hotpotqa, wiki_url, write_hotpotqa_corpus
from ai_llm.search_gateway.gateway import SearchGateway
from ai_llm.search_gateway.models import Kind

DEPTHS = tuple(range(2, 11))
#: A depth is as good as the best when its recall is within this of the best depth's.
NEAR_BEST = 0.02
RULE = f"the smallest depth whose recall is within {NEAR_BEST} of the best depth's"
WORKLOADS = ("research", "fact_check", "news", "latest")
DATA = PROJECT_ROOT / "benchmarks" / "data"
NEWS_DEV = DATA / "gateway_news_dev.jsonl"
NEWS_CORPUS = DATA / "gateway_news_dev_corpus.jsonl"
VERIFY_FIXTURE = PROJECT_ROOT / "ai_llm" / "evals" / "web" / "verify_eval_fixture.yaml"
#: The automatic chain when every key is set (`config.resolve_chain` without a local corpus).
AUTO_CHAIN = ("tavily", "duckduckgo")
#: Built-in providers' prices when the config gives none (USD per call).
BUILTIN_PRICES = {"tavily": 0.008, "duckduckgo": 0.0, "local": 0.0}
#: Tokens assumed per call of a model vendor's own search (input, output), to price it.
NATIVE_TOKENS = (3000, 400)


class DevSetError(ValueError):
    """A dev set file is missing or malformed."""


@dataclass(frozen=True)
class DevQuestion:
    question: str
    gold: frozenset[str]
    kind: Kind = "web"


@dataclass
class DevSet:
    workload: str
    source: str  # what the questions are, for the report
    corpus: Path
    questions: list[DevQuestion]


def _write_pages(pages: list[dict[str, Any]], target: Path) -> Path:
    target.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages), encoding="utf-8")
    return target


def verify_pages_and_questions(fixture: Path = VERIFY_FIXTURE) -> tuple[list[dict[str, Any]], list[DevQuestion]]:
    """The `hub eval verify` fixture's pages (as corpus pages) and its questions, each with its own pages (a
    question written with no page of its own, which no search can serve, is left out)."""
    data = yaml.safe_load(fixture.read_text(encoding="utf-8"))
    pages: dict[str, dict[str, Any]] = {}
    questions = []
    for case in data["cases"]:
        gold = []
        for page in case["pages"]:
            url = data["sites"][page["site"]] + page["path"]
            published = page.get("published_at")
            pages.setdefault(url, {"url": url, "title": page["title"], "content": page["text"],
                                   "published_at": str(published) if published else None})
            gold.append(url)
        if gold:
            questions.append(DevQuestion(case["question"], frozenset(gold)))
    return list(pages.values()), questions


def research_set(hotpotqa: Path, work: Path) -> DevSet:
    rows = read_hotpotqa(hotpotqa)
    corpus = work / "research_corpus.jsonl"
    write_hotpotqa_corpus(hotpotqa, corpus)
    half = rows[: max(1, len(rows) // 2)]
    return DevSet("research", f"HotpotQA {hotpotqa.name}, first {len(half)} of {len(rows)} questions", corpus,
                  [DevQuestion(r["question"], frozenset(wiki_url(t) for t, _ in r["supporting_facts"]))
                   for r in half])


def fact_check_set(work: Path, fixture: Path = VERIFY_FIXTURE) -> DevSet:
    pages, questions = verify_pages_and_questions(fixture)
    return DevSet("fact_check", f"hub eval verify questions ({fixture.name})",
                  _write_pages(pages, work / "fact_check_corpus.jsonl"), questions)


def news_sets(dev: Path, corpus: Path, work: Path, fixture: Path = VERIFY_FIXTURE) -> list[DevSet]:
    """The `news` and `latest` sets of `dev` (`{workload, question, kind, gold}` lines) over `corpus` plus the
    verify fixture's pages."""
    for path in (dev, corpus):
        if not path.is_file():
            raise DevSetError(f"not found: {path}")
    pages = [json.loads(line) for line in corpus.read_text(encoding="utf-8").splitlines() if line.strip()]
    known = {p["url"] for p in pages}
    pages += [p for p in verify_pages_and_questions(fixture)[0] if p["url"] not in known]
    merged = _write_pages(pages, work / "news_corpus.jsonl")
    urls = {p["url"] for p in pages}
    by_workload: dict[str, list[DevQuestion]] = {}
    for number, line in enumerate(dev.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
            question = DevQuestion(str(row["question"]), frozenset(row["gold"]), row.get("kind", "web"))
            workload = str(row["workload"])
        except (ValueError, KeyError, TypeError) as exc:
            raise DevSetError(f"{dev}:{number}: needs workload, question and gold ({exc})") from exc
        if question.kind not in ("web", "news") or not question.gold or not question.gold <= urls:
            raise DevSetError(f"{dev}:{number}: kind must be web or news and every gold URL a corpus page")
        by_workload.setdefault(workload, []).append(question)
    return [DevSet(name, f"{dev.name} over {corpus.name} + the verify fixture's pages", merged, questions)
            for name, questions in by_workload.items()]


async def replay(dev: DevSet, depths: tuple[int, ...], work: Path) -> dict[str, dict[str, float]]:
    """Recall and result text per depth of `dev`'s questions through an in-process gateway over its corpus."""
    config = work / f"{dev.workload}_config.yaml"
    config.write_text("chain: [local]\ncache: {enabled: false}\nproviders:\n  local: {max_results: 20}\n",
                      encoding="utf-8")
    settings = Settings(local_corpus=dev.corpus, data_dir=work / "data", _env_file=None)  # type: ignore[call-arg]
    gateway = SearchGateway.create(settings, load_config(config))
    out = {}
    for depth in depths:
        recalls, chars = [], []
        for item in dev.questions:
            response = await gateway.search(item.question, kind=item.kind, max_results=depth, workload=dev.workload)
            urls = {r["url"] for r in response["results"]}
            recalls.append(len(item.gold & urls) / len(item.gold))
            chars.append(sum(len(r["title"]) + len(r["snippet"]) for r in response["results"]))
        out[str(depth)] = {"recall": round(statistics.fmean(recalls), 4),
                           "result_chars": round(statistics.fmean(chars), 1)}
    return out


def default_depth(curve: dict[str, dict[str, float]], near_best: float = NEAR_BEST) -> int:
    """The smallest depth whose recall is within `near_best` of the best recall on the curve."""
    best = max(point["recall"] for point in curve.values())
    return min(int(depth) for depth, point in curve.items() if point["recall"] >= best - near_best - 1e-9)


def priced_provider(config: GatewayConfig, workload: str, kind: str = "web") -> str | None:
    """The first provider of the workload's shipped chain that costs something (None when all are free)."""
    kind_chain = config.news_chain if kind == "news" and config.news_chain else config.chain
    default = list(kind_chain) if kind_chain is not None else list(AUTO_CHAIN)
    spec = config.workloads.get(workload)
    names = spec.chain if spec is not None and spec.chain is not None else [DEFAULT_CHAIN]
    chain = [n for name in names for n in (default if name == DEFAULT_CHAIN else [name])]
    return next((name for name in chain if call_price(config, name) > 0), None)


def call_price(config: GatewayConfig, name: str, native_tokens: tuple[int, int] = NATIVE_TOKENS) -> float:
    """USD of one call of provider `name` at the config's prices (a native search at `native_tokens`)."""
    from ai_llm.search_gateway.providers import gemini_grounding, openai_web_search

    pconf = config.provider(name)
    natives = {"openai_web_search": openai_web_search.DEFAULT_PRICES, "gemini_grounding": gemini_grounding.DEFAULT_PRICES}
    if name in natives:
        default = natives[name]
        per_call = default.per_call if pconf.cost_per_call is None else pconf.cost_per_call
        input_price = float(pconf.options.get("input_usd_per_mtok", default.input_per_mtok))
        output_price = float(pconf.options.get("output_usd_per_mtok", default.output_per_mtok))
        return per_call + (native_tokens[0] * input_price + native_tokens[1] * output_price) / 1e6
    if pconf.cost_per_call is not None:
        return pconf.cost_per_call
    if name in config.adapters:
        return config.adapters[name].cost_per_call
    return BUILTIN_PRICES.get(name, 0.0)


def run_workloads_benchmark(hotpotqa: Path | None, news_dev: Path = NEWS_DEV, news_corpus: Path = NEWS_CORPUS,
                            limit: int | None = None, depths: tuple[int, ...] = DEPTHS,
                            config: GatewayConfig | None = None,
                            native_tokens: tuple[int, int] = NATIVE_TOKENS) -> dict[str, Any]:
    """The curve of every workload with a dev set (`research` only with a HotpotQA file), its default depth by
    `RULE`, and the depth the shipped config gives it."""
    config = config or load_config()
    work = Path(tempfile.mkdtemp(prefix="hub-bench-workloads-"))
    sets = ([research_set(hotpotqa, work)] if hotpotqa is not None else []) + [fact_check_set(work)]
    sets += news_sets(news_dev, news_corpus, work)
    report: dict[str, Any] = {"depths": list(depths), "rule": RULE, "near_best": NEAR_BEST,
                              "native_tokens_assumed": {"input": native_tokens[0], "output": native_tokens[1]},
                              "workloads": {}}
    for dev in sorted(sets, key=lambda d: WORKLOADS.index(d.workload) if d.workload in WORKLOADS else 99):
        if limit:
            dev.questions = dev.questions[:limit]
        curve = asyncio.run(replay(dev, depths, work))
        kind = dev.questions[0].kind if dev.questions else "web"
        provider = priced_provider(config, dev.workload, kind)
        price = call_price(config, provider, native_tokens) if provider else 0.0
        for point in curve.values():
            point["cost_per_1000_queries_usd"] = round(price * 1000, 4)
        shipped = config.workloads.get(dev.workload)
        report["workloads"][dev.workload] = {
            "questions": len(dev.questions), "source": dev.source, "priced_as": provider,
            "price_per_call_usd": round(price, 6), "depth": curve, "default_depth": default_depth(curve),
            "configured_depth": shipped.max_results if shipped is not None else None}
    return report


def workloads_text(report: dict[str, Any]) -> str:
    """The report as a table per workload, for the terminal."""
    lines = [f"default depth: {report['rule']}"]
    for name, item in report["workloads"].items():
        lines.append(f"\n{name}: {item['questions']} questions ({item['source']}); priced as "
                     f"{item['priced_as'] or 'free'} at ${item['price_per_call_usd']:.4f} per call")
        lines.append("depth  recall  result chars  $ per 1,000 queries")
        for depth, point in item["depth"].items():
            lines.append(f"{depth:>5}  {point['recall']:.3f}  {point['result_chars']:>12.0f}  "
                         f"{point['cost_per_1000_queries_usd']:>8.2f}")
        lines.append(f"default depth {item['default_depth']} (configured: {item['configured_depth'] or 'none'})")
    return "\n".join(lines)
