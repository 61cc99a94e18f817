"""Fact verification (`verify_fact`): a numeric fact cross-checked across independent sources, with quotes.

Pipeline: three query patterns searched in parallel → blocklisted domains dropped → every result page read
through `fetch_page` → candidate values extracted from sentences that name the metric (the value is parsed
from that very sentence, kept as `original_text`) → snippet claims confirmed against the fetched page →
freshness, tiers, independence (registrable domains, syndicated copies) and agreement (±tolerance, same
period) decided by the rules in `fact_rules.yaml`. Nothing numeric is reported unless it was found and quoted;
failures carry a code (`INSUFFICIENT_SOURCES`, `NO_PRIMARY_SOURCE`, `VALUE_MISMATCH`, `STALE_DATA`,
`QUOTE_MISMATCH`, `BLOCKED_SOURCE_ONLY`) and never an estimate.

Which number of a sentence is the metric's value (`extract_candidates`):

* it comes after the metric's own mention (`the Varnland base rate`, `the unemployment rate in Varnland`), and
  a later mention of the same kind of thing with other words (`…, while the Osterra stock index closed at
  2,652`) starts another subject whose numbers are not the metric's; "the rate" refers back to the subject
  before it;
* a previous value (`up from 2.1%`, `from 2.4% to 2.6%`, `higher than 3%`) is the figure only when the
  sentence gives no other for the period;
* every value has a period: the date, month, quarter or year written nearest to it (`2.6% in October 2026`;
  not a boundary such as `since 2024`), else the page's date; a period that has not begun is a forecast;
* a question that names a month, quarter or year asks for that period's figure (however old); otherwise a
  sentence giving several periods gives its latest;
* a level (`3.25%`, `$8.3 billion`) before a change (`0.25 percentage points`, `25 bp`), before a bare number.

Values agree when units match (`%` ≠ percentage points, won ≠ dollars; scale words applied, so `$8.3 billion`
≠ `$8.3 million`), they are within ±`tolerance_pct`, and their periods are the same.
"""

from __future__ import annotations

import bisect
import dataclasses
import logging
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple

import tldextract
import yaml

from ai_llm.common.a2a.events import STATUS_ERROR, STATUS_NO_RESULT, STATUS_OK, AgentReply
from ai_llm.common.messages import message
from ai_llm.common.runtime import HubDeps
from ai_llm.common.text import content_words, is_korean, normalize, split_sentences, tokenize
from ai_llm.web_research_agent.numbers import CHANGE_UNITS, ParsedNumber, agree, find_numbers, format_number
from ai_llm.web_research_agent.search_tools.results import PageContent, SearchHit, ToolsUnavailable
from ai_llm.web_research_agent.search_tools.toolset import SearchToolset

log = logging.getLogger(__name__)

RULES_PATH = Path(__file__).with_name("fact_rules.yaml")
_EXTRACT = tldextract.TLDExtract(suffix_list_urls=(), cache_dir=None)  # bundled list: no network

ERROR_CODES = ("INSUFFICIENT_SOURCES", "NO_PRIMARY_SOURCE", "VALUE_MISMATCH", "STALE_DATA", "QUOTE_MISMATCH",
               "BLOCKED_SOURCE_ONLY")
_VERIFY_WORDS = {"verify", "check", "confirm", "today", "current", "currently", "latest", "now", "what", "value",
                 "검증", "검증해줘", "확인", "확인해줘", "오늘", "현재", "최신", "지금", "알려줘", "얼마", "얼마야"}
_MONTH_NAMES = ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
                "november", "december"]
_MONTHS = {**{m: i for i, m in enumerate(_MONTH_NAMES, 1)}, **{m[:3]: i for i, m in enumerate(_MONTH_NAMES, 1)},
           "sept": 9}
_MONTH = "(" + "|".join(sorted(_MONTHS, key=len, reverse=True)) + r")\.?"
_QUARTER_WORDS = {"first": 1, "second": 2, "third": 3, "fourth": 4}


class RulesError(ValueError):
    """The rules YAML is invalid (message names the file and key)."""


def _domains(value: Any, source: str, key: str) -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list):
        raise RulesError(f"{source}: '{key}' must be a list of domains")
    return [str(d).lower() for d in value]


