"""The semantic cache's same-request check (`query_match`): what rules a hit out, what still hits."""

from __future__ import annotations

import pytest

from ai_llm.common.text import singular
from ai_llm.search_gateway.query_match import compare, is_typo, request_terms, same_request

#: Different requests an embedding model calls the same (cosine 0.976, 0.913 and 0.921 with all-MiniLM-L6-v2).
LOOKALIKE_PAIRS = [
    ("Korea GDP growth rate 2023", "Korea GDP growth rate 2024"),
    ("Python 3.12 release date", "Python 3.13 release date"),
    ("원달러 환율 오늘", "원엔 환율 오늘"),
]


@pytest.mark.parametrize(("cached", "asked"), LOOKALIKE_PAIRS)
def test_the_issue_pairs_are_different_requests(cached: str, asked: str) -> None:
    result = compare(cached, asked)
    assert not result.same and "different content" in result.reason
    assert not same_request(asked, cached)


@pytest.mark.parametrize(("cached", "asked"), [
    # numbers, years, dates, versions
    ("top 10 universities in Asia", "top 50 universities in Asia"),
    ("monthly payment on a $400,000 mortgage", "monthly payment on a $500,000 mortgage"),
    ("대출 1억 금리 4.5% 월 이자", "대출 1억 금리 3.5% 월 이자"),
    ("2023년 합계출산율 통계", "2022년 합계출산율 통계"),
    ("3월 1일 서울 날씨", "1월 3일 서울 날씨"),  # same numbers, another date
    ("S&P 500 performance Q2 2024", "S&P 500 performance Q1 2024"),
    ("Seoul population 2020", "Seoul population 2020s"),
    ("Ubuntu 24.04 release notes", "Ubuntu 22.04 release notes"),
    ("파이썬 3.11 새로운 기능", "파이썬 3.12 새로운 기능"),
    # currencies and units
    ("$100 in won", "€100 in won"),
    ("USD to KRW exchange rate", "USD to JPY exchange rate"),
    ("금 1온스 가격", "금 1돈 가격"),
    ("1 inch in cm", "1 foot in cm"),
    ("average salary per month in Korea", "average salary per hour in Korea"),
    # named entities and product variants
    ("Elon Musk net worth", "Jeff Bezos net worth"),
    ("Jason Statham movies", "Mason Statham movies"),
    ("삼성전자 주가", "삼성전기 주가"),
    ("현대차 배당금", "기아 배당금"),
    ("서울 지하철 기본요금", "부산 지하철 기본요금"),
    ("양주시 날씨", "영주시 날씨"),
    ("안양시 날씨", "안산시 날씨"),
    ("iPhone 15 Pro", "iPhone 15 Pro Max"),
    ("Galaxy S24 price", "Galaxy S24+ price"),
    ("C# tutorial", "C++ tutorial"),
    ("갤럭시 S24 울트라 배터리 용량", "갤럭시 S24 플러스 배터리 용량"),
    ("아이패드 프로 11인치 가격", "아이패드 에어 11인치 가격"),
    # direction and roles
    ("convert USD to KRW", "convert KRW to USD"),
    ("100 USD in KRW", "100 KRW in USD"),
    ("flights from Seoul to Tokyo", "flights from Tokyo to Seoul"),
    ("김포에서 제주 첫 비행기", "제주에서 김포 첫 비행기"),
    ("서울에서 부산까지 KTX 요금", "부산에서 서울까지 KTX 요금"),
    ("애플이 인수한 회사", "애플을 인수한 회사"),
    ("중국의 한국 수출 규모", "한국의 중국 수출 규모"),
    ("Apple acquired Beats", "Beats acquired Apple"),
    ("companies acquired by Apple", "companies that acquired Apple"),
    ("Is Seoul bigger than Tokyo", "Is Tokyo bigger than Seoul"),
    ("금리 인상", "금리 인하"),
    ("best phone under 500", "best phone over 500"),
    ("before tax salary", "after tax salary"),
    # negation
    ("stocks that pay dividends", "stocks that don't pay dividends"),
    ("foods not allowed in carry-on", "foods allowed in carry-on"),
    ("부작용이 있는 약", "부작용이 없는 약"),
    ("당뇨 환자가 먹어도 되는 과일", "당뇨 환자가 먹으면 안 되는 과일"),
    ("연말정산 공제 되는 항목", "연말정산 공제 안 되는 항목"),
    ("흡연자 보험료", "비흡연자 보험료"),
    ("무료 주차장", "유료 주차장"),
    # question word and tense
    ("When was Python 3.12 released", "Where was Python 3.12 released"),
    ("Who is the CEO of Apple", "Who was the CEO of Apple"),
    # nothing to compare
    ("please tell me", "알려줘"),
])
def test_near_misses_are_different_requests(cached: str, asked: str) -> None:
    result = compare(cached, asked)
    assert not result.same, result
    assert result.reason
    assert not compare(asked, cached).same


