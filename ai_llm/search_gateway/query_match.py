"""Same-request check of the semantic cache: may the answer cached for one query serve another?

Embedding cosine measures topic, not request: all-MiniLM-L6-v2 puts "Korea GDP growth rate 2023" and
"… 2024" at 0.976, and multilingual-e5-small "usd to eur" / "eur to usd" at 0.996, above any useful threshold
(docs/adr/0002-semantic-cache-check-stays-on-rules.md). So a semantic hit also needs `same_request(cached, asked)`:
the two texts must carry the same *request content*, whatever their cosine.

How the two texts are compared:

1. **Content terms.** Each query becomes a sequence of terms. Latin-script words are case-folded and
   reduced to a singular form; numbers are kept whole (``3.12``, ``1,000`` → ``1000``); meaningful symbols
   (``% $ € £ ¥ ₩ ° + #``) are terms; "k8s" / "i18n" are one word. Korean goes through the Kiwi morphological
   analyser, with its typo model ("환률" is read as "환율"): nouns (NNG/NNP/NNB/NR/NP), roots (XR),
   verb/adjective stems (VV/VA), adverbs and determiners (MAG/MM) are terms;
   particles, endings and verbalising suffixes are not, so "서울의 날씨는?" and "서울 날씨" have the same
   terms. Prefixes and noun suffixes stay on their noun (비+흡연자, 성장+률): they change what is asked.
   Kiwi keeps some "<event>일" nouns whole (종료일) and splits others (출시 + 일); they are always split, and the
   day is 날짜 ("출시일" = "출시 날짜") and can stand for 언제 (below), except nouns that are not an event's day
   (토요일, 공휴일, 기념일 …).
2. **Neutral words** carry no request content and are dropped: request phrasing ("please tell me", "could
   you explain", "kindly list", "recommend", "알려줘", "좀", "검색해 줘", "부탁드립니다", "추천", "여부"),
   articles, auxiliaries, pronouns, "this"/"이번", "current"/"now"/"현재"/"지금". Question words (what, how,
   who, when, where, 뭐, 어떻게,
   언제, 누구, 얼마, 몇) and the tense of "to be" may be left out on one side ("who is the CEO of Apple" =
   "Apple CEO") but must agree when both sides have one ("what to eat" ≠ "where to eat", "어떻게 신청" ≠
   "언제 신청"). "how" + an adjective ("how tall", "how long") and 몇 + a unit ("몇 명", "몇 퍼센트") are one
   question word each ("몇 명" ≠ "몇 시"). Negation (not, no, never, without, 안, 못, 않, 아니, 없) is
   never neutral, nor are acronyms ("US", and "WHO" unless the query is typed in capitals), the month "May"
   or letters written against digits ("S24", "4o"). 방법, 어떻게 and 법 after a verb or written against a
   noun ("사는 법", "계산법") are the question word "how" ("how to" carries no goal); a law named in one word
   (노동법, 형법) is not.
3. **Same terms.** Runs of terms that name one thing become one term first, longest first, with the
   equivalence groups it belongs to (`equivalents()`):

   * `data/equivalents.txt`: abbreviations and full names ("NYC" / "New York City", "한은" / "한국은행",
     "CPI" / "consumer price index"), Korean and English names ("삼성전자" / "Samsung Electronics",
     "주가" / "stock price"), and synonyms that are interchangeable in any query ("cheap" / "affordable",
     "가격" / "비용", "퇴사" / "퇴직"). All variants of a line are one group. The file never groups a broader
     and a narrower term, two members of one class (two currencies, cities, ministries) or a word whose
     other sense would merge different requests; "North Korea", "bird flu", "Canadian dollar" stay apart
     from "Korea", "flu", "dollar" because the longer name is its own term or keeps its extra word.
   * `data/ordered_terms.txt` (the ordered classes, 4): its lines are groups of the same kind ("Lisbon" /
     "리스본", "kilogram" / "kg" / "킬로그램").
   * the project's Korean–English tables (`ai_llm/common/text/data/loanwords_ko_en.tsv`, `glossary_ko_en.tsv`):
     one group per line, so each links a Korean word to one English word ("엔비디아" / "NVIDIA", "독감" /
     "flu") and never two Korean or two English words to each other.

   Korean runs are joined only across spaces ("주식 시세" = "주식시세"), never across a particle. Then equal
   terms are matched, and every leftover term rules the hit out: a content word present on one side only,
   or substituted by another, means another request. The only leftovers forgiven are:

   * a term and a term of a shared equivalence group ("US" / "United States");
   * a typo in a Latin word of five or more letters: one adjacent transposition, or one insertion, deletion
     or substitution by a neighbouring QWERTY key inside the word ("goverment", "weahter"), unless the two
     are real words one slip apart ("desert" / "dessert", "angel" / "angle");
   * an -ed word in a question with "is/was/were" for its verb or the verb's -ing form, also through the
     verb's groups ("when was Samsung founded" / "Samsung founding year", "when is it released" / "release
     date" / "launch date"); never otherwise ("parking" ≠ "park", "interesting" ≠ "interested");
   * the noun a question word asks for, when that question word is on the other side only (`ANSWER_WORDS`:
     when → date/year/기간/일, how much → price, how tall → height, where → location/곳, what → meaning;
     "when is Chuseok" = "Chuseok date", "아이폰 16 언제 출시돼" = "아이폰 16 출시일"), one noun per question
     word, and only that question word's nouns ("Samsung founding location" ≠ "when was Samsung founded");
   * one name written two ways by the rules of how short forms and transliterations are made
     (`name_variants`): initials ("ROI" / "return on investment"), consonant abbreviations ("tmrw", "TSLA"),
     numeronyms ("k8s"), Korean syllable abbreviations ("시총" / "시가총액", "삼전" / "삼성전자"), letter names
     ("LG" / "엘지") and Hangul transliterations ("Ubuntu" / "우분투");
   * a Korean loanword and a native word that the Korean–English tables render by the same English word
     ("리스트" / "목록", "에러" / "오류"); never two native words ("사장" / "회장" are both "president");
   * a spacing variant: one side's term is adjacent terms of the other written together ("iphone15");
   * for Korean, where a typo or unusual spacing makes Kiwi segment differently, the query's content
     words (its space-separated words that hold a content term, trailing particles and endings cut off)
     are compared as one string without spaces: equal means a spacing variant ("청년 도약 계좌" /
     "청년도약계좌"); one jamo apart, in the third or a later syllable of a word of three or more syllables,
     means a typo ("최저임굼", "카카오뱅그"), as do a plain consonant for a tense one after a word's first
     syllable ("날시") and two syllables swapped inside a word of four or more ("엔디비아"), while "양주시" /
     "영주시", "안산" / "안성" or "안양시" / "안산시" stay apart.

   When merged names leave a difference, the unmerged terms are compared too, so a typo inside a name is
   still forgiven ("exhange rate" / "exchange rate"). Numbers are never fuzzy, inside names or out
   ("코로나19" is one name; "Galaxy S24" / "갤럭시 S25" differ). Words are matched by meaning only through
   these groups ("guide" / "tips" or "맛집" / "식당" are not grouped): a miss costs one provider call, a wrong
   hit serves another question's results.
4. **Same structure.** Numbers must come in the same order ("3/1" is not "1/3"). Case roles must agree:
   Korean particles (에서/부터 source, 까지/로/에게 goal, 에 location, 의 possessor, 보다 comparison,
   이/가 subject, 을/를 object) and English prepositions (from, to/into, in, than, by) mark the term they
   attach to, so "서울에서 부산까지" / "부산에서 서울까지", "USD to KRW" / "KRW to USD", "100 USD in KRW" /
   "100 KRW in USD", "애플이 인수한" / "애플을 인수한" differ. A role present on one side only is tolerated
   ("서울 부산 KTX" asks what "서울에서 부산 KTX" asks) unless the other side gives that role to another
   term ("by" must be on both sides). Keyword order is otherwise free ("2025 Korea minimum wage" = "Korea
   minimum wage 2025", "서울 날씨 내일" = "내일 서울 날씨", one place moving: "서울 맛집 강남"), but English
   terms may not swap sides around a verb ("Apple acquired Beats" ≠ "Beats acquired Apple"), and:

   * **Ordered classes** (`data/ordered_terms.txt`: places — countries, cities, districts, and Korean names
     ending in 역/공항/터미널/정류장 —, currencies, units of measure, temperature scales, languages, file
     formats). Two terms of one class written without markers take their roles from their order, the first
     being the source: "대전 광주 버스" ≠ "광주 대전 버스", "리터 갤런 변환" ≠ "갤런 리터 변환", "영어 한국어 번역"
     ≠ "한국어 영어 번역", "Lisbon Madrid train" ≠ "Madrid Lisbon train", "USD KRW" ≠ "KRW USD". So when both
     queries hold the same two terms of a class, their direction must agree: taken from the markers where a
     side has them (에서/부터/from source, 까지/로/to/into goal, and "in" for a unit or currency: "100 USD in
     KRW"), else from a number counting one of them (below), else from their order ("서울에서 부산 KTX" =
     "서울 부산 KTX" ≠ "부산 서울 KTX"). Order stays free where both sides only coordinate the two ("서울과 부산
     날씨", "Seoul and Busan weather") and in symmetric questions (distance, 거리, 시차, relations, war,
     summit, match, and the group of difference / vs / 비교: "서울 부산 거리" = "부산 서울 거리"). A broader and
     a narrower place in another order ("서울 강남 맛집" / "강남 서울 맛집") are a miss: the lexicon knows no
     containment.
   * **A number counts the unit next to it**: the unit, currency or scale right after it, with only spaces
     between ("5 온스", "100kg"), else one written against it before ("$100"). Both sides must count the same
     unit with each number: "5 온스 몇 그램" ≠ "5 그램 몇 온스".

It is cheap: a regex pass, one Kiwi call for text with Hangul (≈0.1–0.3 ms), dictionary look-ups of term runs
(≈1 ms a comparison in all), and an LRU cache of analysed queries. Kiwi (the process's one analyser,
`ai_llm.common.text.analysis.kiwi`, shared with indexing and search: a few seconds, ≈500 MB) and the
equivalence tables (≈0.15 s, ≈13k phrases) are loaded once per process, lazily; `warm_up()` loads both ahead
of time.

Because the check decides, the cache's cosine threshold only picks candidates and sits low (0.25 in
`search_config.yaml`): all-MiniLM-L6-v2, an English model, puts typos ("Samsng") and Korean/English names of
one thing ("NVIDIA" / "엔비디아", "Microsoft CEO" / "마이크로소프트 최고경영자") at 0.25-0.7.
"""