def _tiers(value: Any, source: str) -> dict[int, list[str]]:
    if value is None:
        return {}
    if not isinstance(value, dict) or not all(str(k) in ("1", "2", "3") for k in value):
        raise RulesError(f"{source}: 'tiers' must map 1, 2, 3 to lists of domains")
    return {int(k): _domains(v, source, f"tiers.{k}") for k, v in value.items()}


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
    def load(cls, path: Path | None = None) -> FactRules:
        """The rules in `path` (default `RULES_PATH`), parsed once per version of the file (its size and
        modification time): a verification reads them on every request, and parsing the YAML took 3–4 ms each
        time. The result is shared: treat it as read-only (`with_sites` returns a new one)."""
        path = path or RULES_PATH
        try:
            stat = path.stat()
        except OSError as exc:
            raise RulesError(f"cannot read fact rules {path}: {exc}") from exc
        key, version = str(path.resolve()), (stat.st_mtime_ns, stat.st_size)
        cached = _LOADED.get(key)
        if cached is not None and cached[0] == version:
            return cached[1]
        rules = cls._parse(path)
        _LOADED[key] = (version, rules)
        return rules

    @classmethod
    def _parse(cls, path: Path) -> FactRules:
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        except (OSError, yaml.YAMLError) as exc:
            raise RulesError(f"cannot read fact rules {path}: {exc}") from exc
        if not isinstance(data, dict):
            raise RulesError(f"{path}: expected a mapping")
        rules = cls(tiers=_tiers(data.get("tiers"), str(path)),
                    blocklist=_domains(data.get("blocklist"), str(path), "blocklist"))
        for key in ("min_sources", "min_tier1", "max_age_days", "max_pages"):
            if key in data:
                setattr(rules, key, int(data[key]))
        for key in ("tolerance_pct", "read_budget_s"):
            if key in data:
                setattr(rules, key, float(data[key]))
        if rules.min_sources < 1 or rules.tolerance_pct < 0:
            raise RulesError(f"{path}: min_sources must be ≥ 1 and tolerance_pct ≥ 0")
        return rules

    def with_sites(self, overlay: Any, source: str) -> FactRules:
        """These rules plus more sites: `overlay` holds only `tiers` and `blocklist`, whose entries are added to
        these rules' (thresholds stay these rules'). The verify eval adds its fixture's sites this way."""
        if not isinstance(overlay, dict) or set(overlay) - {"tiers", "blocklist"}:
            raise RulesError(f"{source}: a site overlay holds only 'tiers' and 'blocklist'")
        extra = _tiers(overlay.get("tiers"), source)
        tiers = {t: [*self.tiers.get(t, []), *extra.get(t, [])] for t in sorted(set(self.tiers) | set(extra))}
        blocklist = [*self.blocklist, *_domains(overlay.get("blocklist"), source, "blocklist")]
        return dataclasses.replace(self, tiers=tiers, blocklist=blocklist)

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


#: Rules parsed per file: path -> ((mtime_ns, size), rules).
_LOADED: dict[str, tuple[tuple[int, int], FactRules]] = {}


def warm_up() -> None:
    """Build what the first verification would otherwise build inside a request: the public-suffix trie
    (≈ 20 ms of CPU) and the parsed rules. A rules file that cannot be read is left for the verification to
    report: web research does not depend on it."""
    host_and_domain("https://www.example.co.uk/")
    try:
        FactRules.load()
    except RulesError as exc:
        log.warning("fact rules not loaded at start: %s", exc)


def host_and_domain(url: str) -> tuple[str, str]:
    """(host, registrable domain) of a URL; hosts without a public suffix keep their last two labels."""
    match = re.match(r"https?://([^/:?#]+)", url)
    host = match.group(1).lower() if match else ""
    extracted = _EXTRACT(url)
    domain = getattr(extracted, "top_domain_under_public_suffix", None) or extracted.registered_domain
    return host, domain or ".".join(host.split(".")[-2:])


