"""Fact verification (`verify_fact`): a numeric fact cross-checked across independent sources, with quotes.

Pipeline: three query patterns searched in parallel → blocklisted domains dropped → every result page read
through `fetch_page` → candidate values extracted from sentences that name the metric (the value is parsed
from that very sentence, kept as `original_text`) → snippet claims confirmed against the fetched page →
freshness, tiers, independence (registrable domains) and agreement (±tolerance, same date) decided by the
rules in `fact_rules.yaml`. Nothing numeric is reported unless it was found and quoted; failures carry a
code (`INSUFFICIENT_SOURCES`, `NO_PRIMARY_SOURCE`, `VALUE_MISMATCH`, `STALE_DATA`, `QUOTE_MISMATCH`,
`BLOCKED_SOURCE_ONLY`) and never an estimate.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any

import tldextract
import yaml

from ai_llm.common.events import STATUS_ERROR, STATUS_NO_RESULT, STATUS_OK, AgentReply
from ai_llm.common.runtime import HubDeps
from ai_llm.common.text import content_words, is_korean, normalize, split_sentences, tokenize
from ai_llm.web_research_agent.mcp_tools import PageContent, SearchHit, SearchToolset, ToolsUnavailable
from ai_llm.web_research_agent.numbers import ParsedNumber, agree, format_number, parse_numbers

RULES_PATH = Path(__file__).with_name("fact_rules.yaml")
_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # bundled list: no network

ERROR_CODES = ("INSUFFICIENT_SOURCES", "NO_PRIMARY_SOURCE", "VALUE_MISMATCH", "STALE_DATA", "QUOTE_MISMATCH",
               "BLOCKED_SOURCE_ONLY")
_VERIFY_WORDS = {"verify", "check", "confirm", "today", "current", "currently", "latest", "now", "what", "value",
                 "검증", "검증해줘", "확인", "확인해줘", "오늘", "현재", "최신", "지금", "알려줘", "얼마", "얼마야"}
_MONTHS = {m: i for i, m in enumerate(["january", "february", "march", "april", "may", "june", "july", "august",
                                       "september", "october", "november", "december"], 1)}
_DATE_PATTERNS = [
    (re.compile(r"\b(20\d{2})-(\d{1,2})-(\d{1,2})\b"), ("y", "m", "d")),
    (re.compile(r"(20\d{2})년\s*(\d{1,2})월\s*(\d{1,2})일"), ("y", "m", "d")),
    (re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2}),?\s+(20\d{2})\b", re.I), ("M", "d", "y")),
    (re.compile(r"\b(\d{1,2})\s+(" + "|".join(_MONTHS) + r")\s+(20\d{2})\b", re.I), ("d", "M", "y")),
]


class RulesError(ValueError):
    """The rules YAML is invalid (message names the file and key)."""


@dataclass
class FactRules:
    """The verification policy (see `fact_rules.yaml`)."""

    min_sources: int = 3
    min_tier1: int = 1
    tolerance_pct: float = 1.0
    max_age_days: int = 7
    max_pages: int = 12
    read_budget_s: float = 10.0
    tiers: dict[int, list[str]] = field(default_factory=dict)
    blocklist: list[str] = field(default_factory=list)

    @classmethod
    def load(cls, path: Path = RULES_PATH) -> FactRules:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise RulesError(f"cannot read fact rules {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise RulesError(f"{path}: expected a mapping")
        tiers = data.get("tiers") or {}
        if not isinstance(tiers, dict) or not all(int(k) in (1, 2, 3) for k in tiers):
            raise RulesError(f"{path}: 'tiers' must map 1, 2, 3 to lists of domains")
        rules = cls(tiers={int(k): [str(d).lower() for d in v or []] for k, v in tiers.items()},
                    blocklist=[str(d).lower() for d in data.get("blocklist") or []])
        for key in ("min_sources", "min_tier1", "max_age_days", "max_pages"):
            if key in data:
                setattr(rules, key, int(data[key]))
        for key in ("tolerance_pct", "read_budget_s"):
            if key in data:
                setattr(rules, key, float(data[key]))
        if rules.min_sources < 1 or rules.tolerance_pct < 0:
            raise RulesError(f"{path}: min_sources must be ≥ 1 and tolerance_pct ≥ 0")
        return rules

    @staticmethod
    def _matches(host: str, domain: str, entry: str) -> bool:
        if entry.startswith("."):
            return host.endswith(entry)
        return domain == entry or host == entry or host.endswith("." + entry)

    def tier(self, url: str) -> int | None:
        host, domain = host_and_domain(url)
        for tier in sorted(self.tiers):
            if any(self._matches(host, domain, e) for e in self.tiers[tier]):
                return tier
        return None

    def blocked(self, url: str) -> bool:
        host, domain = host_and_domain(url)
        return any(self._matches(host, domain, e) for e in self.blocklist)


def host_and_domain(url: str) -> tuple[str, str]:
    """(host, registrable domain) of a URL; hosts without a public suffix keep their last two labels."""
    match = re.match(r"https?://([^/:?#]+)", url)
    host = match.group(1).lower() if match else ""
    extracted = _EXTRACT(url)
    domain = getattr(extracted, "top_domain_under_public_suffix", None) or extracted.registered_domain
    return host, domain or ".".join(host.split(".")[-2:])


def find_date(text: str) -> date | None:
    """The first date written in `text` (ISO, Korean, `November 27, 2026`, `27 November 2026`)."""
    for pattern, order in _DATE_PATTERNS:
        match = pattern.search(text)
        if not match:
            continue
        parts = dict(zip(order, match.groups(), strict=True))
        try:
            month = _MONTHS[parts["M"].lower()] if "M" in parts else int(parts["m"])
            return date(int(parts["y"]), month, int(parts["d"]))
        except (ValueError, KeyError):
            continue
    return None


def _strip_dates(text: str) -> str:
    for pattern, _ in _DATE_PATTERNS:
        text = pattern.sub(" ", text)
    return text


def metric_of(question: str) -> str:
    """The metric named by a verification request ("Verify today's KOSPI close" → "kospi close")."""
    words = [w for w in content_words(question)
             if w not in _VERIFY_WORDS and len(w) > 1 and not re.fullmatch(r"\d+", w)]
    return " ".join(words) or normalize(question)


def query_patterns(metric: str, as_of: date) -> list[str]:
    """Three phrasings searched in parallel: plain, latest-with-date, official-source (Korean for Korean)."""
    if is_korean(metric):
        return [f"{metric} 오늘", f"{metric} 최신 {as_of.year}년 {as_of.month}월 {as_of.day}일", f"{metric} 공식 발표"]
    return [f"{metric} today", f"{metric} latest {as_of.isoformat()}", f"{metric} official figure"]


@dataclass
class Candidate:
    """A value one source gives, with the sentence it was parsed from."""

    url: str
    name: str
    domain: str
    tier: int | None
    number: ParsedNumber
    original_text: str
    published_at: date | None
    quote_ok: bool = True

    def as_source(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "tier": self.tier, "value": self.number.value,
                "value_text": format_number(self.number), "original_text": self.original_text,
                "published_at": self.published_at.isoformat() if self.published_at else None}


def extract_candidates(metric: str, text: str, page_date: date | None) -> list[tuple[ParsedNumber, str, date | None]]:
    """(value, sentence, date) for sentences naming the metric (every word; all but one past three) and a number."""
    m_tokens = set(tokenize(metric))
    need = len(m_tokens) if len(m_tokens) <= 3 else len(m_tokens) - 1
    out = []
    for sentence in split_sentences(text):
        if len(m_tokens & set(tokenize(sentence))) < need:
            continue
        numbers = [n for n in parse_numbers(_strip_dates(sentence))
                   if n.unit or not (1900 <= n.low <= 2100 and not n.is_range)]
        if not numbers:
            continue
        # The value is the first number with a unit (the metric's figure), else the first number.
        number = next((n for n in numbers if n.unit), numbers[0])
        out.append((number, sentence.strip(), find_date(sentence) or page_date))
    return out


def quote_holds(number: ParsedNumber, original_text: str, page_text: str) -> bool:
    """The quote is verbatim in the page and the value is parsed from the quote."""
    if normalize(original_text) not in normalize(page_text):
        return False
    return any(agree(number, n, 0.0) for n in parse_numbers(_strip_dates(original_text)))


def _parse_date(value: Any) -> date | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(str(value)[:10]).date()
    except ValueError:
        return None


@dataclass
class Verification:
    """The outcome: the JSON of the issue's success or failure shape."""

    result: dict[str, Any]

    @property
    def verified(self) -> bool:
        return bool(self.result.get("verified"))