from __future__ import annotations

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from ai_llm.common.text import HANGUL_SYLLABLE, NEUTRAL_ENGLISH, NEUTRAL_KOREAN, singular
from ai_llm.common.text.analysis import KOREAN_FUNCTION_TAGS, KOREAN_TAG_CLASSES, kiwi, korean_english_pairs
from ai_llm.search_gateway import name_variants

TermKind = Literal["word", "number", "symbol", "korean"]

_HANGUL_CHARS = "\uac00-\ud7a3\u3131-\u318e\u1100-\u11ff"
_HANGUL = re.compile(f"[{_HANGUL_CHARS}]")
# ㅋㅋ, ㅠㅠ, a stray ㅣ: keyboard noise, never a word (NFKC turns them into conjoining jamo)
_LONE_JAMO = re.compile("[\u1100-\u11ff\u3131-\u318e]+")
# Latin/other-script words without digits or Hangul, numbers with decimal/thousands separators, and the
# symbols that change a request (currencies, percent, degrees, C++ / S24+ / C#).
_TOKEN = re.compile(rf"(?P<numeronym>(?<![A-Za-z0-9])[A-Za-z]\d{{1,2}}[A-Za-z](?![A-Za-z0-9]))|"
                    rf"(?P<number>\d+(?:[.,]\d+)*)|(?P<word>[^\W\d_{_HANGUL_CHARS}]+)|(?P<symbol>[%$€£¥₩°+#])")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_CONTRACTIONS = [(re.compile(pattern, re.IGNORECASE), replacement) for pattern, replacement in [
    (r"\bcan['’]t\b", "can not"), (r"\bwon['’]t\b", "will not"), (r"\bcannot\b", "can not"), (r"n['’]t\b", " not"),
    (r"['’](d|ll|ve|re|m)\b", " ")]]
_NOT_IN_CONTENT_STRING = re.compile(r"[\s?!.,~·…'\"“”‘’()\[\]{}:;]")

#: Words that may be left out without changing the request ("who is the CEO of Apple" = "Apple CEO"), but
#: that must agree when both queries have one: the question word ("when" ≠ "where") and the tense of "to be"
#: ("who is" ≠ "who was"). Value: (class, compared form). Korean entries are "form/tag class".
OPTIONAL_WORDS = {
    "what": ("wh", "what"), "whats": ("wh", "what"), "which": ("wh", "what"), "how": ("wh", "how"),
    "hows": ("wh", "how"), "who": ("wh", "who"), "whom": ("wh", "who"), "whose": ("wh", "whose"),
    "when": ("wh", "when"), "where": ("wh", "where"), "why": ("wh", "why"), "many": ("wh", "many"),
    "much": ("wh", "much"),
    "is": ("tense", "is"), "are": ("tense", "is"), "am": ("tense", "is"), "was": ("tense", "was"),
    "were": ("tense", "was"),
    "뭐/N": ("wh", "what"), "무엇/N": ("wh", "what"), "무슨/M": ("wh", "what"), "어떤/M": ("wh", "what"),
    "어느/M": ("wh", "what"), "어떻/V": ("wh", "how"), "어떻게/M": ("wh", "how"), "방법/N": ("wh", "how"),
    "어떠/V": ("wh", "how"), "언제/N": ("wh", "when"),
    "언제/M": ("wh", "when"), "어디/N": ("wh", "where"), "어디/M": ("wh", "where"), "누구/N": ("wh", "who"),
    "왜/M": ("wh", "why"), "얼마/N": ("wh", "much"), "얼마나/M": ("wh", "much"), "몇/M": ("wh", "many"),
    "몇/N": ("wh", "many"),
}

#: Adjectives that make "how" ask for one quantity ("how tall" → height); the pair is one question word.
HOW_ADJECTIVES = frozenset("tall high long far old big large heavy fast hot cold deep often soon early late".split())
#: Units that make 몇 ask for one quantity ("몇 명" → a head count); the pair is one question word.
KOREAN_UNITS = frozenset("명 개 시 분 초 살 세 년 월 일 주 시간 개월 주일 번 층 퍼센트 프로 % 달러 원 킬로 미터 배 등".split())
#: Nouns ending in 일 that are not "<event> day" (토요일, 공휴일, 기념일, 휴일, 생일, 평일 …).
_WHOLE_DAY_NOUNS = ("요일", "공휴일", "기념일", "휴일", "생일", "평일", "매일", "내일", "당일", "전일", "익일", "종일",
                    "영업일", "근무일")
#: What a question word asks for: a query with the question word and one with this noun instead ask the same
#: ("when was Samsung founded" = "Samsung founding year", "연말정산 언제" = "연말정산 기간"), provided the
#: question word is on one side only. Keys are the compared forms of `OPTIONAL_WORDS` and the joined question
#: words ("how tall", "many 명"); values are English singular forms and Korean terms.
ANSWER_WORDS: dict[str, frozenset[str]] = {wh: frozenset(words.split()) for wh, words in {
    "when": "date day time year period schedule 날짜 일 날 일자 시기 기간 일정 시간",
    "where": "location place address 곳 장소 위치 주소",
    "why": "reason cause 이유 원인",
    "what": "meaning definition 뜻 의미 정의",
    "how": "way method procedure step 방법 요령 절차",
    "much": "price cost fee amount 가격 비용 요금 금액 시세",
    "many": "number count 수 개수",
    "how long": "duration length time period 기간 시간 소요",
    "how tall": "height 높이 키",
    "how high": "height altitude 높이 고도",
    "how old": "age 나이",
    "how far": "distance 거리",
    "how big": "size area 크기 면적",
    "how large": "size area 크기 면적",
    "how heavy": "weight 무게",
    "how fast": "speed 속도",
    "how hot": "temperature 기온 온도",
    "how cold": "temperature 기온 온도",
    "how deep": "depth 깊이",
    "how often": "frequency 빈도 주기",
    "many 명": "number 수 인원",
    "many 개": "number 수 개수",
    "many 시": "time 시간 시각 영업시간 운영시간",
    "many 살": "age 나이",
    "many 세": "age 나이",
}.items()}