# ----------------------------------------------------------------------------------------------- periods
@dataclass(frozen=True)
class Period:
    """What a figure is for: a day, a month, a quarter or a year."""

    kind: str
    start: date
    end: date

    @classmethod
    def day(cls, when: date) -> Period:
        return cls("day", when, when)

    @classmethod
    def month(cls, year: int, month: int) -> Period:
        following = date(year + month // 12, month % 12 + 1, 1)
        return cls("month", date(year, month, 1), following - timedelta(days=1))

    @classmethod
    def quarter(cls, year: int, quarter: int) -> Period:
        first = cls.month(year, 3 * quarter - 2)
        return cls("quarter", first.start, cls.month(year, 3 * quarter).end)

    @classmethod
    def year(cls, year: int) -> Period:
        return cls("year", date(year, 1, 1), date(year, 12, 31))

    @property
    def label(self) -> str:
        """`2026-11-27`, `2026-10`, `2026-Q3`, `2025`."""
        return {"day": self.start.isoformat(), "month": f"{self.start:%Y-%m}",
                "quarter": f"{self.start.year}-Q{(self.start.month + 2) // 3}"}.get(self.kind, str(self.start.year))

    def text(self, korean: bool = False) -> str:
        """As a search query writes it: `October 2026`, `2026년 10월`."""
        y, m, q = self.start.year, self.start.month, (self.start.month + 2) // 3
        if korean:
            return {"day": f"{y}년 {m}월 {self.start.day}일", "month": f"{y}년 {m}월",
                    "quarter": f"{y}년 {q}분기"}.get(self.kind, f"{y}년")
        return {"day": f"{self.start:%B} {self.start.day}, {y}", "month": f"{self.start:%B} {y}",
                "quarter": f"Q{q} {y}"}.get(self.kind, str(y))


def _month(word: str) -> int:
    return _MONTHS[word.lower().rstrip(".")]


#: Most specific first: a day's month and year are not periods of their own.
_PERIOD_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], Period]]] = [
    (re.compile(r"\b(20\d{2})-(\d{1,2})-(\d{1,2})\b"),
     lambda m: Period.day(date(int(m[1]), int(m[2]), int(m[3])))),
    (re.compile(r"(20\d{2})년\s*(\d{1,2})월\s*(\d{1,2})일"),
     lambda m: Period.day(date(int(m[1]), int(m[2]), int(m[3])))),
    (re.compile(rf"\b{_MONTH}\s+(\d{{1,2}}),?\s+(20\d{{2}})\b", re.I),
     lambda m: Period.day(date(int(m[3]), _month(m[1]), int(m[2])))),
    (re.compile(rf"\b(\d{{1,2}})\s+{_MONTH}\s+(20\d{{2}})\b", re.I),
     lambda m: Period.day(date(int(m[3]), _month(m[2]), int(m[1])))),
    (re.compile(rf"\b{_MONTH}\s+(?:of\s+)?(20\d{{2}})\b", re.I), lambda m: Period.month(int(m[2]), _month(m[1]))),
    (re.compile(r"(20\d{2})년\s*(\d{1,2})월"), lambda m: Period.month(int(m[1]), int(m[2]))),
    (re.compile(r"\b(20\d{2})-(0[1-9]|1[0-2])\b(?!-\d)"), lambda m: Period.month(int(m[1]), int(m[2]))),
    (re.compile(r"\bQ([1-4])\s*(20\d{2})\b", re.I), lambda m: Period.quarter(int(m[2]), int(m[1]))),
    (re.compile(r"\b(20\d{2})\s*Q([1-4])\b", re.I), lambda m: Period.quarter(int(m[1]), int(m[2]))),
    (re.compile(r"\b(first|second|third|fourth)\s+quarter\s+(?:of\s+)?(20\d{2})\b", re.I),
     lambda m: Period.quarter(int(m[2]), _QUARTER_WORDS[m[1].lower()])),
    (re.compile(r"(20\d{2})년\s*([1-4])분기"), lambda m: Period.quarter(int(m[1]), int(m[2]))),
    (re.compile(r"(20\d{2})년"), lambda m: Period.year(int(m[1]))),
    (re.compile(r"(?<![$₩€¥£\d.,])\b((?:19|20)\d{2})\b(?![.,]\d|\s?%)"), lambda m: Period.year(int(m[1]))),
]
#: Dates that bound a span (`since 2024`, `2024년 이후`) are not the period of a figure.
_BOUNDARY_BEFORE = re.compile(r"\b(?:since|from|until|till|through|after|before|than)\s+(?:the\s+)?$", re.I)
_BOUNDARY_AFTER = re.compile(r"^\s*(?:이후|부터|이래|까지|대비|보다)")