def decide(metric: str, candidates: list[Candidate], blocked: list[Candidate], rules: FactRules,
           as_of: date) -> dict[str, Any]:
    """Apply the rules to the candidates (one per domain, best first)."""

    def failure(code: str, reason: str, **details: Any) -> dict[str, Any]:
        recommendation = {
            "INSUFFICIENT_SOURCES": "Check the official source directly or ask again later.",
            "NO_PRIMARY_SOURCE": "Confirm the figure on the official (tier 1) publisher's site.",
            "VALUE_MISMATCH": "Sources disagree; check the official publication for the definitive value.",
            "STALE_DATA": "Only old figures were found; check the official source for today's value.",
            "QUOTE_MISMATCH": "The pages no longer state the value; re-check the sources.",
            "BLOCKED_SOURCE_ONLY": "Only untrusted sites (blogs, wikis, communities) state it; use an official source.",
        }[code]
        return {"metric": metric, "value": None, "verified": False,
                "error": {"code": code, "reason": reason, "details": details}, "recommendation": recommendation}

    if not candidates:
        if blocked:
            return failure("BLOCKED_SOURCE_ONLY", "only blocklisted sites state a value",
                           blocked=[c.url for c in blocked])
        return failure("INSUFFICIENT_SOURCES", "no source states a value for the metric", found=0)
    quoted = [c for c in candidates if c.quote_ok]
    bad_quotes = [c for c in candidates if not c.quote_ok]
    cutoff = as_of - timedelta(days=rules.max_age_days)
    fresh = [c for c in quoted if c.published_at is not None and cutoff <= c.published_at <= as_of]
    stale = [c for c in quoted if c not in fresh]

    best_cluster: list[Candidate] = []
    for anchor in fresh:
        cluster = [c for c in fresh if agree(anchor.number, c.number, rules.tolerance_pct)
                   and c.published_at == anchor.published_at]
        key = (len({c.domain for c in cluster}), sum(c.tier == 1 for c in cluster))
        if key > (len({c.domain for c in best_cluster}), sum(c.tier == 1 for c in best_cluster)):
            best_cluster = cluster
    domains = {c.domain for c in best_cluster}
    tier1 = [c for c in best_cluster if c.tier == 1]
    if len(domains) >= rules.min_sources and len(tier1) >= rules.min_tier1:
        anchor = tier1[0]
        values = [c.number.value for c in best_cluster]
        variance = (max(values) - min(values)) / max(abs(v) for v in values) * 100 if any(values) else 0.0
        return {"metric": metric, "value": anchor.number.value, "value_text": format_number(anchor.number),
                "range": [anchor.number.low, anchor.number.high] if anchor.number.is_range else None,
                "unit": anchor.number.unit, "date": anchor.published_at.isoformat() if anchor.published_at else None,
                "verified": True, "variance": round(variance, 4), "original_text": anchor.original_text,
                "sources": [c.as_source() for c in best_cluster]}
    if len(domains) >= rules.min_sources:
        return failure("NO_PRIMARY_SOURCE", f"{len(domains)} sources agree but none is official (tier 1)",
                       sources=[c.as_source() for c in best_cluster])
    if len({c.domain for c in fresh}) >= rules.min_sources:
        return failure("VALUE_MISMATCH", f"values or dates differ by more than ±{rules.tolerance_pct}%",
                       sources=[c.as_source() for c in fresh])
    if bad_quotes and len({c.domain for c in quoted + bad_quotes}) >= rules.min_sources:
        return failure("QUOTE_MISMATCH", "a source's value is not stated in its page's sentence",
                       sources=[c.as_source() for c in bad_quotes])
    if stale and len({c.domain for c in quoted}) >= rules.min_sources:
        return failure("STALE_DATA", f"figures are older than {rules.max_age_days} days (as of {as_of})",
                       sources=[c.as_source() for c in stale])
    return failure("INSUFFICIENT_SOURCES",
                   f"{len({c.domain for c in fresh})} independent fresh sources; {rules.min_sources} needed",
                   sources=[c.as_source() for c in quoted])