#: English prepositions that give the next content term a case role.
ENGLISH_ROLES = {"from": "source", "to": "goal", "into": "goal", "towards": "goal", "toward": "goal",
                 "in": "in", "than": "comparison", "by": "agent"}
#: Roles whose absence on one side is itself a difference ("acquired by Apple" ≠ "Apple acquired").
STRICT_ROLES = frozenset({"agent"})
#: English verbs (besides -ed forms) around which subject and object may not swap (singular-folded forms).
RELATION_VERBS = frozenset("""beat defeat win won lose lost buy bought sell sold acquire sue hire fire invest
    overtake overtook surpass outsell outsold replace pay paid owe follow call play lead led join leave left
    meet met marry""".split())
#: How `_order_conflict` reasons begin.
_ORDER_DIFFERS = "order: "
#: Classes whose terms a number counts ("5 온스", "$100").
_MEASURES = frozenset({"unit", "currency", "scale"})
#: Words that make the order of two places or units free: "서울 부산 거리" asks what "부산 서울 거리" asks.
#: (The group of "difference" / "vs" / 비교 in equivalents.txt does the same; `_symmetric_groups`.)
#: (Not 경기, which is also Gyeonggi: "경기 서울 이사" is a move.)
_SYMMETRIC = frozenset("distance 거리 시차 relation relationship 관계 war 전쟁 무역전쟁 summit 정상회담 회담 match "
                       "맞대결".split())
#: What may stand between two coordinated terms, whose order is then free ("서울과 부산", "Seoul and Busan").
_COORDINATION = re.compile(r"\s*(?:,|&|and|or|vs\.?|versus|와|과|랑|이랑|하고|및|이나|나|또는)\s*", re.IGNORECASE)
#: Korean nouns ending in 역 that are not stations (지역 "region", 번역 "translation" …).
#: (구역 only as a zone: 동대구역 is a station.)
_NOT_STATIONS = ("지역", "영역", "권역", "해역", "전역", "수역", "무역", "번역", "통역", "병역", "성역", "하역", "현역",
                 "복역", "노역", "주역", "배역", "광역", "발구역", "할구역", "별구역", "지구역", "연구역", "제구역",
                 "호구역", "거구역", "차구역", "험구역", "전구역", "정구역")

#: Korean particles (Kiwi J* tags) that give the preceding term a case role.
KOREAN_ROLES = {"에서": "source", "에서부터": "source", "부터": "source", "으로부터": "source", "로부터": "source",
                "까지": "goal", "로": "goal", "으로": "goal", "에게": "goal", "한테": "goal", "께": "goal",
                "에게로": "goal", "보다": "comparison", "이": "subject", "가": "subject", "께서": "subject",
                "을": "object", "를": "object", "의": "possessor", "에": "location", "에게서": "source",
                "한테서": "source"}
#: Korean negators, mapped to one term per meaning ("안 먹는" = "먹지 않는"; "못 먹는" = "먹지 못하는").
KOREAN_NEGATION = {"안": "않", "않": "않", "아니": "않", "말": "않", "못": "못", "못하": "못"}

#: Real English words one keyboard slip apart: never a typo of each other.
_REAL_WORD_PAIRS = frozenset(frozenset(pair.split("/")) for pair in """desert/dessert diner/dinner later/latter
    super/supper hoping/hopping filing/filling dining/dinning taping/tapping planing/planning scraped/scrapped
    striped/stripped wining/winning pining/pinning robed/robbed caned/canned biding/bidding cuter/cutter
    coping/copping moping/mopping sloping/slopping scared/scarred stared/starred sited/sitted comet/commet
    angel/angle clock/click state/stare trial/trail dairy/diary quite/quiet casual/causal thorough/through
    lose/loose except/expect advice/advise device/devise""".split())

_QWERTY = ["qwertyuiop", "asdfghjkl", "zxcvbnm"]
_KEY_POS = {ch: (row, col) for row, keys in enumerate(_QWERTY) for col, ch in enumerate(keys)}


@dataclass(frozen=True)
class Term:
    """One content term of a query.

    Args:
        key: the compared form (case-folded, singular for Latin words, Kiwi's lemma for Korean).
        surface: the form as written (case-folded), for typo and spacing comparisons.
        kind: word (non-Hangul letters), number, symbol or korean.
        role: case role from a particle or preposition (source, goal, comparison, subject, object, agent).
        start: character offset in the normalised query (terms are in text order).
        optional: class of a word that may be left out on one side (see `OPTIONAL_WORDS`), else None.
        end: end offset of the term's last piece in the normalised query.
        concepts: ids of the equivalence groups the term (or phrase) belongs to (see `equivalents`).
    """

    key: str
    surface: str
    kind: TermKind
    role: str | None = None
    start: int = 0
    optional: str | None = None
    end: int = 0
    concepts: frozenset[str] = frozenset()


@dataclass(frozen=True)
class Word:
    """A space-separated word of the query, with its trailing particles and endings cut off (Korean)."""

    start: int
    end: int
    stem: str