def period_spans(text: str) -> list[tuple[int, int, Period]]:
    """Every date, month, quarter and year written in `text`, as (start, end, period), in text order."""
    spans: list[tuple[int, int, Period]] = []
    for pattern, build in _PERIOD_PATTERNS:
        for match in pattern.finditer(text):
            if any(match.start() < e and s < match.end() for s, e, _ in spans):
                continue
            try:
                spans.append((match.start(), match.end(), build(match)))
            except (ValueError, KeyError):
                continue
    return sorted(spans, key=lambda span: span[0])


def find_date(text: str) -> date | None:
    """The first date written in `text` (ISO, Korean, `November 27, 2026`, `27 November 2026`)."""
    return next((p.start for _, _, p in period_spans(text) if p.kind == "day"), None)


def find_period(text: str) -> Period | None:
    """The first period (day, month, quarter, year) written in `text`."""
    return next((p for _, _, p in period_spans(text)), None)


def blank_periods(text: str) -> str:
    """`text` with every date and period written over by spaces (offsets kept), so `27` in `November 27, 2026`
    or `2026` is never read as a value."""
    chars = list(text)
    for start, end, _ in period_spans(text):
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _period_near(start: int, end: int, text: str, spans: list[tuple[int, int, Period]]) -> Period | None:
    """The period written nearest to text[start:end] (after it on a tie), boundaries excluded."""
    best: tuple[int, int, Period] | None = None
    for s, e, period in spans:
        if _BOUNDARY_BEFORE.search(text, 0, s) or _BOUNDARY_AFTER.match(text[e:]):
            continue
        gap = (s - end, 0) if s >= end else (start - e, 1)
        if best is None or gap < best[:2]:
            best = (*gap, period)
    return best[2] if best else None


def metric_of(question: str) -> str:
    """The metric named by a verification request ("Verify today's KOSPI close" → "kospi close")."""
    words = [w for w in content_words(blank_periods(question))
             if w not in _VERIFY_WORDS and len(w) > 1 and not re.fullmatch(r"\d+", w)]
    return " ".join(words) or normalize(question)


def query_patterns(metric: str, as_of: date, period: Period | None = None) -> list[str]:
    """Three phrasings searched in parallel: plain, latest-with-date, official-source (Korean for Korean); for
    an asked period: with the period, official, statistics."""
    korean = is_korean(metric)
    if period is not None:
        when = period.text(korean)
        if korean:
            return [f"{metric} {when}", f"{metric} {when} 공식 발표", f"{metric} {when} 통계"]
        return [f"{metric} {when}", f"{metric} {when} official figure", f"{metric} {when} statistics"]
    if korean:
        return [f"{metric} 오늘", f"{metric} 최신 {as_of.year}년 {as_of.month}월 {as_of.day}일", f"{metric} 공식 발표"]
    return [f"{metric} today", f"{metric} latest {as_of.isoformat()}", f"{metric} official figure"]


# ------------------------------------------------------------------------------------------- candidates
@dataclass
class Candidate:
    """A value one source gives, with the sentence it was parsed from and the period it is for."""

    url: str
    name: str
    domain: str
    tier: int | None
    number: ParsedNumber
    original_text: str
    published_at: date | None
    quote_ok: bool = True
    period: Period | None = None

    @property
    def reference(self) -> Period | None:
        """The period the value is for: as written, else the day it was published."""
        return self.period or (Period.day(self.published_at) if self.published_at else None)

    def as_source(self) -> dict[str, Any]:
        return {"name": self.name, "url": self.url, "tier": self.tier, "value": self.number.value,
                "value_text": format_number(self.number), "original_text": self.original_text,
                "published_at": self.published_at.isoformat() if self.published_at else None,
                "period": self.reference.label if self.reference else None}


class Extraction(NamedTuple):
    """The metric's value in one sentence."""

    number: ParsedNumber
    sentence: str
    published_at: date | None
    period: Period | None


