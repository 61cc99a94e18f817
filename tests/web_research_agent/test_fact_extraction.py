"""Which number of a page is a metric's value, for which period, and which sources are independent: the rules
the `hub eval verify` near-misses exercise (scale words, percentage points, Korean particles, previous values,
periods, another subject of the same kind, syndicated copies), each on its own."""

from __future__ import annotations

from datetime import date

import pytest

from ai_llm.web_research_agent.fact_verification import (
    Candidate,
    FactRules,
    Period,
    blank_periods,
    decide,
    drop_copies,
    extract_candidates,
    find_period,
    metric_of,
    period_spans,
    query_patterns,
)
from ai_llm.web_research_agent.numbers import ParsedNumber, agree, format_number, parse_numbers

AS_OF = date(2026, 11, 30)
PAGE_DAY = date(2026, 11, 28)


def values(metric: str, text: str, **kwargs: object) -> list[tuple[float, str, str | None]]:
    """(value, unit, period label) of each sentence's value for the metric."""
    found = extract_candidates(metric, text, PAGE_DAY, as_of=AS_OF, **kwargs)  # type: ignore[arg-type]
    return [(f.number.value, f.number.unit, f.period.label if f.period else None) for f in found]


# ------------------------------------------------------------------------------------------------ numbers
@pytest.mark.parametrize(("text", "value", "unit"), [
    ("$8.3 billion", 8.3e9, "USD"), ("US$412.5 billion", 412.5e9, "USD"), ("412,500 million dollars", 412.5e9, "USD"),
    ("41.2 thousand", 41200.0, ""), ("5.2 billion won", 5.2e9, "KRW"), ("1.2bn", 1.2e9, ""),
    ("2.1 trillion won", 2.1e12, "KRW"),
])
def test_scale_words_apply(text: str, value: float, unit: str) -> None:
    [number] = parse_numbers(text)
    assert number.value == value and number.unit == unit


def test_a_thousand_times_off_never_agrees() -> None:
    [billion], [million], [in_millions] = (parse_numbers(t) for t in ("$8.3 billion", "$8.3 million",
                                                                      "8,300 million dollars"))
    assert not agree(billion, million, 1.0) and agree(billion, in_millions, 0.0)


@pytest.mark.parametrize(("text", "unit"), [
    ("0.3 percentage points", "pp"), ("0.3 percentage point", "pp"), ("0.3 pp", "pp"), ("0.25%p", "pp"),
    ("0.25 %p 인상", "pp"), ("0.25%포인트", "pp"), ("0.3% points", "pp"), ("25 bp", "bp"), ("25 basis points", "bp"),
    ("0.3%", "%"), ("0.3 percent", "%"), ("12.5 points", "pt"), ("12.5포인트", "pt"),
])
def test_percentage_points_are_not_percent(text: str, unit: str) -> None:
    [number] = parse_numbers(text)
    assert number.unit == unit
    assert format_number(number).endswith("%" if unit == "%" else unit)


@pytest.mark.parametrize(("text", "value", "unit"), [
    ("기준금리는 3.50%로 동결", 3.5, "%"), ("1,385.2원으로 마감", 1385.2, "KRW"), ("2,650.3포인트로 마감", 2650.3, "pt"),
    ("612.4억 달러로 집계", 612.4e8, "USD"), ("3.5%였다", 3.5, "%"), ("3.50%에서 동결", 3.5, "%"),
])
def test_a_korean_particle_after_a_unit_keeps_the_whole_value(text: str, value: float, unit: str) -> None:
    [number] = parse_numbers(text)
    assert number.value == pytest.approx(value) and number.unit == unit


def test_no_number_is_cut_short() -> None:
    assert parse_numbers("41,200건") == []  # not 41: a counter word is no unit, and a value is never truncated
    assert parse_numbers("2026년 10월") == [] and parse_numbers("3분기") == []


def test_from_a_to_b_is_two_values_not_a_range() -> None:
    assert [(n.value, n.unit) for n in parse_numbers("rose from 2.4% to 2.6% in October")] == [(2.4, "%"), (2.6, "%")]
    assert [(n.value, n.unit) for n in parse_numbers("from $1.2 to $1.5 billion")] == [(1.2e9, "USD"), (1.5e9, "USD")]
    [band] = parse_numbers("a target band of 3.50 to 3.75%")
    assert (band.low, band.high, band.unit) == (3.5, 3.75, "%")


