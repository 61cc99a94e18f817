"""The same-request check's equivalences: names, abbreviations, synonyms and question forms that ask the
same thing hit; near misses that share a word, a group or a question word do not."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest

from ai_llm.search_gateway import query_match
from ai_llm.search_gateway.query_match import compare, is_typo, request_terms


@pytest.mark.parametrize(("cached", "asked"), [
    # abbreviations and full names
    ("United States inflation rate", "US inflation rate"),
    ("WHO guidelines on sugar intake", "World Health Organization guidelines on sugar intake"),
    ("ECB rate decision", "European Central Bank rate decision"),
    ("LA weather this weekend", "Los Angeles weather this weekend"),
    ("CPI Korea March 2024", "consumer price index Korea March 2024"),
    ("양도세 계산", "양도소득세 계산"),
    ("금감원 민원 접수", "금융감독원 민원 접수"),
    ("한은 기준금리", "한국은행 기준금리"),
    ("코로나19 격리 기간", "코로나 격리 기간"),
    ("서울특별시 청년 월세 지원", "서울시 청년 월세 지원"),
    # Korean and English names of one thing (project tables and the equivalents file)
    ("엔비디아 실적 발표일", "NVIDIA 실적 발표일"),
    ("넷플릭스 요금제", "Netflix 요금제"),
    ("삼성전자 주가", "Samsung Electronics stock price"),
    ("인공지능 기본법", "AI 기본법"),
    ("독감 증상", "flu 증상"),
    # synonyms
    ("cheap hotels in Osaka", "affordable hotels in Osaka"),
    ("Apple share price", "Apple stock price"),
    ("갑상선 검사 가격", "갑상선 검사 비용"),
    ("노트북 싸게 사는 법", "노트북 저렴하게 구매하는 방법"),
    ("회사 퇴사 후 건강보험", "회사 퇴직 후 건강보험"),
    # keyword form and question form
    ("when is Chuseok 2025", "Chuseok 2025 date"),
    ("how tall is Namsan Tower", "Namsan Tower height"),
    ("how far is Busan from Seoul", "distance from Seoul to Busan"),
    ("where is the Louvre", "Louvre location"),
    ("how much is a Big Mac in Korea", "Big Mac price in Korea"),
    ("what is RAG", "RAG meaning"),
    ("when was Samsung founded", "Samsung founding year"),
    ("how many people live in Tokyo", "Tokyo population"),
    ("what is the capital of Canada", "Canada capital city"),
    ("when is iPhone 17 released", "iPhone 17 launch date"),
    ("스타벅스 몇 시까지 해?", "스타벅스 영업시간"),
    ("May 2024 CPI", "5월 2024 CPI"),
    ("아이폰 16 언제 출시돼?", "아이폰 16 출시일"),
    ("연말정산은 언제 해?", "연말정산 기간"),
    ("서울 인구가 몇 명이야", "서울 인구수"),
    ("일본 여행 비자 필요 여부", "일본 여행 비자 필요해?"),
    ("difference between ETF and mutual fund", "ETF vs mutual fund"),
    ("define inflation", "inflation meaning"),
    # request phrasing
    ("kindly list flu vaccine side effects", "flu vaccine side effects"),
    ("청년도약계좌 가입 조건 부탁드립니다", "청년도약계좌 가입 조건"),
    # a merged name does not hide a typo elsewhere in it
    ("euro exhange rate today", "euro exchange rate today"),
])
def test_same_request_in_other_words(cached: str, asked: str) -> None:
    assert compare(cached, asked).same, compare(cached, asked).reason
    assert compare(asked, cached).same


@pytest.mark.parametrize(("cached", "asked"), [
    # a name and a longer name that contains it
    ("North Korea GDP", "South Korea GDP"),
    ("North Korea GDP", "Korea GDP"),
    ("Canadian dollar to won", "US dollar to won"),
    ("호주 달러 환율", "달러 환율"),
    ("삼성 주가", "삼성전자 주가"),
    ("Hyundai stock", "Hyundai Motor stock"),
    ("bird flu symptoms", "flu symptoms"),
    ("Bank of America stock", "US bank stock"),
    ("인천공항 날씨", "인천 날씨"),
    ("광주시 날씨", "광주광역시 날씨"),
    # two members of one class, or a broader and a narrower term
    ("interest rate Korea", "exchange rate Korea"),
    ("기준금리 전망", "금리 전망"),
    ("Apple stock price", "Apple price"),
    ("unemployment rate Korea", "unemployment benefits Korea"),
    ("미국 금리", "연준 금리"),
    ("UK visa", "US visa"),
    ("일본 엔 환율", "중국 위안 환율"),
    ("전기차 보조금", "수소차 보조금"),
    ("월급 계산", "연봉 계산"),
    # antonyms of a synonym group
    ("cheap flights to Tokyo", "expensive flights to Tokyo"),
    ("biggest companies in Korea", "smallest companies in Korea"),
    # question words: both sides must agree, and an answer noun stands only for its own question word
    ("when was Samsung founded", "where was Samsung founded"),
    ("Samsung founding location", "when was Samsung founded"),
    ("how tall is Lotte World Tower", "Lotte World Tower age"),
    ("how old is Lotte World Tower", "Lotte World Tower height"),
    ("how many people died in the Titanic", "Titanic population"),
    ("몇 명", "몇 시"),
    ("스타벅스 몇 시까지 해?", "스타벅스 가격"),
    ("iPhone 17 launch date", "iPhone 17 launch price"),
    ("iPhone vs Galaxy", "iPhone vs Pixel"),
    ("토요일 날씨", "언제 날씨"),
    ("이민 법", "이민 방법"),
    # numbers stay exact inside names and around them
    ("Python 3.12 release date", "when was Python 3.13 released"),
    ("갤럭시 S24 가격", "Galaxy S25 가격"),
    ("May 2024 CPI", "2024 CPI"),
    ("3월 1일 서울 날씨", "March 3 서울 날씨"),
    ("추석 연휴 기간", "설날 연휴 기간"),
    ("인천공항 주차요금", "김포공항 주차요금"),
    # -ing/-ed only for a question's verb; real words one slip apart are not typos
    ("parking fee Gangnam", "park fee Gangnam"),
    ("interesting facts about Korea", "interested facts about Korea"),
    ("dessert in Dubai", "desert in Dubai"),
    # negation and direction still rule a hit out after names are merged
    ("flu vaccine not recommended for kids", "influenza vaccine recommended for children"),
    ("United States to Korea flights", "Korea to US flights"),
])
def test_near_misses_stay_apart(cached: str, asked: str) -> None:
    assert not compare(cached, asked).same
    assert not compare(asked, cached).same


def test_a_name_of_several_words_is_one_term() -> None:
    terms = request_terms("New York City hotel prices").terms
    assert [t.key for t in terms] == ["new york city", "hotel", "price"]
    assert terms[0].concepts and terms[0].concepts == request_terms("NYC").terms[0].concepts


def test_korean_names_join_across_spaces_but_not_across_particles() -> None:
    assert compare("주식 시세 전망", "주가 전망").same
    assert not compare("주식의 시세 전망", "주가 전망").same


def test_question_word_with_unit_is_one_question() -> None:
    assert [(t.key, t.optional) for t in request_terms("서울 인구 몇 명").terms] == [
        ("서울", None), ("인구", None), ("many 명", "wh")]
    assert [t.key for t in request_terms("how long is the flight").terms] == ["how long", "is", "flight"]


def test_typos_of_real_word_pairs_are_refused() -> None:
    assert not is_typo("desert", "dessert")
    assert not is_typo("angel", "angle")
    assert is_typo("goverment", "government")


def test_a_capitalised_question_word_alone_is_an_acronym() -> None:
    assert [t.key for t in request_terms("WHO guidelines").terms] == ["who", "guideline"]
    assert request_terms("WHO guidelines").terms[0].optional is None
    assert request_terms("WHAT IS THE GDP").terms[0].optional == "wh"  # shouting, not an acronym


def test_equivalents_file_is_well_formed() -> None:
    """Every variant analyses to terms and belongs to one group only (no accidental bridge between groups)."""
    path = query_match._DATA / "equivalents.txt"
    owner: dict[object, list[int]] = defaultdict(list)
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        variants = [v.strip() for v in line.split("|")]
        assert len(variants) >= 2 and all(variants), f"line {number}: {line!r}"
        for variant in variants:
            if re.search("[\uac00-\ud7a3]", variant):
                key: object = query_match._hangul_key(variant)
            else:
                key = query_match._latin_key(variant)
                assert key, f"line {number}: {variant!r} has no content terms"
            owner[key].append(number)
    assert not {k: v for k, v in owner.items() if len(set(v)) > 1}