_DETERMINERS = frozenset({"the", "this", "that", "its", "their", "these", "those"})
_PREVIOUS_VALUE = re.compile(r"\b(?:from|than|versus|vs\.?|compared\s+(?:with|to))\s*$", re.I)


def _metric_numbers(text: str, m_tokens: set[str], need: int,
                    kind: str) -> list[tuple[int, int, ParsedNumber, bool]]:
    """Numbers `text` gives for the metric (see the module docstring): after its own mention, before another
    subject of the same kind; each as (start, end, number, is a previous value).

    A mention of the metric's kind (its last word: `index`, `rate`, `지수`) is the metric's own when the words
    from the previous mention up to the first number after it name the metric (`the Varnland tech index`, `the
    unemployment rate in Varnland`); otherwise it is another subject (`the Osterra tech index`), unless a
    determiner makes it the previous one again (`the rate`).
    """
    numbers = find_numbers(text)
    chunks = [(m.start(), tokenize(m.group()), m.group().lower().strip("\"'()[],.;:")) for m in re.finditer(r"\S+", text)]
    starts = [start for start, _, _ in chunks]
    kinds = [i for i, (_, tokens, _) in enumerate(chunks) if kind in tokens]
    mentions: list[tuple[int, bool]] = []
    own: bool | None = None
    for n, i in enumerate(kinds):
        first = kinds[n - 1] + 1 if n else 0
        last = kinds[n + 1] if n + 1 < len(kinds) else len(chunks)
        following = next((start for start, _, _ in numbers if start > starts[i]), None)
        if following is not None:  # up to the chunk holding the next number
            last = min(last, bisect.bisect_right(starts, following) - 1)
        words = {t for _, tokens, _ in chunks[first:max(last, i + 1)] for t in tokens}
        if len(words & m_tokens) >= need:
            own = True
        elif not (i > 0 and chunks[i - 1][2] in _DETERMINERS and own is not None):
            own = False
        mentions.append((starts[i], own))
    out = []
    for start, end, number in numbers:
        owners = [own for position, own in mentions if position <= start]
        if owners and owners[-1]:
            out.append((start, end, number, bool(_PREVIOUS_VALUE.search(text, 0, start))))
    return out


def extract_candidates(metric: str, text: str, page_date: date | None, *, period: Period | None = None,
                       as_of: date | None = None) -> list[Extraction]:
    """The metric's value in each sentence that names it (every word; all but one past three), with its period.

    `period`: only values for that period; `as_of`: values for periods that begin later are forecasts, left out.
    """
    metric_tokens = tokenize(metric)
    m_tokens = set(metric_tokens)
    if not m_tokens:
        return []
    need = len(m_tokens) if len(m_tokens) <= 3 else len(m_tokens) - 1
    kind = metric_tokens[-1]
    out = []
    for sentence in split_sentences(text):
        if len(m_tokens & set(tokenize(sentence))) < need:
            continue
        spans = period_spans(sentence)
        options = [(n, _period_near(s, e, sentence, spans), previous)
                   for s, e, n, previous in _metric_numbers(blank_periods(sentence), m_tokens, need, kind)
                   if n.unit or not (1900 <= n.low <= 2100 and not n.is_range)]
        if as_of is not None:
            options = [o for o in options if o[1] is None or o[1].start <= as_of]
        if period is not None:
            options = [o for o in options if o[1] == period]
        elif any(o[1] for o in options):
            latest = max(o[1].end for o in options if o[1])
            options = [o for o in options if o[1] is not None and o[1].end == latest]
        if not options:
            continue
        # A previous value only when nothing else is left (`…from 2.3% in 2024` is 2024's figure); then a
        # level before a change before a bare number, the first of equals.
        number, when, _ = min(options, key=lambda o: (o[2], 0 if o[0].unit and o[0].unit not in CHANGE_UNITS
                                                      else 1 if o[0].unit else 2))
        published = when.start if when is not None and when.kind == "day" else find_date(sentence) or page_date
        out.append(Extraction(number, sentence.strip(), published,
                              when or (Period.day(published) if published else None)))
    return out


def quote_holds(number: ParsedNumber, original_text: str, page_text: str) -> bool:
    """The quote is verbatim in the page and the value is parsed from the quote."""
    if normalize(original_text) not in normalize(page_text):
        return False
    return any(agree(number, n, 0.0) for _, _, n in find_numbers(blank_periods(original_text)))


