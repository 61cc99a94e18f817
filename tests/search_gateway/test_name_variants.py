"""Generic spelling variants of one name (`name_variants`) and their use by the cache's same-request check.

Each rule is checked on both sides: pairs that are one request written two ways must match, and near-misses
that the rule could confuse (a prefix, another entity with shared syllables, another attribute) must not.
"""

from __future__ import annotations

import pytest

from ai_llm.search_gateway import name_variants as nv
from ai_llm.search_gateway.query_match import compare


def test_initialism_needs_every_word_and_two_or_more() -> None:
    assert nv.is_initialism("roi", ["return", "on", "investment"])
    assert nv.is_initialism("eol", ["end", "of", "life"])
    assert not nv.is_initialism("ri", ["return", "on", "investment"])
    assert not nv.is_initialism("r", ["return"])


@pytest.mark.parametrize(("short", "long_", "expected"), [
    ("tmrw", "tomorrow", True), ("govt", "government", True), ("tsla", "tesla", True), ("mgmt", "management", True),
    ("java", "javascript", False),  # a prefix: another language
    ("macb", "macbook", False),
    ("ios", "ipados", False),  # too short and two vowels
    ("css", "class", False),  # three letters: too short to be sure
])
def test_consonant_abbreviation(short: str, long_: str, expected: bool) -> None:
    assert nv.is_consonant_abbreviation(short, long_) is expected


def test_numeronym_counts_the_letters_left_out() -> None:
    assert nv.is_numeronym("k8s", "kubernetes")
    assert nv.is_numeronym("i18n", "internationalization")
    assert not nv.is_numeronym("k9s", "kubernetes")
    assert not nv.is_numeronym("s24", "samsung")


@pytest.mark.parametrize(("short", "long_", "expected"), [
    ("시총", "시가총액", True), ("건보료", "건강보험료", True), ("스벅", "스타벅스", True), ("카뱅", "카카오뱅크", True),
    ("대선", "대통령선거", True),
    ("서울대", "서울대병원", False),  # a prefix: another institution
    ("강남역", "강남구청역", False),  # shares its first two syllables: another station
    ("퇴직금", "퇴직연금", False),
    ("시총", "시총액", False),
])
def test_syllable_abbreviation(short: str, long_: str, expected: bool) -> None:
    assert nv.is_syllable_abbreviation(short, long_) is expected


def test_letter_names() -> None:
    assert nv.is_letter_names("lg", "엘지")
    assert nv.is_letter_names("kt", "케이티")
    assert nv.is_letter_names("sk", "에스케이")
    assert not nv.is_letter_names("lg", "엘지디")
    assert not nv.is_letter_names("kt", "케이비")


@pytest.mark.parametrize(("latin", "hangul", "expected"), [
    ("ubuntu", "우분투", True), ("react", "리액트", True), ("tesla", "테슬라", True), ("netflix", "넷플릭스", True),
    ("starbucks", "스타벅스", True), ("python", "파이썬", True), ("docker", "도커", True), ("seoul", "서울", True),
    ("busan", "부천", False), ("incheon", "이천", False), ("tesla", "테라", False),
    ("kia", "기아", False),  # one consonant: too short to tell
    ("apple", "사과", False),  # a translation is not a transliteration
])
def test_transliteration(latin: str, hangul: str, expected: bool) -> None:
    assert nv.is_transliteration(latin, hangul) is expected


@pytest.mark.parametrize(("a", "b"), [
    ("return on investment meaning", "ROI meaning"),
    ("kubernetes pod restart", "k8s pod restart"),
    ("pls tell me the weather in tokyo tmrw", "Tokyo weather tomorrow"),
    ("엔비디아 시가총액", "엔비디아 시총"),
    ("삼성전자 주가", "삼전 주가"),
    ("2024 미국 대선 날짜", "2024년 미국 대통령 선거 날짜"),
    ("LG 주가", "엘지 주가"),
    ("Ubuntu에 Docker 설치 방법", "우분투에 도커 설치하는 방법"),
    ("Tesla 주가", "테슬라 주가"),
    ("2025년 공휴일 목록", "2025년 공휴일 리스트"),  # a loanword and the native word with its English rendering
    ("갤럭시 S24 출시일", "갤럭시 S24 출시 날짜"),
    ("연차수당 계산법", "연차 수당 계산 방법"),
    ("운전면허 갱신 방법", "운전면허 갱신 어떻게 해"),
    ("엑셀 틀 고정", "엑셀 틀고정 하는법"),
    ("엔화 환율", "엔화 환률"),  # Kiwi's typo model
    ("대전 내일 날씨", "대전 내일 날시"),  # a plain consonant for a tense one
    ("엔비디아 주가", "엔디비아 주가"),  # two syllables swapped
    ("how to convert pdf to word", "convert PDF to Word"),  # "to" after "how" is no goal
    ("비트코인 지금 얼마야", "비트코인 현재 시세"),
])
def test_same_request_written_two_ways(a: str, b: str) -> None:
    assert compare(a, b).same, compare(a, b).reason


@pytest.mark.parametrize(("a", "b"), [
    ("현대차 사장", "현대차 회장"),  # two native words with one English gloss ("president")
    ("강남역 맛집", "강남구청역 맛집"),
    ("퇴직금 계산", "퇴직연금 계산"),
    ("서울대 등록금", "서울대병원 등록금"),
    ("안산 날씨", "안성 날씨"),  # one vowel apart: two cities
    ("양주시 날씨", "영주시 날씨"),
    ("삼성전자 주가", "삼성전기 주가"),
    ("java array sort", "javascript array sort"),
    ("CSS selector", "class selector"),
    ("k8s 1.30 release", "k8s 1.31 release"),
    ("LG 주가", "SK 주가"),
    ("Tesla 주가", "리비안 주가"),
    ("PDF to Word", "Word to PDF"),
    ("갤럭시 S24 출시일", "갤럭시 S25 출시 날짜"),
    ("신청 방법", "신청 기간"),
])
def test_near_misses_stay_apart(a: str, b: str) -> None:
    assert not compare(a, b).same