class FactVerifier:
    """Runs a verification over the configured MCP tools.

    Args:
        deps: settings and embeddings.
        toolset_factory: opens a `SearchToolset` (the web agent's).
        rules: the policy (default: `fact_rules.yaml`).
    """

    def __init__(self, deps: HubDeps, toolset_factory: Callable[[], Any], rules: FactRules | None = None) -> None:
        self.deps = deps
        self.toolset_factory = toolset_factory
        self.rules = rules or FactRules.load()

    async def verify(self, question: str, *, as_of: date | None = None,
                     progress: Callable[..., Awaitable[None]] | None = None) -> Verification:
        """Verify the metric a question names; `as_of` defaults to today (UTC) or a date in the question."""
        asked_date = find_date(question)
        as_of = asked_date or as_of or datetime.now(UTC).date()
        metric = metric_of(_strip_dates(question))
        async with self.toolset_factory() as tools:
            candidates, blocked = await self._collect(tools, metric, as_of, progress)
        return Verification(decide(metric, candidates, blocked, self.rules, as_of))

    async def _collect(self, tools: SearchToolset, metric: str, as_of: date,
                       progress: Callable[..., Awaitable[None]] | None) -> tuple[list[Candidate], list[Candidate]]:
        queries = query_patterns(metric, as_of)
        for query in queries:
            if progress is not None:
                await progress(f"🔎 수치 검증 검색 중… ({query})", stage="search", data={"query": query})
        responses = await asyncio.gather(*(tools.search(q, max_results=8) for q in queries),
                                         return_exceptions=True)
        hits: dict[str, SearchHit] = {}
        for response in responses:
            if isinstance(response, BaseException):
                continue
            for hit in response.hits:
                hits.setdefault(hit.url, hit)
        selected = list(hits.values())[: self.rules.max_pages]
        pages = await self._read(tools, selected)
        candidates: list[Candidate] = []
        blocked: list[Candidate] = []
        for hit in selected:
            page = pages.get(hit.url)
            text = page.text if page is not None and not page.error else ""
            page_date = _parse_date((page.published_at if page else None) or hit.published_at)
            _, domain = host_and_domain(hit.url)
            found = extract_candidates(metric, text, page_date)
            quote_ok = True
            if not found:
                # A snippet may claim a value the page no longer states: keep it, marked as a bad quote.
                found = extract_candidates(metric, hit.snippet, page_date)
                quote_ok = False
            for number, sentence, when in found[:1]:
                candidate = Candidate(hit.url, hit.title or domain, domain, self.rules.tier(hit.url), number,
                                      sentence, when,
                                      quote_ok=quote_ok and quote_holds(number, sentence, text))
                if self.rules.blocked(hit.url):
                    blocked.append(candidate)
                elif candidate.tier is not None:
                    candidates.append(candidate)
        # One candidate per registrable domain (independence), official ones first.
        unique: dict[str, Candidate] = {}
        for c in sorted(candidates, key=lambda c: (c.tier or 9, not c.quote_ok)):
            unique.setdefault(c.domain, c)
        return list(unique.values()), blocked

    async def _read(self, tools: SearchToolset, hits: list[SearchHit]) -> dict[str, PageContent]:
        tasks = {asyncio.create_task(tools.fetch_page(h.url)): h.url for h in hits if not self.rules.blocked(h.url)}
        if not tasks:
            return {}
        done, pending = await asyncio.wait(tasks, timeout=self.rules.read_budget_s)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)
        return {tasks[t]: t.result() for t in done if t.exception() is None}

    async def reply(self, question: str, *, language: str = "ko", progress: Any = None,
                    as_of: str | None = None) -> AgentReply:
        """The A2A reply: a short table with sources (text) and the verification JSON (data)."""
        try:
            when = date.fromisoformat(as_of) if as_of else None
        except ValueError:
            return AgentReply(text=f"as_of must be a date like 2026-11-30, not {as_of!r}",
                              data={"status": STATUS_ERROR, "error": f"invalid as_of {as_of!r}"})
        try:
            verification = await self.verify(question, as_of=when, progress=progress)
        except ToolsUnavailable as exc:
            return AgentReply(text=str(exc), data={"status": STATUS_ERROR, "error": str(exc)})
        result = verification.result
        status = STATUS_OK if verification.verified else STATUS_NO_RESULT
        sources = [{"type": "web", "url": s["url"], "title": s["name"], "score": 1.0,
                    "published_at": s["published_at"]} for s in result.get("sources") or []]
        return AgentReply(text=render(result, language),
                          data={"status": status, "verification": result, "sources": sources,
                                "max_score": 1.0 if verification.verified else 0.0})


def render(result: dict[str, Any], language: str = "ko") -> str:
    """Markdown: verdict line, a table of sources (tier, value, date, quote)."""
    ko = language == "ko"
    if result.get("verified"):
        head = (f"✅ **{result['metric']}**: {result['value_text']} ({result['date']}) — "
                + (f"{len(result['sources'])}개 독립 출처에서 확인됨" if ko else
                   f"confirmed by {len(result['sources'])} independent sources"))
        rows = result["sources"]
    else:
        error = result["error"]
        head = (f"❌ **{result['metric']}**: " + ("검증 실패" if ko else "not verified")
                + f" — `{error['code']}`: {error['reason']}\n\n{result['recommendation']}")
        rows = error["details"].get("sources") or []
    if not rows:
        return head
    header = "| 출처 | 등급 | 값 | 날짜 | 원문 |" if ko else "| source | tier | value | date | quote |"
    lines = [head, "", header, "|---|---|---|---|---|"]
    for s in rows:
        quote = s["original_text"].replace("|", "\\|")
        lines.append(f"| [{s['name']}]({s['url']}) | {s['tier']} | {s['value_text']} | {s['published_at']} | "
                     f"“{quote}” |")
    return "\n".join(lines)