# ------------------------------------------------------------------------------------------------ periods
def test_periods_are_read_as_written() -> None:
    text = ("On November 27, 2026, 27 November 2026, 2026-11-27 and 2026년 11월 27일; in October 2026, Oct. 2026, "
            "2026년 10월 and 2026-10; in Q3 2026, the third quarter of 2026 and 2026년 3분기; in 2025 and 2025년.")
    labels = [p.label for _, _, p in period_spans(text)]
    assert labels == ["2026-11-27"] * 4 + ["2026-10"] * 4 + ["2026-Q3"] * 3 + ["2025"] * 2
    assert Period.month(2026, 12).end == date(2026, 12, 31) and Period.quarter(2026, 1).end == date(2026, 3, 31)
    assert blank_periods("2.6% in October 2026") == "2.6% in             "
    assert find_period("Verify the Varnland GDP growth rate for 2025") == Period.year(2025)


def test_a_value_takes_the_period_written_nearest_to_it() -> None:
    assert values("varnland inflation rate", "The Varnland inflation rate was 2.6% in October 2026, the statistics "
                  "office said on November 4, 2026.") == [(2.6, "%", "2026-10")]
    assert values("varnland retail sales growth", "A year earlier, in October 2025, Varnland retail sales growth was "
                  "3.1% as well.") == [(3.1, "%", "2025-10")]
    # A boundary (`since 2024`) is not the figure's period.
    assert values("varnland base rate", "On November 27, 2026 the Varnland base rate was held at 3.5%, unchanged "
                  "since 2024.") == [(3.5, "%", "2026-11-27")]
    # No period written: the page's date.
    assert values("varnland base rate", "The Varnland base rate is 3.5%.") == [(3.5, "%", "2026-11-28")]


def test_the_latest_period_unless_the_question_names_one() -> None:
    text = "The Varnland GDP growth rate was 1.8% in 2025, after 2.3% in 2024."
    assert values("varnland gdp growth rate", text) == [(1.8, "%", "2025")]
    assert values("varnland gdp growth rate", text, period=Period.year(2024)) == [(2.3, "%", "2024")]
    assert values("varnland gdp growth rate", text, period=Period.year(2023)) == []
    forecast = "The Varnland inflation rate was 2.6% in October 2026; the central bank expects 2.2% in 2027."
    assert values("varnland inflation rate", forecast) == [(2.6, "%", "2026-10")]  # 2027 has not begun


def test_a_previous_value_is_not_the_figure() -> None:
    assert values("varnland inflation rate", "The Varnland inflation rate rose from 2.4% to 2.6% in October 2026.") \
        == [(2.6, "%", "2026-10")]
    assert values("varnland inflation rate", "The Varnland inflation rate was 2.6% in October 2026, up from 2.1% in "
                  "October 2025.") == [(2.6, "%", "2026-10")]
    # …unless it is the only value for the period asked.
    assert values("varnland gdp growth rate", "The Varnland GDP growth rate slowed to 1.8% in 2025 from 2.3% in 2024.",
                  period=Period.year(2024)) == [(2.3, "%", "2024")]


def test_a_level_before_a_change() -> None:
    assert values("varnland base rate", "The Bank of Varnland cut the Varnland base rate by 0.25 percentage points "
                  "to 3.25% on November 27, 2026.") == [(3.25, "%", "2026-11-27")]
    assert values("varnland base rate", "The Varnland base rate was cut by 25 bp to 3.25% on November 27, 2026.") \
        == [(3.25, "%", "2026-11-27")]
    assert values("varnland month-on-month inflation", "Varnland month-on-month inflation rose 0.3 percentage points "
                  "in October 2026.") == [(0.3, "pp", "2026-10")]  # only a change: it is what the page states


# ----------------------------------------------------------------------------------- another subject
def test_another_subject_of_the_same_kind_is_not_the_metric() -> None:
    text = ("The Osterra tech index closed at 1,205.1 points on November 27, 2026, just above where the Varnland "
            "tech index ended.")
    assert values("varnland tech index", text) == []
    both = "The Varnland tech index fell, while the Osterra tech index closed at 1,205.1 points."
    assert values("varnland tech index", both) == []
    assert values("osterra tech index", both) == [(1205.1, "pt", "2026-11-28")]
    korean = "2026년 11월 27일 오스테라 종합주가지수는 2,715.0포인트, 바른란드 종합주가지수는 2,710.4포인트로 마감했다."
    assert values(metric_of("바른란드 종합주가지수 검증해줘"), korean) == [(2710.4, "pt", "2026-11-27")]
    assert values(metric_of("오스테라 종합주가지수 검증해줘"), korean) == [(2715.0, "pt", "2026-11-27")]
    assert values("kosdaq", "The KOSPI closed at 2,500.1, while the KOSDAQ closed at 850.2.") == \
        [(850.2, "", "2026-11-28")]
    assert values("kospi", "The KOSPI closed at 2,500.1, while the KOSDAQ closed at 850.2.") == \
        [(2500.1, "", "2026-11-28")]


