"""The same-request check's ordered classes: two places, currencies, units, temperature scales, languages or
file formats written without case markers take their roles from their order, and a number counts the unit
written next to it; terms outside those classes keep a free order."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from ai_llm.search_gateway import query_match
from ai_llm.search_gateway.query_match import compare


@pytest.mark.parametrize(("cached", "asked"), [
    # places: the first is where the trip starts
    ("대전 광주 버스", "광주 대전 버스"),
    ("수원 강릉 버스", "강릉 수원 버스"),
    ("서울 도쿄 항공권", "도쿄 서울 항공권"),
    ("Lisbon Madrid train", "Madrid Lisbon train"),
    ("Seoul Tokyo flights", "Tokyo Seoul flights"),
    ("판교역 강남역 버스", "강남역 판교역 버스"),
    ("동대구역 부산역 KTX 시간", "부산역 동대구역 KTX 시간"),  # Kiwi splits 부산역 on one side only
    ("인천공항 김포공항 버스", "김포공항 인천공항 버스"),
    ("서울에서 부산 KTX", "부산 서울 KTX"),  # a marker on one side, order on the other
    # currencies
    ("엔 원 환율 계산", "원 엔 환율 계산"),
    ("달러 원 환율", "원 달러 환율"),
    ("USD KRW exchange rate", "KRW USD exchange rate"),
    ("100 USD KRW", "100 KRW USD"),
    # units and temperature scales
    ("리터 갤런 변환", "갤런 리터 변환"),
    ("5 miles km", "5 km miles"),
    ("켈빈 섭씨 변환", "섭씨 켈빈 변환"),
    ("30 celsius fahrenheit", "30 fahrenheit celsius"),
    ("100 파운드 킬로그램으로", "100 킬로그램 파운드로"),
    ("10 inch to cm", "10 cm to inch"),
    ("5 kg in lb", "5 lb in kg"),
    # a number counts another unit
    ("5 온스 몇 그램", "5 그램 몇 온스"),
    # translation direction, conversion between formats
    ("영어 한국어 번역", "한국어 영어 번역"),
    ("일본어 영어 번역기", "영어 일본어 번역기"),
    ("English Korean translation", "Korean English translation"),
    ("japanese to korean translation", "korean to japanese translation"),
    ("PDF 엑셀 변환", "엑셀 PDF 변환"),
    # a typo elsewhere does not hide the swap (the unmerged terms are compared too)
    ("exhange rate USD KRW", "exchange rate KRW USD"),
])
def test_swapped_terms_of_an_ordered_class_differ(cached: str, asked: str) -> None:
    assert not compare(cached, asked).same
    assert not compare(asked, cached).same


@pytest.mark.parametrize(("cached", "asked"), [
    # terms outside the classes move freely; one place may move anywhere
    ("2025 Korea minimum wage", "Korea minimum wage 2025"),
    ("서울 날씨 내일", "내일 서울 날씨"),
    ("강남 맛집 추천", "맛집 강남 추천"),
    ("서울 맛집 강남", "서울 강남 맛집"),
    ("한국 아이폰 16 출시일", "아이폰 16 출시일 한국"),
    ("Tokyo hotels cheap", "cheap Tokyo hotels"),
    # the same order, or the same direction by markers
    ("exchange rate USD KRW", "USD KRW exchange rate"),
    ("실시간 원달러 환율", "원달러 환율 실시간"),
    ("원달러 환율 2024", "2024 원달러 환율"),
    ("서울에서 부산 KTX", "서울 부산 KTX"),
    ("부산까지 서울에서 KTX", "서울 부산 KTX"),
    ("flights from Seoul to Tokyo", "flights to Tokyo from Seoul"),
    ("Seoul to Tokyo flights", "Seoul Tokyo flights"),
    ("100 달러 원화로", "원화로 100 달러"),
    ("영어 번역 한국어로", "한국어로 영어 번역"),
    ("10 inch to cm", "10 inches to cm"),
    ("5 온스 몇 그램", "5 온스는 몇 그램"),
    # coordinated terms and symmetric questions: either order asks the same
    ("서울과 부산 날씨", "부산과 서울 날씨"),
    ("Seoul and Busan weather", "Busan and Seoul weather"),
    ("서울 부산 거리", "부산 서울 거리"),
    ("서울 부산 시차", "부산 서울 시차"),
    ("celsius fahrenheit difference", "fahrenheit celsius difference"),
    ("USD vs KRW", "KRW vs USD"),
])
def test_free_order_and_marked_direction_still_match(cached: str, asked: str) -> None:
    assert compare(cached, asked).same, compare(cached, asked).reason
    assert compare(asked, cached).same


def test_the_reason_names_the_class() -> None:
    assert compare("대전 광주 버스", "광주 대전 버스").reason == "order: place 대전 → 광주 / 광주 → 대전"
    assert "counts" in compare("5 온스 몇 그램", "5 그램 몇 온스").reason


def test_ordered_terms_file_is_well_formed() -> None:
    """Every line sits in a known class, every variant analyses to terms, and within a class no variant is on
    two lines (a line is also an equivalence group)."""
    path = query_match._DATA / "ordered_terms.txt"
    known = {"place", "currency", "unit", "scale", "language", "format"}
    owner: dict[tuple[str, object], list[int]] = defaultdict(list)
    current = ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("["):
            current = line.strip("[]")
            assert current in known, f"line {number}: {line!r}"
            continue
        assert current, f"line {number}: {line!r} before any class"
        variants = [v.strip() for v in line.split("|")]
        assert all(variants), f"line {number}: {line!r}"
        for variant in variants:
            if re.search("[\uac00-\ud7a3]", variant):
                key: object = query_match._hangul_key(variant)
            else:
                key = query_match._latin_key(variant)
                assert key, f"line {number}: {variant!r} has no content terms"
            owner[(current, key)].append(number)
    assert not {k: v for k, v in owner.items() if len(set(v)) > 1}