def _wording(text: str) -> str:
    return " ".join(re.findall(r"[0-9a-z\uac00-\ud7a3]+", normalize(text).lower()))


def drop_copies(candidates: list[Candidate]) -> tuple[list[Candidate], list[Candidate]]:
    """(independent, copies): a sentence that another domain's quote contains, or that contains it (a wire story
    or press release reprinted), is one source however many sites carry it; the best tier's copy is kept."""
    kept: list[Candidate] = []
    copies: list[Candidate] = []
    for c in sorted(candidates, key=lambda c: (c.tier or 9, not c.quote_ok)):
        words = _wording(c.original_text)
        if any(words in _wording(k.original_text) or _wording(k.original_text) in words for k in kept):
            copies.append(c)
        else:
            kept.append(c)
    return kept, copies


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
           as_of: date, period: Period | None = None) -> dict[str, Any]:
    """Apply the rules to the candidates (one per domain, best first); `period`: the period the question asks
    for (a month, quarter or year), whose figure does not go stale."""

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

    wanted = f" for {period.label}" if period is not None else ""
    if not candidates:
        if blocked:
            return failure("BLOCKED_SOURCE_ONLY", f"only blocklisted sites state a value{wanted}",
                           blocked=[c.url for c in blocked])
        return failure("INSUFFICIENT_SOURCES", f"no source states a value for the metric{wanted}", found=0)
    candidates, copies = drop_copies(candidates)
    quoted = [c for c in candidates if c.quote_ok]
    bad_quotes = [c for c in candidates if not c.quote_ok]
    if period is None:
        cutoff = as_of - timedelta(days=rules.max_age_days)
        fresh = [c for c in quoted if c.published_at is not None and cutoff <= c.published_at <= as_of]
    else:  # a named period's figure: published by as_of, however long ago
        fresh = [c for c in quoted if c.published_at is None or c.published_at <= as_of]
    # Published after as_of: not there yet on that day, so neither fresh nor stale.
    stale = [c for c in quoted if c not in fresh and not (c.published_at and c.published_at > as_of)]

    def strength(cluster: list[Candidate]) -> tuple[int, int, date]:
        ends = [c.reference.end for c in cluster if c.reference is not None]
        return len({c.domain for c in cluster}), sum(c.tier == 1 for c in cluster), max(ends, default=date.min)

    best_cluster: list[Candidate] = []
    for anchor in fresh:
        cluster = [c for c in fresh if agree(anchor.number, c.number, rules.tolerance_pct)
                   and c.reference == anchor.reference]
        if strength(cluster) > strength(best_cluster):
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
                "period": anchor.reference.label if anchor.reference else None,
                "verified": True, "variance": round(variance, 4), "original_text": anchor.original_text,
                "sources": [c.as_source() for c in best_cluster]}
    if len(domains) >= rules.min_sources:
        return failure("NO_PRIMARY_SOURCE", f"{len(domains)} sources agree but none is official (tier 1)",
                       sources=[c.as_source() for c in best_cluster])
    if len({c.domain for c in fresh}) >= rules.min_sources:
        return failure("VALUE_MISMATCH", f"values, units or periods differ (beyond ±{rules.tolerance_pct}%)",
                       sources=[c.as_source() for c in fresh])
    if bad_quotes and len({c.domain for c in quoted + bad_quotes}) >= rules.min_sources:
        return failure("QUOTE_MISMATCH", "a source's value is not stated in its page's sentence",
                       sources=[c.as_source() for c in bad_quotes])
    if stale and len({c.domain for c in fresh + stale}) >= rules.min_sources:
        return failure("STALE_DATA", f"figures are older than {rules.max_age_days} days (as of {as_of})",
                       sources=[c.as_source() for c in stale])
    details: dict[str, Any] = {"sources": [c.as_source() for c in quoted]}
    if copies:
        details["copies"] = [c.url for c in copies]
    return failure("INSUFFICIENT_SOURCES",
                   f"{len({c.domain for c in fresh})} independent fresh sources{wanted}; {rules.min_sources} needed",
                   **details)


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
                     progress: Callable[..., Awaitable[None]] | None = None, language: str = "ko") -> Verification:
        """Verify the metric a question names; `as_of` defaults to today (UTC) or a date in the question.

        A date in the question is the day to verify as of; a month, quarter or year asks for that period's figure.
        """
        asked = find_period(question)
        if asked is not None and asked.kind == "day":
            as_of, asked = asked.start, None
        as_of = as_of or datetime.now(UTC).date()
        metric = metric_of(question)
        async with self.toolset_factory() as tools:
            candidates, blocked = await self._collect(tools, metric, as_of, progress, asked, language)
        return Verification(decide(metric, candidates, blocked, self.rules, as_of, period=asked))

    async def _collect(self, tools: SearchToolset, metric: str, as_of: date,
                       progress: Callable[..., Awaitable[None]] | None,
                       period: Period | None = None, language: str = "ko"
                       ) -> tuple[list[Candidate], list[Candidate]]:
        queries = query_patterns(metric, as_of, period)
        if progress is not None and queries:  # one line for the round (each line is an event on three hops)
            await progress(message("web.verify_searching", language, query=" · ".join(queries)), stage="search",
                           data={"queries": queries})
        responses = await tools.search_many(queries, max_results=8, return_exceptions=True, workload="fact_check")
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
            found = extract_candidates(metric, text, page_date, period=period, as_of=as_of)
            quote_ok = True
            if not found:
                # A snippet may claim a value the page no longer states: keep it, marked as a bad quote.
                found = extract_candidates(metric, hit.snippet, page_date, period=period, as_of=as_of)
                quote_ok = False
            for number, sentence, when, value_period in found[:1]:
                candidate = Candidate(hit.url, hit.title or domain, domain, self.rules.tier(hit.url), number,
                                      sentence, when, quote_ok=quote_ok and quote_holds(number, sentence, text),
                                      period=value_period)
                if self.rules.blocked(hit.url):
                    blocked.append(candidate)
                elif candidate.tier is not None:
                    candidates.append(candidate)
        # One candidate per registrable domain (independence), official ones first; `decide` drops copies.
        unique: dict[str, Candidate] = {}
        for c in sorted(candidates, key=lambda c: (c.tier or 9, not c.quote_ok)):
            unique.setdefault(c.domain, c)
        return list(unique.values()), blocked

    async def _read(self, tools: SearchToolset, hits: list[SearchHit]) -> dict[str, PageContent]:
        return await tools.fetch_pages([h.url for h in hits if not self.rules.blocked(h.url)],
                                       self.rules.read_budget_s)

    async def reply(self, question: str, *, language: str = "ko", progress: Any = None,
                    as_of: str | None = None) -> AgentReply:
        """The A2A reply: a short table with sources (text) and the verification JSON (data)."""
        try:
            when = date.fromisoformat(as_of) if as_of else None
        except ValueError:
            return AgentReply(text=f"as_of must be a date like 2026-11-30, not {as_of!r}",
                              data={"status": STATUS_ERROR, "error": f"invalid as_of {as_of!r}"})
        try:
            verification = await self.verify(question, as_of=when, progress=progress, language=language)
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
    """Markdown: verdict line, a table of sources (tier, value, date, quote); Korean for `ko`, else English."""
    language = "ko" if language == "ko" else "en"
    if result.get("verified"):
        head = (f"✅ **{result['metric']}**: {result['value_text']} ({result.get('period') or result['date']}) — "
                + message("web.verify_confirmed", language, count=len(result["sources"])))
        rows = result["sources"]
    else:
        error = result["error"]
        head = (f"❌ **{result['metric']}**: " + message("web.verify_failed", language)
                + f" — `{error['code']}`: {error['reason']}\n\n{result['recommendation']}")
        rows = error["details"].get("sources") or []
    if not rows:
        return head
    header = message("web.verify_table_header", language)
    lines = [head, "", header, "|---|---|---|---|---|"]
    for s in rows:
        quote = s["original_text"].replace("|", "\\|")
        lines.append(f"| [{s['name']}]({s['url']}) | {s['tier']} | {s['value_text']} | {s['published_at']} | "
                     f"“{quote}” |")
    return "\n".join(lines)