def test_the_same_subject_named_again() -> None:
    # "the rate" refers back to the Varnland base rate; a number before any mention is no one's.
    assert values("varnland base rate", "The Varnland base rate decision kept the rate at 3.5% on November 27, 2026.") \
        == [(3.5, "%", "2026-11-27")]
    assert values("varnland 10-year bond yield", "The Varnland 10-year bond yield closed at 3.12%.") \
        == [(3.12, "%", "2026-11-28")]
    # The metric's words may come after its kind word, before the value.
    assert values("varnland unemployment rate", "The unemployment rate in Varnland was 2.9% on October 1, 2026.") \
        == [(2.9, "%", "2026-10-01")]
    assert values("varnland base rate", "At 3.5%, the base rate of Varnland is unchanged.") == []  # before any mention
    assert values("varnland base rate", "바른란드 기준금리는 2026년 11월 27일 동결돼 미국과의 금리차는 1.25%p를 유지했다.") == []


# ------------------------------------------------------------------------------------ independence
def _candidate(domain: str, tier: int, value: float, sentence: str, day: date = date(2026, 11, 28),
               period: Period | None = None) -> Candidate:
    return Candidate(f"https://www.{domain}/x", domain, domain, tier, ParsedNumber(value, value, "KRW", str(value)),
                     sentence, day, period=period)


def test_syndicated_copies_are_one_source() -> None:
    wire = "The Varnland petrol price rose to 1,915 won per litre on November 28, 2026, the energy agency said."
    candidates = [_candidate("press.example", 2, 1915, wire), _candidate("times.example", 2, 1915, wire),
                  _candidate("herald.example", 2, 1915, f"{wire} (Varnland Press Agency)"),
                  _candidate("energy.example", 1, 1912, "The Varnland petrol price averaged 1,912 won per litre.")]
    kept, copies = drop_copies(candidates)
    assert [c.domain for c in kept] == ["energy.example", "press.example"]
    assert {c.domain for c in copies} == {"times.example", "herald.example"}
    result = decide("varnland petrol price", candidates, [], FactRules.load(), AS_OF)
    assert result["error"]["code"] == "INSUFFICIENT_SOURCES"
    assert len(result["error"]["details"]["copies"]) == 2
    own_words = [*kept, _candidate("herald.example", 2, 1915, "Petrol in Varnland cost 1,915 won a litre.")]
    assert decide("varnland petrol price", own_words, [], FactRules.load(), AS_OF)["verified"] is True


def test_values_for_different_periods_do_not_agree() -> None:
    rules = FactRules.load()
    october, earlier = Period.month(2026, 10), Period.month(2025, 10)
    same = [_candidate("a.go.kr", 1, 3.1, "a says 3.1", period=october), _candidate("b.com", 2, 3.1, "b says 3.1",
            period=october), _candidate("c.com", 2, 3.1, "c says 3.1", period=october)]
    assert decide("m", same, [], rules, AS_OF)["period"] == "2026-10"
    mixed = [*same[:2], _candidate("c.com", 2, 3.1, "c says 3.1", period=earlier)]
    assert decide("m", mixed, [], rules, AS_OF)["error"]["code"] == "VALUE_MISMATCH"


def test_a_named_period_does_not_go_stale() -> None:
    rules, year = FactRules.load(), Period.year(2025)
    old = [_candidate(d, t, 1.8, f"{d} says 1.8", day=date(2026, 2, 26), period=year)
           for d, t in (("a.go.kr", 1), ("b.com", 2), ("c.com", 2))]
    assert decide("m", old, [], rules, AS_OF)["error"]["code"] == "STALE_DATA"
    asked = decide("m", old, [], rules, AS_OF, period=year)
    assert asked["verified"] is True and asked["period"] == "2025"
    assert decide("m", old, [], rules, date(2026, 1, 31), period=year)["error"]["code"] == "INSUFFICIENT_SOURCES"


def test_queries_name_an_asked_period() -> None:
    assert query_patterns("varnland gdp growth rate", AS_OF, Period.year(2025))[0] == "varnland gdp growth rate 2025"
    assert query_patterns("바른란드 수출액", AS_OF, Period.month(2026, 10))[0] == "바른란드 수출액 2026년 10월"
    assert query_patterns("varnland base rate", AS_OF)[0] == "varnland base rate today"