@dataclass(frozen=True)
class RequestTerms:
    """The analysed query: content terms in text order, its words, and whether it contains Hangul.

    `plain` holds the terms before equivalent names were merged into one term (`terms` without phrases).
    """

    terms: tuple[Term, ...]
    words: tuple[Word, ...]
    hangul: bool
    plain: tuple[Term, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class MatchResult:
    """Outcome of `compare`: `same` and, when not, the first difference found (for logs and benchmarks)."""

    same: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.same


# --- Kiwi: the process's one analyser (`ai_llm.common.text.analysis.kiwi`) ----------------------------------
@lru_cache(maxsize=1)
def _stock_price_blocklist() -> Any:
    """Kiwi reads 주가 ("stock price") at the end of a query as 주 + the particle 가; without the noun 주 (the
    bound noun of "이번 주가 지나면" stays) it reads the noun 주가."""
    from kiwipiepy import MorphemeSet

    return MorphemeSet(kiwi(), ["주/NNG"])


def _korean_tokens(text: str) -> Any:
    """Kiwi's morphemes of `text`, with Kiwi's typo model ("환률" is read as "환율"). Kiwi's analysis methods are
    safe to call from several threads."""
    blocklist = _stock_price_blocklist() if "주가" in text else None
    return kiwi().tokenize(text, typos="basic", blocklist=blocklist)


def warm_up() -> None:
    """Load the Korean analyser and the equivalence tables now (off the request path, e.g. in a thread at
    start-up)."""
    _korean_tokens("준비 주가")  # the first call with the typo model finishes loading it (≈1 s): pay it here
    equivalents()


# --- analysis ------------------------------------------------------------------------------------------------
def _normalise(text: str) -> str:
    """NFKC, contractions spelt out, keyboard-noise jamo dropped; case is kept (acronyms: "US" ≠ "us")."""
    text = unicodedata.normalize("NFKC", text)
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return _LONE_JAMO.sub("", text)


@dataclass
class _Piece:
    start: int
    end: int
    form: str
    tag: str  # "number" | "word" | "acronym" | "symbol" for regex pieces, the Kiwi tag otherwise

    @property
    def function(self) -> bool:
        """A particle, ending, verbaliser, or an auxiliary/neutral morpheme (해 **줘**): no content."""
        if self.tag.startswith(KOREAN_FUNCTION_TAGS):
            return True
        if self.tag == "VX":
            return self.form not in KOREAN_NEGATION
        return self.tag in ("VV", "VA") and f"{self.form}/V" in NEUTRAL_KOREAN


def _pieces(text: str, hangul: bool) -> list[_Piece]:
    # All-caps typing ("WHAT IS THE GDP") is not a string of acronyms.
    # "WHO guidelines" is an acronym; "WHAT IS THE GDP" is shouting: two or more capitalised words, one of
    # them a neutral or question word.
    capitals = [w for w in re.findall(r"[A-Za-z]{2,}", text) if w.isupper()]
    shouting = len(capitals) >= 2 and any(w.casefold() in NEUTRAL_ENGLISH or w.casefold() in OPTIONAL_WORDS
                                          for w in capitals)
    pieces = []
    for m in _TOKEN.finditer(text):
        tag = m.lastgroup or "word"
        if tag == "numeronym":
            tag = "acronym"  # k8s, i18n: one word (name_variants.is_numeronym)
        elif tag == "word" and len(m.group()) > 1 and m.group().isupper() and not shouting:
            tag = "acronym"  # US, IT, CO: never a neutral word
        elif tag == "word" and m.group() == "May":
            tag = "acronym"  # the month, not the auxiliary: "May 2024 CPI" is not "2024 CPI"
        pieces.append(_Piece(m.start(), m.end(), m.group().casefold(), tag))
    if hangul:
        for token in _korean_tokens(text):
            tag = token.tag.split("-")[0]  # VV-I, VA-R: irregular conjugation classes
            if tag[0] in "NVMXJE":  # Korean morphemes; numbers, Latin words and symbols come from the regex
                pieces.append(_Piece(token.start, token.start + token.len, token.form, tag))
        pieces.sort(key=lambda p: (p.start, p.tag not in ("number", "word", "acronym", "symbol")))
    return pieces


def _words(text: str, pieces: list[_Piece]) -> tuple[Word, ...]:
    """Space-separated words, each cut before its trailing run of particles, endings and auxiliaries."""
    words = []
    for match in re.finditer(r"\S+", text):
        inside = [p for p in pieces if match.start() <= p.start < match.end()]
        cut = match.end()
        content_end = max((p.end for p in inside if not p.function), default=match.start())
        for piece in reversed(inside):
            if not piece.function:
                break
            cut = piece.start
        cut = max(cut, content_end)  # an ending fused into the stem's syllable (간 = 가 + ㄴ) keeps the stem
        stem = _NOT_IN_CONTENT_STRING.sub("", text[match.start():cut]).casefold()
        words.append(Word(match.start(), match.end(), stem))
    return tuple(words)


@lru_cache(maxsize=4096)
def request_terms(query: str) -> RequestTerms:
    """Content terms of `query` (cached: the cached side of a comparison recurs)."""
    text = _normalise(query)
    hangul = bool(_HANGUL.search(text))
    pieces = _pieces(text, hangul)
    plain = _split_date_nouns(_join_question_units(_terms(pieces)))
    return RequestTerms(tuple(_merge_phrases(text, plain)), _words(text, pieces) if hangul else (), hangul,
                        tuple(plain), text)


def _terms(pieces: list[_Piece]) -> list[Term]:
    """The query's terms before phrases are merged (module docstring, 1 and 2)."""
    terms: list[Term] = []
    last_end = -1  # end offset of the last term, to attach particles and suffixes only to adjacent terms
    pending_role: str | None = None  # an English preposition waits for its term
    prefix: _Piece | None = None  # a Korean prefix (XPN) waits for its noun

    def add(key: str, surface: str, kind: TermKind, piece: _Piece, optional: str | None = None) -> None:
        nonlocal last_end, pending_role
        terms.append(Term(key, surface, kind, pending_role, piece.start, optional, piece.end))
        pending_role = None
        last_end = piece.end

    # Letters written against digits are model names and codes (S24, A15, M3, 4o, Q2, 2020s): never neutral.
    numbers = [p for p in pieces if p.tag == "number"]
    coded = {id(p) for p in pieces if p.tag == "word"
             and any(n.end == p.start or n.start == p.end for n in numbers)}
    for piece in pieces:
        form, tag = piece.form, piece.tag
        if tag == "number":
            number = form.replace(",", "") if _THOUSANDS.match(form) else form
            add(number, number, "number", piece)
        elif tag == "symbol":
            add(form, form, "symbol", piece)
        elif tag == "acronym":
            add(form, form, "word", piece)
        elif tag == "word":
            if id(piece) in coded:
                add(form, form, "word", piece)
            elif form == "to" and terms and terms[-1].optional == "wh" and piece.start - terms[-1].end <= 1:
                pass  # "how to convert": an infinitive, not a goal
            elif form in ENGLISH_ROLES:
                pending_role = ENGLISH_ROLES[form]
            elif (form in HOW_ADJECTIVES and terms and terms[-1].key == "how" and terms[-1].optional
                  and piece.start - terms[-1].end <= 1):
                # "how tall", "how long": one question word that asks for a height, a duration
                terms[-1] = replace(terms[-1], key=f"how {form}", surface=f"how {form}", end=piece.end)
                last_end = piece.end
            elif form in OPTIONAL_WORDS:
                optional, key = OPTIONAL_WORDS[form]
                add(key, form, "word", piece, optional)
            elif form not in NEUTRAL_ENGLISH:
                add(singular(form), form, "word", piece)
        elif tag.startswith("J"):
            role = KOREAN_ROLES.get(form)
            if role and terms and piece.start == last_end and terms[-1].role is None:
                terms[-1] = replace(terms[-1], role=role)
        elif tag == "XPN":
            prefix = piece
        elif tag == "XSN" and form == "법" and terms and terms[-1].kind == "korean" and piece.start == last_end:
            add("how", form, "korean", piece, "wh")  # as the noun 법 written against a noun, below
        elif tag == "XSN":
            # A noun suffix changes the noun (성장 → 성장률, 경제 → 경제적), except the plural 들.
            if form != "들" and terms and terms[-1].kind == "korean" and piece.start == last_end:
                last = terms[-1]
                terms[-1] = replace(last, key=last.key + form, surface=last.surface + form, end=piece.end)
            if terms and piece.start == last_end:
                last_end = piece.end
        elif form in KOREAN_NEGATION and tag in ("MAG", "VX", "VCN"):
            add(KOREAN_NEGATION[form], form, "korean", piece)
        elif tag in KOREAN_TAG_CLASSES:
            tagged = f"{form}/{KOREAN_TAG_CLASSES[tag]}"
            if tagged in NEUTRAL_KOREAN:
                continue
            if tagged in OPTIONAL_WORDS:
                optional, key = OPTIONAL_WORDS[tagged]
                add(key, form, "korean", piece, optional)
                continue
            if (tag == "NNB" and form == "년" and terms and terms[-1].kind == "number"
                    and len(terms[-1].key) == 4 and piece.start == last_end):
                last_end = piece.end  # "2024년" = "2024": the year marker adds nothing to a 4-digit year
                continue
            if prefix is not None and prefix.end == piece.start:
                form = prefix.form + form
            prefix = None
            attached = bool(terms) and terms[-1].kind == "korean" and piece.start == last_end
            if form == "법" and (tag == "NNB" or attached):
                # 사는 법 = 계산법 = 사는 방법 = 어떻게 사는지; a law is one word (노동법, 형법)
                add("how", form, "korean", piece, "wh")
                continue
            if form == "일" and attached:
                add("날짜", form, "korean", piece)  # 출시일 = 출시 날짜
                continue
            add(form, form, "korean", piece)
    return terms


def _join_question_units(terms: list[Term]) -> list[Term]:
    """몇 + unit is one question word: "몇 명" asks for a head count, "몇 퍼센트" for a percentage."""
    out: list[Term] = []
    for term in terms:
        last = out[-1] if out else None
        if (last is not None and last.surface == "몇" and last.optional and term.kind in ("korean", "symbol")
                and term.surface in KOREAN_UNITS and term.start - last.end <= 1):
            out[-1] = replace(last, key=f"many {term.surface}", surface=f"몇 {term.surface}", end=term.end)
        else:
            out.append(term)
    return out


def _split_date_nouns(terms: list[Term]) -> list[Term]:
    """출시일 → 출시 + 일, as Kiwi segments it in most contexts (not 토요일, 공휴일, 기념일)."""
    out: list[Term] = []
    for term in terms:
        key = term.key
        if (term.kind == "korean" and term.optional is None and len(key) >= 3 and key.endswith("일")
                and not key.endswith(_WHOLE_DAY_NOUNS) and HANGUL_SYLLABLE.fullmatch(key[-2])):
            cut = term.start + len(key) - 1
            out.append(replace(term, key=key[:-1], surface=term.surface[:-1], end=cut, role=None))
            out.append(replace(term, key="날짜", surface="일", start=cut))  # 출시일 = 출시 날짜
        else:
            out.append(term)
    return out


# --- equivalent names ----------------------------------------------------------------------------------------
_DATA = Path(__file__).parent / "data"
#: Longest phrase (in terms) looked up as one name.
_MAX_PHRASE = 6


@dataclass(frozen=True)
class Equivalents:
    """Which phrases name the same thing: phrase → ids of the groups it belongs to.

    Args:
        latin: phrases without Hangul, as the tuple of their terms' compared forms.
        hangul: phrases with Hangul, as their terms' surfaces written together, case-folded.
        classes: group id → the ordered classes its members belong to (`data/ordered_terms.txt`).
    """

    latin: dict[tuple[str, ...], frozenset[str]]
    hangul: dict[str, frozenset[str]]
    classes: dict[str, frozenset[str]] = field(default_factory=dict)


def _latin_key(phrase: str) -> tuple[str, ...]:
    return tuple(t.key for t in _terms(_pieces(_normalise(phrase), hangul=False)))


def _hangul_key(phrase: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", phrase)).casefold()


@lru_cache(maxsize=1)
def equivalents() -> Equivalents:
    """The equivalence groups: `data/equivalents.txt` (abbreviations, Korean and English names, synonyms; all
    variants of a line are one group), the project's Korean–English tables (`common/text/data`: loanwords and
    glossary, one group per line, so each links one Korean word to one English word and nothing more), and
    `data/ordered_terms.txt` with the ordered class of each group (module docstring, 4)."""
    groups: list[list[str]] = []
    for line in (_DATA / "equivalents.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            groups.append([v.strip() for v in line.split("|") if v.strip()])
    glossary_start = len(groups)
    for name in ("loanwords_ko_en", "glossary_ko_en"):
        groups.extend([korean, english] for korean, english in _korean_english(name))
        if name == "loanwords_ko_en":
            glossary_start = len(groups)
    latin: dict[tuple[str, ...], set[str]] = {}
    hangul: dict[str, set[str]] = {}

    def keyed(variant: str) -> tuple[dict[Any, set[str]], Any]:
        if _HANGUL.search(variant):
            return hangul, _hangul_key(variant)
        key = _latin_key(variant)
        return latin, (key if len(key) <= _MAX_PHRASE else ())

    def add(group: list[str], gid: str) -> None:
        for variant in group:
            table, key = keyed(variant)
            if key:
                table.setdefault(key, set()).add(gid)

    for number, group in enumerate(groups):
        add(group, f"g{number}")
    # A variant of ordered_terms.txt classes the groups of equivalents.txt and the loanwords it belongs to
    # ("United States" classes "US" and "미국"), not the glossary's looser pairs (원 / circle). A line of one
    # variant that already has such a group only classes it; other lines are groups of their own as well.
    classes: dict[str, set[str]] = {}
    current = ""
    for line in (_DATA / "ordered_terms.txt").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if line.startswith("[") and line.endswith("]"):
            current = line[1:-1].strip()
            continue
        if not line or line.startswith("#") or not current:
            continue
        group = [v.strip() for v in line.split("|") if v.strip()]
        known: set[str] = set()
        for variant in group:
            table, key = keyed(variant)
            known.update(g for g in table.get(key, ()) if int(g[1:]) < glossary_start)
        if len(group) > 1 or not known:
            gid = f"g{len(groups)}"
            groups.append(group)
            add(group, gid)
            known.add(gid)
        for gid in known:
            classes.setdefault(gid, set()).add(current)
    return Equivalents({k: frozenset(v) for k, v in latin.items()}, {k: frozenset(v) for k, v in hangul.items()},
                       {k: frozenset(v) for k, v in classes.items()})


def _merge_phrases(text: str, terms: list[Term]) -> list[Term]:
    """Give each term the groups it belongs to; a run of terms that is one name becomes one term (longest
    first): "United States" and "미국 연방준비제도" are one term each. Korean runs are only joined across
    spaces ("주식 시세"), never across particles or other words."""
    table = equivalents()
    out: list[Term] = []
    i = 0
    while i < len(terms):
        for length in range(min(_MAX_PHRASE, len(terms) - i), 0, -1):
            run = terms[i:i + length]
            if any(t.kind == "korean" for t in run):
                if any(text[p.end:q.start].strip() for p, q in zip(run, run[1:], strict=False)):
                    continue
                concepts = table.hangul.get("".join(t.surface for t in run).casefold())
            else:
                concepts = table.latin.get(tuple(t.key for t in run))
            if concepts is None:
                continue
            if length == 1:
                out.append(replace(run[0], concepts=concepts))
            else:
                korean = any(t.kind == "korean" for t in run)
                role = run[-1].role if korean else next((t.role for t in run if t.role), None)
                joiner = "" if korean else " "
                out.append(Term(joiner.join(t.key for t in run), "".join(t.surface for t in run),
                                "korean" if korean else "word", role, run[0].start, None, run[-1].end, concepts))
            i += length
            break
        else:
            out.append(terms[i])
            i += 1
    return out


def _drop_one_sided_optional(a: RequestTerms, b: RequestTerms) -> tuple[RequestTerms, RequestTerms]:
    """Leave out optional words of a class that only one of the two queries uses."""
    one_sided = {t.optional for t in a.terms if t.optional} ^ {t.optional for t in b.terms if t.optional}
    if not one_sided:
        return a, b
    return (replace(a, terms=tuple(t for t in a.terms if t.optional not in one_sided)),
            replace(b, terms=tuple(t for t in b.terms if t.optional not in one_sided)))


# --- spelling variants ---------------------------------------------------------------------------------------
def _adjacent_keys(a: str, b: str) -> bool:
    pa, pb = _KEY_POS.get(a), _KEY_POS.get(b)
    return pa is not None and pb is not None and abs(pa[0] - pb[0]) <= 1 and abs(pa[1] - pb[1]) <= 1


def is_typo(a: str, b: str) -> bool:
    """True when two Latin words differ by one plausible keyboard slip.

    Both words at least five letters long; one adjacent transposition not involving the first letter, or one
    insertion, deletion or substitution by a neighbouring QWERTY key strictly inside the word. Keeping the
    ends fixed keeps apart names and words that differ only there (Jason/Mason, Julia/Julian, Korea/Korean).
    """
    if a == b or not (a.isalpha() and b.isalpha()) or min(len(a), len(b)) < 5 or abs(len(a) - len(b)) > 1:
        return False
    if frozenset((a, b)) in _REAL_WORD_PAIRS:
        return False
    if len(a) == len(b):
        diff = [i for i in range(len(a)) if a[i] != b[i]]
        if len(diff) == 1:
            i = diff[0]
            return 0 < i < len(a) - 1 and _adjacent_keys(a[i], b[i])
        if len(diff) == 2:
            i, j = diff
            return j == i + 1 and i > 0 and a[i] == b[j] and a[j] == b[i]
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1:] == short for i in range(1, len(long_) - 1))


def _jamo(text: str) -> tuple[str, list[int]]:
    """Text with Hangul syllables split into jamo, and for each jamo the index of its character."""
    out: list[str] = []
    owner: list[int] = []
    for i, ch in enumerate(text):
        parts = unicodedata.normalize("NFD", ch) if HANGUL_SYLLABLE.match(ch) else ch
        out.extend(parts)
        owner.extend([i] * len(parts))
    return "".join(out), owner


def _one_edit(a: str, b: str) -> int | None:
    """Index in the longer string (or in `a`) of the single insertion/deletion/substitution, else None."""
    if abs(len(a) - len(b)) > 1 or a == b:
        return None
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    if len(a) == len(b):
        return i if a[i + 1:] == b[i + 1:] else None
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return i if long_[i + 1:] == short[i:] else None


#: Plain and tense consonants (conjoining jamo, initial and final forms), often mistyped for each other.
_TENSE_PAIRS = frozenset(frozenset(pair) for pair in ("\u1100\u1101", "\u1103\u1104", "\u1107\u1108",
                                                       "\u1109\u110a", "\u110c\u110d", "\u11a8\u11a9",
                                                       "\u11ba\u11bb"))


def _korean_variant(a: RequestTerms, b: RequestTerms) -> bool:
    """Spacing or one-jamo typo variant, judged on the content words of both queries (module docstring, 3)."""
    def content(q: RequestTerms) -> tuple[str, list[tuple[int, Word]]]:
        chosen = [w for w in q.words if w.stem and any(t.start < w.end and w.start < max(t.end, t.start + 1)
                                                       for t in q.terms)]
        spans, pos = [], 0
        for w in chosen:
            spans.append((pos, w))
            pos += len(w.stem)
        return "".join(w.stem for w in chosen), spans

    text_a, spans_a = content(a)
    text_b, spans_b = content(b)
    if text_a == text_b:
        return True

    def word_at(char: int, spans: list[tuple[int, Word]]) -> tuple[int, int]:
        """(position of `char` in its word, the word's syllable count)"""
        offset, word = next((o, w) for o, w in reversed(spans) if o <= char)
        return char - offset, sum(1 for c in word.stem if HANGUL_SYLLABLE.match(c))

    if len(text_a) == len(text_b):
        diff = [i for i, (x, y) in enumerate(zip(text_a, text_b, strict=True)) if x != y]
        if (len(diff) == 2 and diff[1] == diff[0] + 1 and text_a[diff[0]] == text_b[diff[1]]
                and text_a[diff[1]] == text_b[diff[0]] and HANGUL_SYLLABLE.match(text_a[diff[0]])):
            position, length = word_at(diff[0], spans_a)
            return position >= 1 and length >= 4  # two syllables swapped inside a long word: 엔디비아
    jamo_a, owner_a = _jamo(text_a)
    jamo_b, owner_b = _jamo(text_b)
    at = _one_edit(jamo_a, jamo_b)
    if at is None:
        return False
    text, owner, spans = (text_b, owner_b, spans_b) if len(jamo_b) > len(jamo_a) else (text_a, owner_a, spans_a)
    if at >= len(owner) or not HANGUL_SYLLABLE.match(text[owner[at]]):
        return False
    position, length = word_at(owner[at], spans)
    if len(jamo_a) == len(jamo_b) and frozenset((jamo_a[at], jamo_b[at])) in _TENSE_PAIRS:
        return position >= 1  # 날씨 / 날시: a tense or plain consonant, after the word's first syllable
    # The edit is in a Hangul syllable, not among the first two syllables of a word of three or more.
    return length >= 3 and position >= 2


def _spacing_groups(left_a: list[Term], left_b: list[Term]) -> list[tuple[list[Term], list[Term]]] | None:
    """Pair leftovers where one side's single term is the other side's adjacent terms written together."""
    groups: list[tuple[list[Term], list[Term]]] = []
    i = j = 0
    while i < len(left_a) and j < len(left_b):
        ga, gb = [left_a[i]], [left_b[j]]
        i, j = i + 1, j + 1
        sa, sb = ga[0].surface, gb[0].surface
        while sa != sb:
            if len(sa) < len(sb) and len(gb) == 1 and i < len(left_a) and sb.startswith(sa):
                ga.append(left_a[i])
                sa += left_a[i].surface
                i += 1
            elif len(sb) < len(sa) and len(ga) == 1 and j < len(left_b) and sa.startswith(sb):
                gb.append(left_b[j])
                sb += left_b[j].surface
                j += 1
            else:
                return None
        if len(ga) == 1 and len(gb) == 1:
            return None  # equal surfaces would have matched already; a lone pair is a substitution
        if any(t.start - p.start > len(p.surface) + 1 for g in (ga, gb) for p, t in zip(g, g[1:], strict=False)):
            return None  # only terms written next to each other can be one word spaced apart
        groups.append((ga, gb))
    return groups if i == len(left_a) and j == len(left_b) else None


# --- comparison ----------------------------------------------------------------------------------------------
@dataclass
class _Slot:
    """A matched unit: one term, or a spacing group collapsed to one; in text order on each side."""

    key: str
    kind: TermKind
    role: str | None
    start: int
    optional: bool = False
    end: int = 0
    classes: frozenset[str] = frozenset()
    concepts: frozenset[str] = frozenset()


def _slot(t: Term, key: str | None = None) -> _Slot:
    return _Slot(key or t.key, t.kind, t.role, t.start, bool(t.optional), max(t.end, t.start + len(t.surface)),
                 _classes(t), t.concepts)


def _classes(term: Term) -> frozenset[str]:
    """The ordered classes of a term (`data/ordered_terms.txt`); a Korean name of a station, airport or
    terminal ("판교역", "김포공항") is a place."""
    table = equivalents()
    concepts = term.concepts or (table.hangul.get(term.surface) if term.kind == "korean"
                                 else table.latin.get((term.key,))) or frozenset()
    out = frozenset().union(*(table.classes.get(gid, frozenset()) for gid in concepts))
    if not out and term.kind == "korean" and (
            (len(term.key) >= 3 and term.key.endswith("역") and not term.key.endswith(_NOT_STATIONS))
            or (len(term.key) >= 3 and term.key.endswith("공항"))
            or (len(term.key) >= 4 and term.key.endswith(("터미널", "정류장")))):
        out = frozenset({"place"})
    return out


def _bases(term: Term, passive: bool) -> tuple[str, ...]:
    """The verb an -ed word can be in a passive or past question ("when was it released" → release)."""
    key = term.key
    if not passive or term.kind != "word" or len(key) < 5 or not key.endswith("ed"):
        return ()
    bases = [key[:-2], key[:-1]]
    if key[-3] == key[-4]:
        bases.append(key[:-3])  # stopped → stop
    return tuple(bases)


def _same_inflection(a: Term, b: Term, passive_a: bool, passive_b: bool) -> bool:
    """"Samsung founding year" / "when was Samsung founded", "release date" / "when is it released": an -ed
    word in a passive or past question (`passive_*`: the query has "is/was/were") for the verb's -ing form or
    the verb itself. Not otherwise: "parking" is not "park", "interesting" is not "interested"."""
    if a.key.endswith("ed") and passive_a and not (b.key.endswith("ed") and passive_b):
        a, b, passive_b = b, a, passive_a
    bases = _bases(b, passive_b)
    if not bases:
        return False
    return a.key in bases or (a.key.endswith("ing") and len(a.key) >= 6 and a.key[:-3] in bases)


def _concepts(term: Term, passive: bool) -> frozenset[str]:
    """The term's equivalence groups, and for an -ed word in a passive question those of its verb."""
    bases = _bases(term, passive)
    if not bases:
        return term.concepts
    table = equivalents()
    return term.concepts.union(*(table.latin.get((base,), frozenset()) for base in bases))


@lru_cache(maxsize=1)
def _symmetric_groups() -> frozenset[str]:
    """The equivalence groups of "difference" / "vs" / 비교: comparing two things names them in either order."""
    table = equivalents()
    return frozenset().union(*(table.latin.get((word,), frozenset()) for word in ("difference", "vs", "compare")))


def _answers(question: str, term: Term) -> bool:
    """Whether `term` names what the question word `question` asks for (`ANSWER_WORDS`)."""
    words = ANSWER_WORDS.get(question)
    if not words:
        return False
    if term.key in words or term.surface in words:
        return True
    table = equivalents()
    return any(term.concepts & (table.latin.get((w,)) or table.hangul.get(w) or frozenset()) for w in words)


def _absorb(left: list[Term], questions: list[str]) -> None:
    """Drop leftover terms that name what a question word of the other query asks for (one term per word)."""
    for term in list(left):
        question = next((q for q in questions if _answers(q, term)), None)
        if question is not None:
            left.remove(term)
            questions.remove(question)


def _align(a: RequestTerms, b: RequestTerms, questions_a: tuple[str, ...] = (), questions_b: tuple[str, ...] = (),
           passive: tuple[bool, bool] = (False, False)) -> tuple[list[_Slot], list[_Slot]] | MatchResult:
    """Match the two term lists; returns the matched slots of each side, or why they differ.

    `questions_a` / `questions_b`: question words found only in `a` / only in `b` (already left out), whose
    answer noun may stand in the other query ("when" / "date").
    """
    slots_a: list[_Slot] = []
    slots_b: list[_Slot] = []
    left_a: list[Term] = []
    left_b: list[Term] = []
    for mine, theirs, slots, left in ((a, b, slots_a, left_a), (b, a, slots_b, left_b)):
        counts = Counter(t.key for t in theirs.terms)
        for t in mine.terms:
            if counts[t.key] > 0:
                counts[t.key] -= 1
                slots.append(_slot(t))
            else:
                left.append(t)
    for ta in list(left_a):  # equivalent names: "US" / "United States", "주가" / "stock price"
        concepts_a = _concepts(ta, passive[0])
        tb = next((t for t in left_b if concepts_a & _concepts(t, passive[1])), None)
        if tb is not None:
            left_a.remove(ta)
            left_b.remove(tb)
            key = "≡" + min(concepts_a & _concepts(tb, passive[1]))
            slots_a.append(_slot(ta, key))
            slots_b.append(_slot(tb, key))
    for ta in list(left_a):  # typos and -ing/-ed forms: one Latin word for one Latin word
        tb = next((t for t in left_b if t.kind == ta.kind == "word" and (
            is_typo(ta.surface, t.surface) or _same_inflection(ta, t, *passive))), None)
        if tb is not None:
            left_a.remove(ta)
            left_b.remove(tb)
            slots_a.append(_slot(ta))
            slots_b.append(_slot(tb, ta.key))
    _match_variants(a, b, left_a, left_b, slots_a, slots_b)
    _absorb(left_a, list(questions_b))
    _absorb(left_b, list(questions_a))
    if left_a or left_b:
        groups = _spacing_groups(left_a, left_b) if left_a and left_b else None
        if groups is not None:
            for ga, gb in groups:
                key = "".join(t.surface for t in ga)
                classes = _classes(Term(key, key, ga[0].kind))  # "부산역" / "부산 역": a station
                slots_a.append(replace(_slot(ga[0], key), role=ga[-1].role, end=ga[-1].end, classes=classes))
                slots_b.append(replace(_slot(gb[0], key), role=gb[-1].role, end=gb[-1].end, classes=classes))
        elif all(t.kind == "korean" for t in left_a + left_b) and _korean_variant(a, b):
            pass  # Kiwi split a misspelt or oddly spaced Korean word differently: the words agree
        else:
            only_a = ", ".join(t.surface for t in left_a) or "-"
            only_b = ", ".join(t.surface for t in left_b) or "-"
            return MatchResult(False, f"different content: {only_a} / {only_b}")
    slots_a.sort(key=lambda s: s.start)
    slots_b.sort(key=lambda s: s.start)
    return slots_a, slots_b


def _runs(left: list[Term], text: str, korean: bool) -> list[list[Term]]:
    """Runs of two or more leftover terms written next to each other: Korean terms separated only by spaces,
    Latin words by spaces and neutral words ("return on investment")."""
    runs = []
    for i in range(len(left)):
        for j in range(i + 2, min(len(left), i + _MAX_PHRASE) + 1):
            run = left[i:j]
            if any(t.kind != ("korean" if korean else "word") for t in run):
                break
            gaps = [text[p.end:q.start] for p, q in zip(run, run[1:], strict=False)]
            if korean and any(g.strip() for g in gaps):
                break
            if not korean and any(w.casefold() not in NEUTRAL_ENGLISH for g in gaps for w in re.findall(r"\S+", g)):
                break
            runs.append(run)
    return runs


def _span_words(run: list[Term], text: str) -> list[str]:
    """Every word of the text a run of Latin terms covers, function words included, case-folded."""
    return [w.casefold() for w in re.findall(r"[A-Za-z]+", text[run[0].start:run[-1].end])]


def _variant_of_run(short: Term, run: list[Term], text: str) -> bool:
    """`short` is an abbreviation of the run of terms `run` (`name_variants`)."""
    if short.kind == "korean":
        return name_variants.is_syllable_abbreviation(short.surface, "".join(t.surface for t in run))
    return short.kind == "word" and name_variants.is_initialism(short.surface, _span_words(run, text))


def _variant_of_term(x: Term, y: Term) -> bool:
    """One term written two ways: an abbreviation, a transliteration, letter names, or a loanword and a
    native Korean word with the same English rendering."""
    if x.kind == "korean" and y.kind == "word":
        x, y = y, x
    if x.kind == "word" and y.kind == "word":
        return any(rule(p.surface, q.surface) for p, q in ((x, y), (y, x))
                   for rule in (name_variants.is_consonant_abbreviation, name_variants.is_numeronym))
    if x.kind == "word" and y.kind == "korean":
        return (name_variants.is_transliteration(x.surface, y.surface)
                or name_variants.is_letter_names(x.surface, y.surface))
    if x.kind == y.kind == "korean":
        return (name_variants.is_syllable_abbreviation(x.surface, y.surface)
                or name_variants.is_syllable_abbreviation(y.surface, x.surface)
                or _same_gloss(x, y))
    return False


def _same_gloss(x: Term, y: Term) -> bool:
    """A loanword and a native Korean word the tables render by the same English word ("리스트" / "목록",
    "에러" / "오류"). Two native words sharing a gloss are not enough: "사장" and "회장" are both "president"."""
    loan, native = _english_glosses("loanwords_ko_en"), _english_glosses("glossary_ko_en")

    def of(table: dict[str, frozenset[tuple[str, ...]]], t: Term) -> frozenset[tuple[str, ...]]:
        return table.get(t.surface, frozenset()) | table.get(t.key, frozenset())

    return bool(of(loan, x) & of(native, y)) or bool(of(loan, y) & of(native, x))


@lru_cache(maxsize=2)
def _english_glosses(name: str) -> dict[str, frozenset[tuple[str, ...]]]:
    """Korean word → the English words one of the project's Korean–English tables gives it."""
    out: dict[str, set[tuple[str, ...]]] = {}
    for korean, english in _korean_english(name):
        key = tuple(singular(w) for w in re.findall(r"[a-z0-9]+", english.casefold()))
        if key:
            out.setdefault(_hangul_key(korean), set()).add(key)
    return {k: frozenset(v) for k, v in out.items()}


def _korean_english(table: str) -> list[tuple[str, str]]:
    """The (Korean, English) lines of one of the project's Korean–English tables (`KOREAN_ENGLISH_TABLES` of
    `ai_llm.common.text.analysis`) with Hangul on the left only."""
    return [(korean, english) for korean, english in korean_english_pairs(table)
            if korean and english and "\t" not in english and _HANGUL.search(korean) and not _HANGUL.search(english)]


def _match_variants(a: RequestTerms, b: RequestTerms, left_a: list[Term], left_b: list[Term],
                    slots_a: list[_Slot], slots_b: list[_Slot]) -> None:
    """Pair leftovers that are one name written two ways (`name_variants`): a term and a term, a term and a
    run of adjacent terms ("ROI" / "return on investment", "대선" / "대통령 선거"), or a Latin word and the
    Korean word it is transliterated as, however Kiwi segmented that word ("도커")."""
    while left_a and left_b:
        found = _variant_pair(left_a, a, left_b, b)
        if found is not None:
            from_a, from_b = found
        else:
            found = _variant_pair(left_b, b, left_a, a)
            if found is None:
                return
            from_b, from_a = found
        key = "~" + "".join(t.surface for t in found[0])
        for left, terms, slots in ((left_a, from_a, slots_a), (left_b, from_b, slots_b)):
            for t in terms:
                left.remove(t)
            slots.append(replace(_slot(terms[0], key), role=terms[-1].role, end=terms[-1].end))


def _variant_pair(mine: list[Term], mine_q: RequestTerms, theirs: list[Term],
                  theirs_q: RequestTerms) -> tuple[list[Term], list[Term]] | None:
    """The first leftover of `mine` that is a variant of leftovers of `theirs`, with them (see
    `_match_variants`), or None."""
    their_runs = [r for korean in (True, False) for r in _runs(theirs, theirs_q.text, korean)]
    # A short form Kiwi split into syllables ("삼전" → 삼 + 전): a run of mine written as one word.
    my_words = [r for r in _runs(mine, mine_q.text, True)
                if all(p.end == q.start for p, q in zip(r, r[1:], strict=False))]
    for x in mine:
        y = next((t for t in theirs if _variant_of_term(x, t)), None)
        if y is not None:
            return [x], [y]
        run = next((r for r in their_runs if _variant_of_run(x, r, theirs_q.text)), None)
        if run is not None:
            return [x], run
        short = next((r for r in my_words if r[0] is x), None)
        if short is not None:
            text = "".join(t.surface for t in short)
            run = next((r for r in [[t] for t in theirs] + [r for r in their_runs if r[0].kind == "korean"]
                        if name_variants.is_syllable_abbreviation(text, "".join(t.surface for t in r))), None)
            if run is not None:
                return short, run
        if x.kind == "word":  # a transliterated word Kiwi split: the space-separated word holds it
            for word in theirs_q.words:
                inside = [t for t in theirs if t.kind == "korean" and word.start <= t.start < word.end]
                if inside and name_variants.is_transliteration(x.surface, word.stem):
                    return [x], inside
    return None


def _roles_conflict(slots_a: list[_Slot], slots_b: list[_Slot]) -> str | None:
    roles_a: dict[str, set[str]] = {}
    roles_b: dict[str, set[str]] = {}
    by_role_a: dict[str, set[str]] = {}
    by_role_b: dict[str, set[str]] = {}
    for slots, roles, by_role in ((slots_a, roles_a, by_role_a), (slots_b, roles_b, by_role_b)):
        for s in slots:
            if s.role:
                roles.setdefault(s.key, set()).add(s.role)
                by_role.setdefault(s.role, set()).add(s.key)
    for key in roles_a.keys() & roles_b.keys():
        if roles_a[key] != roles_b[key]:
            return f"{key!r} has role {'/'.join(sorted(roles_a[key]))} vs {'/'.join(sorted(roles_b[key]))}"
    for role in by_role_a.keys() | by_role_b.keys():
        keys_a, keys_b = by_role_a.get(role, set()), by_role_b.get(role, set())
        if keys_a != keys_b and ((keys_a and keys_b) or role in STRICT_ROLES):
            return f"{role} differs: {', '.join(sorted(keys_a)) or '-'} / {', '.join(sorted(keys_b)) or '-'}"
    return None


def _swapped_around_verb(slots_a: list[_Slot], slots_b: list[_Slot]) -> str | None:
    """English marks subject and object by order: terms may not cross a shared verb in both directions."""
    keys_a = [s.key for s in slots_a if not s.optional]
    keys_b = [s.key for s in slots_b if not s.optional]
    for verb in set(keys_a) & set(keys_b):
        if verb not in RELATION_VERBS and not (verb.endswith("ed") and len(verb) >= 5):
            continue
        ia, ib = keys_a.index(verb), keys_b.index(verb)
        before_a, after_a = set(keys_a[:ia]), set(keys_a[ia + 1:])
        before_b, after_b = set(keys_b[:ib]), set(keys_b[ib + 1:])
        if (before_a & after_b) and (after_a & before_b):
            return f"subject and object swapped around {verb!r}"
    return None


def _number_units(slots: list[_Slot], text: str) -> list[str | None]:
    """For each number, in order, the unit or currency it counts: the next term when only spaces separate
    them ("5 온스", "100kg"), else a term written against it before ("$100"); None when neither."""
    units: list[str | None] = []
    for i, slot in enumerate(slots):
        if slot.kind != "number":
            continue
        after = slots[i + 1] if i + 1 < len(slots) else None
        before = slots[i - 1] if i else None
        if after is not None and after.classes & _MEASURES and not text[slot.end:after.start].strip():
            units.append(after.key)
        elif before is not None and before.classes & _MEASURES and before.end == slot.start:
            units.append(before.key)
        else:
            units.append(None)
    return units


def _direction(x: _Slot, y: _Slot, cls: str, counted: set[str], text: str) -> tuple[str, str, bool]:
    """Which of two same-class terms comes first in the request (source → goal): from their case markers,
    else the one a number counts, else their order. The flag tells that order decided and that the two are
    only coordinated ("서울과 부산", "Seoul and Busan"), which makes their order free."""
    goal = {"goal"} if cls == "place" else {"goal", "in"}
    if x.role == "source" or y.role in goal:
        return x.key, y.key, False
    if y.role == "source" or x.role in goal:
        return y.key, x.key, False
    if (x.key in counted) != (y.key in counted):
        return (x.key, y.key, False) if x.key in counted else (y.key, x.key, False)
    first, second = (x, y) if x.start <= y.start else (y, x)
    return first.key, second.key, bool(_COORDINATION.fullmatch(text[first.end:second.start]))


def _order_conflict(slots_a: list[_Slot], slots_b: list[_Slot], text_a: str, text_b: str) -> str | None:
    """Module docstring, 4: a number counts the same unit on both sides, and two terms of one ordered class
    (places, currencies, units, scales, languages, file formats) keep their direction."""
    units_a, units_b = _number_units(slots_a, text_a), _number_units(slots_b, text_b)
    for number, unit_a, unit_b in zip([s.key for s in slots_a if s.kind == "number"], units_a, units_b,
                                      strict=False):
        if unit_a and unit_b and unit_a != unit_b:
            return f"{_ORDER_DIFFERS}{number} counts {unit_a!r} vs {unit_b!r}"
    if any(s.key in _SYMMETRIC or s.concepts & _symmetric_groups() for s in slots_a + slots_b):
        return None  # "서울 부산 거리", "Celsius Fahrenheit difference": either order asks the same
    first_a: dict[str, _Slot] = {}
    first_b: dict[str, _Slot] = {}
    for slots, first in ((slots_a, first_a), (slots_b, first_b)):
        for s in slots:
            if s.classes and not s.optional:
                first.setdefault(s.key, s)
    shared = [k for k in first_a if k in first_b]
    counted_a = {u for u in units_a if u}
    counted_b = {u for u in units_b if u}
    for i, x in enumerate(shared):
        for y in shared[i + 1:]:
            classes = ((first_a[x].classes | first_b[x].classes) & (first_a[y].classes | first_b[y].classes))
            for cls in sorted(classes):
                *dir_a, free_a = _direction(first_a[x], first_a[y], cls, counted_a, text_a)
                *dir_b, free_b = _direction(first_b[x], first_b[y], cls, counted_b, text_b)
                if dir_a != dir_b and not (free_a and free_b):
                    return f"{_ORDER_DIFFERS}{cls} {' → '.join(dir_a)} / {' → '.join(dir_b)}"
    return None


def compare(cached: str, asked: str) -> MatchResult:
    """Whether the answer cached for `cached` answers `asked` (see the module docstring for the rules)."""
    full_a, full_b = request_terms(cached), request_terms(asked)
    result = _compare(full_a, full_b)
    if (result.same or (full_a.terms == full_a.plain and full_b.terms == full_b.plain)
            or result.reason.startswith(_ORDER_DIFFERS)):
        return result  # the names' classes decided: unmerged, a name of several words has none
    # A phrase merged on one side can hide a typo or spacing variant ("exhange rate" / "exchange rate"):
    # compare the unmerged terms too.
    plain = _compare(replace(full_a, terms=full_a.plain), replace(full_b, terms=full_b.plain))
    return plain if plain.same else result


def _compare(full_a: RequestTerms, full_b: RequestTerms) -> MatchResult:
    a, b = _drop_one_sided_optional(full_a, full_b)
    if not a.terms or not b.terms:  # nothing to compare: never assume two content-free queries agree
        return MatchResult(False, "a query without content terms")
    wh_a = [t.key for t in full_a.terms if t.optional == "wh"]
    wh_b = [t.key for t in full_b.terms if t.optional == "wh"]
    passive = (any(t.optional == "tense" for t in full_a.terms), any(t.optional == "tense" for t in full_b.terms))
    aligned = _align(a, b, tuple(q for q in wh_a if not wh_b), tuple(q for q in wh_b if not wh_a), passive)
    if isinstance(aligned, MatchResult):
        return aligned
    slots_a, slots_b = aligned
    numbers_a = [s.key for s in slots_a if s.kind == "number"]
    numbers_b = [s.key for s in slots_b if s.kind == "number"]
    if numbers_a != numbers_b:
        return MatchResult(False, f"numbers differ or in another order: {' '.join(numbers_a)} / {' '.join(numbers_b)}")
    conflict = _roles_conflict(slots_a, slots_b)
    if conflict is None and not (a.hangul or b.hangul):
        conflict = _swapped_around_verb(slots_a, slots_b)
    if conflict is None:
        conflict = _order_conflict(slots_a, slots_b, a.text, b.text)
    return MatchResult(conflict is None, conflict or "")


def same_request(cached: str, asked: str) -> bool:
    """True when the results cached for `cached` may be served for `asked`."""
    return compare(cached, asked).same
