"""Fact verification over the `hub eval verify` fixture: pages indexed by the real gateway's local provider, read
by `fetch_page` (through the gateway) from a local HTTP server, under the product's rules plus the fixture's
sites. Every outcome code comes from the data."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_llm.common.runtime import HubDeps
from ai_llm.evals.web.verify_eval import (
    AS_OF,
    CASES,
    FIXTURE_PATH,
    PAGES,
    eval_rules,
    load_fixture,
    no_semantic_cache_config,
    serve_pages,
    site_toolset_factory,
    summarise,
    write_corpus,
)
from ai_llm.web_research_agent.fact_verification import (
    RULES_PATH,
    Candidate,
    FactRules,
    FactVerifier,
    Period,
    RulesError,
    decide,
    extract_candidates,
    find_date,
    metric_of,
    quote_holds,
    render,
)
from ai_llm.web_research_agent.numbers import ParsedNumber, agree, parse_number_token, parse_numbers
from tests.web_research_agent.conftest import make_deps, make_settings, start_gateway


@pytest.fixture(scope="module")
def verifier(hub_env: dict[str, str], embedding_server: str,
             tmp_path_factory: pytest.TempPathFactory) -> Iterator[FactVerifier]:
    work = tmp_path_factory.mktemp("verify")
    corpus = write_corpus(work / "corpus.jsonl", PAGES)
    env = {**hub_env, "DATA_DIR": str(work / "data"),
           "SEARCH_CONFIG": str(no_semantic_cache_config(work / "search_config.yaml"))}
    with serve_pages(PAGES) as (_, site_urls):
        gateway = start_gateway(env, corpus, work / "logs")
        try:
            settings_ = make_settings(gateway.url, embedding_server, fetch_allow_private=True)
            yield FactVerifier(make_deps(settings_), site_toolset_factory(settings_, site_urls), rules=eval_rules())
        finally:
            from ai_llm.hub.process import stop_child

            stop_child(gateway.child)


@pytest.mark.parametrize(("case", "question", "expected", "value"), CASES, ids=[c[0] for c in CASES])
async def test_each_outcome_comes_from_the_data(verifier: FactVerifier, case: str, question: str, expected: str,
                                                value: float | None) -> None:
    result = (await verifier.verify(question, as_of=AS_OF)).result
    if expected == "VERIFIED":
        assert result["verified"] is True and result["value"] == pytest.approx(value)
    else:
        assert result["verified"] is False and result["value"] is None
        assert result["error"]["code"] == expected
        assert result["recommendation"]


async def test_verified_fact_shape_and_quotes(verifier: FactVerifier) -> None:
    result = (await verifier.verify("Verify the Varnland base rate today", as_of=AS_OF)).result
    assert result["unit"] == "%" and result["date"] == "2026-11-27" and result["variance"] == 0.0
    sources = result["sources"]
    assert len({s["url"].split("/")[2] for s in sources}) == 3
    assert any(s["tier"] == 1 for s in sources) and all(s["tier"] in (1, 2, 3) for s in sources)
    assert not any("blog" in s["url"] for s in sources)  # the blocklisted blog's 3.75% never counts
    live = {p["url"]: p["live"] for p in PAGES}
    for s in sources:
        assert s["original_text"] in live[s["url"]]  # the exact sentence from the fetched page
        assert any(abs(n.value - s["value"]) < 1e-9 for n in parse_numbers(s["original_text"]))
    assert result["original_text"] == sources[0]["original_text"]
    text = render(result, "ko")
    assert text.startswith("✅") and "| 출처 | 등급 | 값 | 날짜 | 원문 |" in text and "3.5%" in text


async def test_a_past_date_in_the_question_is_not_stale(verifier: FactVerifier) -> None:
    stale = (await verifier.verify("Verify the Varnland unemployment rate", as_of=AS_OF)).result
    past = (await verifier.verify("Verify the Varnland unemployment rate on 2026-10-01", as_of=AS_OF)).result
    assert stale["error"]["code"] == "STALE_DATA"
    assert past["verified"] is True and past["value"] == 2.9


def test_a_value_not_in_its_quote_fails() -> None:
    sentence = "The Bank of Varnland kept the Varnland base rate at 3.50% on November 27, 2026."
    page = f"Intro. {sentence} Outro."
    assert quote_holds(ParsedNumber(3.5, 3.5, "%", "3.50%"), sentence, page)
    assert not quote_holds(ParsedNumber(3.75, 3.75, "%", "3.75%"), sentence, page)  # value not in the quote
    assert not quote_holds(ParsedNumber(3.5, 3.5, "%", "3.50%"), sentence, "Intro. Outro.")  # quote not on page
    rules = FactRules.load()
    day = date(2026, 11, 27)

    def cand(domain: str, tier: int, quote_ok: bool) -> Candidate:
        return Candidate(f"https://{domain}/x", domain, domain, tier, ParsedNumber(3.5, 3.5, "%", "3.5%"),
                         f"{domain} says the rate is 3.5%.", day, quote_ok=quote_ok)

    ok = decide("rate", [cand("a.gov", 1, True), cand("b.com", 2, True), cand("c.com", 2, True)], [], rules, AS_OF)
    assert ok["verified"] is True and ok["period"] == "2026-11-27"
    bad = decide("rate", [cand("a.gov", 1, False), cand("b.com", 2, True), cand("c.com", 2, True)], [], rules,
                 AS_OF)
    assert bad["verified"] is False and bad["error"]["code"] == "QUOTE_MISMATCH"


def test_extraction_picks_the_figure_not_the_date() -> None:
    found = extract_candidates("varnland base rate",
                               "Noise. The Varnland base rate was 3.5% on November 27, 2026. Other rate 9%.", None)
    assert [(f.number.value, f.number.unit, f.published_at) for f in found] == [(3.5, "%", date(2026, 11, 27))]
    assert found[0].period == Period.day(date(2026, 11, 27))
    assert find_date("2026년 11월 27일 발표") == date(2026, 11, 27)
    assert metric_of("Verify today's Varnland base rate") == "varnland base rate"
    assert metric_of("오늘 코스피 지수 검증해줘") == "코스피 지수"
    assert metric_of("Verify the Varnland GDP growth rate for Q3 2026") == "varnland gdp growth rate"


def test_rules_are_parsed_once_per_version_of_the_file(tmp_path: Path) -> None:
    path = tmp_path / "rules.yaml"
    path.write_text("min_sources: 2\ntiers: {1: [a.gov]}\n", encoding="utf-8")
    first = FactRules.load(path)
    assert FactRules.load(path) is first and first.min_sources == 2  # unchanged file: not parsed again
    path.write_text("min_sources: 3\ntiers: {1: [a.gov, b.gov]}\n", encoding="utf-8")
    second = FactRules.load(path)
    assert second is not first and second.min_sources == 3 and second.tiers[1] == ["a.gov", "b.gov"]


def test_a_broken_rules_file_does_not_stop_the_warm_up(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                        caplog: pytest.LogCaptureFixture) -> None:
    """The web agent warms fact verification at start; a bad rules file is the verification's error to report,
    not a reason for web research not to start."""
    from ai_llm.web_research_agent import fact_verification

    bad = tmp_path / "rules.yaml"
    bad.write_text("tiers: [1, 2]\n", encoding="utf-8")
    monkeypatch.setattr(fact_verification, "RULES_PATH", bad)
    with caplog.at_level("WARNING"):
        fact_verification.warm_up()
    assert "fact rules not loaded at start" in caplog.text
    with pytest.raises(RulesError):
        FactRules.load()


def test_rules_file_errors_are_clear(tmp_path: Path) -> None:
    bad = tmp_path / "rules.yaml"
    bad.write_text("tiers: [1, 2]\n", encoding="utf-8")
    with pytest.raises(RulesError, match="tiers"):
        FactRules.load(bad)
    bad.write_text("tiers: {official: [a.gov]}\n", encoding="utf-8")
    with pytest.raises(RulesError, match="tiers"):
        FactRules.load(bad)
    with pytest.raises(RulesError, match="cannot read"):
        FactRules.load(tmp_path / "missing.yaml")
    with pytest.raises(RulesError, match="only 'tiers' and 'blocklist'"):
        FactRules.load().with_sites({"min_sources": 1}, "overlay.yaml")


def test_product_rules_are_real_world_policy() -> None:
    text = RULES_PATH.read_text(encoding="utf-8").lower()
    assert ".example" not in text and "varnland" not in text and "osterra" not in text
    rules = FactRules.load()
    for url in ("https://ecos.bok.or.kr/x", "https://kostat.go.kr/y", "https://kosis.kr/z", "https://data.krx.co.kr/",
                "https://www.moef.go.kr/", "https://www.bls.gov/cpi", "https://www.federalreserve.gov/",
                "https://www.ecb.europa.eu/", "https://ec.europa.eu/eurostat", "https://www.boj.or.jp/",
                "https://www.bankofengland.co.uk/", "https://www.ons.gov.uk/", "https://www.oecd.org/",
                "https://www.imf.org/", "https://www.worldbank.org/", "https://www.bis.org/"):
        assert rules.tier(url) == 1, url
    for url in ("https://www.yna.co.kr/", "https://www.hankyung.com/", "https://www.reuters.com/", "https://www.ft.com/"):
        assert rules.tier(url) == 2, url
    assert rules.tier("https://fred.stlouisfed.org/series/X") == 3 and rules.tier("https://kr.investing.com/") == 3
    for url in ("https://blog.naver.com/z", "https://ko.wikipedia.org/wiki/X", "https://namu.wiki/w/X",
                "https://someone.tistory.com/1", "https://www.reddit.com/r/x"):
        assert rules.blocked(url), url
    assert rules.tier("https://unknown.example.org/") is None and not rules.blocked("https://www.reuters.com/")


def test_the_eval_adds_its_sites_on_top_of_the_product_rules() -> None:
    product, rules = FactRules.load(), eval_rules()
    assert (rules.min_sources, rules.min_tier1, rules.tolerance_pct, rules.max_age_days) == \
        (product.min_sources, product.min_tier1, product.tolerance_pct, product.max_age_days)
    assert all(set(product.tiers[t]) <= set(rules.tiers[t]) for t in product.tiers)
    assert set(product.blocklist) <= set(rules.blocklist)
    assert product.tier("https://www.varnland-centralbank.example/") is None
    assert rules.tier("https://www.varnland-centralbank.example/") == 1 and rules.blocked("https://my.varnland-blog.example/")
    assert rules.blocked("https://en.wikipedia.org/wiki/X")  # the product's own entry still applies


def test_the_eval_fixture_covers_every_code_with_enough_cases() -> None:
    fixture = load_fixture(FIXTURE_PATH)
    expected = [c[2] for c in CASES]
    assert len(CASES) >= 30 and expected.count("VERIFIED") >= 10
    assert set(expected) == {"VERIFIED", "INSUFFICIENT_SOURCES", "NO_PRIMARY_SOURCE", "VALUE_MISMATCH", "STALE_DATA",
                             "QUOTE_MISMATCH", "BLOCKED_SOURCE_ONLY"}
    assert all((c[3] is not None) == (c[2] == "VERIFIED") for c in CASES)
    assert len({c[0] for c in CASES}) == len(CASES) and len({p["url"] for p in PAGES}) == len(PAGES)
    assert all(c.get("why") for c in fixture["cases"])
    rules = eval_rules()
    # Every page's site is classified on purpose: tiered, blocklisted, or one of the untiered sites.
    untiered = {fixture["sites"]["GOSSIP"], fixture["sites"]["DEALS"]}
    for page in PAGES:
        site = "/".join(page["url"].split("/")[:3])
        assert rules.tier(page["url"]) is not None or rules.blocked(page["url"]) or site in untiered, page["url"]


def test_summary_precision_and_recall() -> None:
    def row(expected: str, got: str, right: bool = True) -> dict[str, object]:
        return {"expected": expected, "got": got, "passed": expected == got and right,
                "verified_correct": got == "VERIFIED" and expected == "VERIFIED" and right}

    report = summarise([row("VERIFIED", "VERIFIED"), row("VERIFIED", "VERIFIED", right=False),
                        row("VERIFIED", "INSUFFICIENT_SOURCES"), row("STALE_DATA", "VERIFIED"),
                        row("STALE_DATA", "STALE_DATA")])
    assert report["verified_count"] == 3 and report["should_verify"] == 3 and report["verified_correct"] == 1
    assert report["verified_precision"] == 0.3333 and report["verified_recall"] == 0.3333
    assert report["per_code"]["VERIFIED"] == {"expected": 3, "passed": 1, "got": 3}
    assert report["per_code"]["STALE_DATA"] == {"expected": 2, "passed": 1, "got": 1}
    assert report["passed"] == 2 and report["count"] == 5


async def test_reply_rejects_a_bad_as_of(web_deps: HubDeps) -> None:
    reply = await FactVerifier(web_deps, lambda: None).reply("Verify X", as_of="yesterday-ish")
    assert reply.data["status"] == "error" and "as_of" in reply.data["error"]


# ----------------------------------------------------------------------------------- number formats
@pytest.mark.parametrize(("text", "value", "unit"), [
    ("6,936", 6936.0, ""), ("6.936,5", 6936.5, ""), ("3.5%", 3.5, "%"), ("1,234억", 1234e8, ""),
    ("4.5조 원", 4.5e12, "KRW"), ("$1,234.50", 1234.5, "USD"), ("1.234.567", 1234567.0, ""),
    ("12,300 won", 12300.0, "KRW"), ("2,650.3 points", 2650.3, "pt"), ("3,5 %", 3.5, "%"),
])
def test_number_formats(text: str, value: float, unit: str) -> None:
    [number] = parse_numbers(text)
    assert number.value == pytest.approx(value) and number.unit == unit


def test_ranges_compare_as_ranges() -> None:
    [band] = parse_numbers("target band 3.50–3.75%")
    assert (band.low, band.high, band.unit, band.is_range) == (3.5, 3.75, "%", True)
    [same] = parse_numbers("3.5~3.75%")
    [other] = parse_numbers("3.50–4.00%")
    assert agree(band, same, 1.0) and not agree(band, other, 1.0)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1000, max_value=10**12))
def test_property_thousands_separators(n: int) -> None:
    us = f"{n:,}"
    eu = us.replace(",", ".")
    assert parse_number_token(us) == n
    if eu.count(".") > 1:
        assert parse_number_token(eu) == n
    else:  # "1.085" is ambiguous: read as a decimal, as exchange rates are written
        assert parse_number_token(eu) == pytest.approx(n / 1000)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1000, max_value=10**9), st.integers(min_value=1, max_value=9))
def test_property_decimal_marks(whole: int, tenth: int) -> None:
    value = whole + tenth / 10
    assert parse_number_token(f"{whole:,}.{tenth}") == pytest.approx(value)
    assert parse_number_token(f"{whole:,}".replace(",", ".") + f",{tenth}") == pytest.approx(value)


@settings(max_examples=200, deadline=None)
@given(st.decimals(min_value=0, max_value=9999, places=1, allow_nan=False, allow_infinity=False),
       st.sampled_from([("만", 1e4), ("억", 1e8), ("조", 1e12)]))
def test_property_korean_scales(number: Any, scale: tuple[str, float]) -> None:
    word, factor = scale
    [parsed] = parse_numbers(f"수출 {number}{word} 원")
    assert parsed.value == pytest.approx(float(number) * factor) and parsed.unit == "KRW"


@settings(max_examples=100, deadline=None)
@given(st.floats(min_value=0.01, max_value=100, allow_nan=False), st.floats(min_value=0, max_value=3))
def test_property_tolerance(base: float, off_pct: float) -> None:
    a = ParsedNumber(base, base, "%", "")
    b = ParsedNumber(base * (1 + off_pct / 100), base * (1 + off_pct / 100), "%", "")
    if off_pct <= 1.0:
        assert agree(a, b, 1.0)
    elif off_pct >= 1.05:
        assert not agree(a, b, 1.0)