@pytest.mark.parametrize(("cached", "asked"), [
    # casing, punctuation, plural
    ("iPhone 16 Release Date", "iphone 16 release date"),
    ("GDPR fines list!", "gdpr fines list"),
    ("side effects of ibuprofen", "side effect of ibuprofen"),
    ("coworking spaces in Gangnam", "coworking space in Gangnam"),
    ("서울 맛집들 추천", "서울 맛집 추천"),
    # request phrasing
    ("Nvidia stock price", "I'd like to know the Nvidia stock price please"),
    ("could you explain how to renew a passport in Korea", "how to renew a passport in Korea"),
    ("Who is the CEO of Hyundai Motor", "Hyundai Motor CEO"),
    ("What is the capital of Australia?", "capital of Australia"),
    ("서울 날씨 좀 알려주세요", "서울 날씨"),
    ("여권 재발급 준비물 알려주세요 감사합니다", "여권 재발급 준비물"),
    ("코스피 지수", "코스피 지수 확인 부탁해"),
    ("AWS 요금 계산기 좀 찾아줘", "AWS 요금 계산기"),
    ("호주 수도", "호주의 수도는 어디야"),
    # Korean particles and spacing
    ("서울의 날씨는?", "서울 날씨"),
    ("비트코인 가격", "비트코인의 가격은"),
    ("오늘서울날씨알려줘", "오늘 서울 날씨 알려줘"),
    ("원달러 환율", "원달러환율"),
    ("인천 공항 주차 요금", "인천공항 주차요금"),
    ("청년 도약 계좌 조건", "청년도약계좌 조건"),
    ("부가 가치세 신고", "부가가치세 신고"),
    ("먹지 않는 음식", "안 먹는 음식"),
    ("2024년 GDP", "2024 GDP"),
    # English spacing and typos
    ("iphone15 pro price", "iPhone 15 Pro price"),
    ("new york hotels", "newyork hotels"),
    ("weahter in Seoul", "weather in Seoul"),
    ("Kubernetes 설치 가이드", "Kubernets 설치 가이드"),
    ("1,000 dollars in won", "1000 dollars in won"),
    # Korean typos (one jamo, past the first two syllables) and keyboard noise
    ("2025 최저임금", "2025 최저임굼"),
    ("카카오뱅크 금리", "카카오뱅그 금리"),
    ("청년도약계좌 조건", "청년도약계자 조건"),
    ("부산 날씨", "부산 날씨ㅣ"),
    # order
    ("minimum wage Korea 2025", "2025 Korea minimum wage"),
    ("best restaurants in Seoul", "Seoul best restaurants"),
    ("Korea minimum wage 2025", "what is the minimum wage in Korea in 2025"),
    ("오늘 서울 날씨", "서울 날씨 오늘"),
    ("서울에서 부산 KTX", "서울 부산 KTX"),  # a role on one side only
])
def test_variants_of_one_request_still_hit(cached: str, asked: str) -> None:
    assert compare(cached, asked).same, compare(cached, asked)
    assert same_request(asked, cached)


def test_korean_terms_are_content_morphemes_with_roles() -> None:
    analysed = request_terms("서울에서 부산까지 가는 KTX 요금 좀 알려주세요")
    assert analysed.hangul
    assert [t.key for t in analysed.terms] == ["서울", "부산", "가", "ktx", "요금"]
    assert [t.role for t in analysed.terms][:2] == ["source", "goal"]
    assert [t.key for t in request_terms("성장률의 비흡연자").terms] == ["성장률", "비흡연자"]


def test_english_terms() -> None:
    analysed = request_terms("Please tell me the prices of Galaxy S24+ in Korea's cities")
    assert not analysed.hangul
    assert [t.key for t in analysed.terms] == ["price", "galaxy", "s", "24", "+", "korea", "city"]
    assert analysed.terms[-2].role == "in"


def test_spelling_variant_helpers() -> None:
    assert is_typo("goverment", "government") and is_typo("weahter", "weather") and is_typo("pruce", "price")
    assert not is_typo("korea", "korean")  # the last letter is not a typo position
    assert not is_typo("jason", "mason") and not is_typo("austin", "austen")  # first letter; e/i not neighbours
    assert not is_typo("2023", "2024") and not is_typo("cat", "car")
    assert [singular(w) for w in ("companies", "taxes", "prices", "news", "bus", "analysis")] == [
        "company", "tax", "price", "news", "bus", "analysis"]
