"""Generic ways one name is written two ways, for the semantic cache's same-request check (`query_match`).

The equivalence tables know the names someone listed; these rules know how short forms and transliterations
are *made*, so they hold for names nobody listed:

* **Acronyms from initials**: "ROI" / "return on investment", "EOL" / "end of life" (every word of the run,
  function words included, gives its first letter).
* **Latin consonant abbreviations**: "tmrw" / "tomorrow", "govt" / "government", "TSLA" / "Tesla": the short
  form has four or more letters ("CSS" / "class" stay apart), keeps the first letter, has at most one vowel,
  is not a prefix of the long form ("macb" / "macbook" and "java" / "javascript" stay apart) and is a
  subsequence of it.
* **Numeronyms**: "k8s" / "kubernetes", "i18n" / "internationalization".
* **Korean syllable abbreviations**: "시총" / "시가총액", "건보료" / "건강보험료", "스벅" / "스타벅스",
  "대선" / "대통령 선거": the short form keeps the first syllable, is a subsequence of the long form's syllables
  but takes one syllable of each part: its second syllable is not the long form's ("서울대" / "서울대병원",
  "퇴직금" / "퇴직연금" and "강남역" / "강남구청역" stay apart).
* **Letter names**: "LG" / "엘지", "KT" / "케이티", "SK" / "에스케이".
* **Hangul transliterations of Latin words**: "Ubuntu" / "우분투", "React" / "리액트", "Tesla" / "테슬라":
  both are reduced to a skeleton of consonant sounds (Korean read as it is pronounced, English with its usual
  Korean renderings: a final or pre-consonant "r" is silent, "f/v" → ㅍ/ㅂ, "z/j/ch" → ㅈ/ㅊ, "th/sh" → ㅅ) and
  the skeletons must be equal, with at least three consonants, or two for a word of four or more letters
  written in two or more syllables ("Docker" / "도커"), so short words never match by accident.

Every rule compares two spellings of *one* slot of the request; the rest of the check (other terms, numbers,
roles, order) still has to agree.
"""

from __future__ import annotations

import re

from ai_llm.common.text import HANGUL_SYLLABLE

_VOWELS = frozenset("aeiou")

# --- Latin short forms ---------------------------------------------------------------------------------------


def is_initialism(short: str, words: list[str]) -> bool:
    """"roi" and ["return", "on", "investment"]: the short form is the initials of two or more words."""
    return (len(words) >= 2 and len(short) == len(words) and short.isalpha()
            and all(w[:1] == c for w, c in zip(words, short, strict=True)))


def is_consonant_abbreviation(short: str, long_: str) -> bool:
    """"tmrw" / "tomorrow", "govt" / "government", "tsla" / "tesla" (see the module docstring)."""
    if not (short.isalpha() and long_.isalpha()) or len(short) < 4 or len(long_) <= len(short):
        return False
    if short[0] != long_[0] or long_.startswith(short) or sum(c in _VOWELS for c in short[1:]) > 1:
        return False
    rest = iter(long_[1:])
    return all(c in rest for c in short[1:])


def is_numeronym(short: str, long_: str) -> bool:
    """"k8s" / "kubernetes", "i18n" / "internationalization": first letter, the count of letters left out,
    last letter."""
    m = re.fullmatch(r"([a-z])(\d+)([a-z])", short)
    return (m is not None and long_.isalpha() and len(long_) == int(m[2]) + 2 and long_[0] == m[1]
            and long_[-1] == m[3])


# --- Korean short forms --------------------------------------------------------------------------------------


def is_syllable_abbreviation(short: str, long_: str) -> bool:
    """"시총" / "시가총액", "스벅" / "스타벅스" (see the module docstring)."""
    if not (HANGUL_SYLLABLE.fullmatch(short[:1] or " ") and all(HANGUL_SYLLABLE.match(c) for c in short + long_)):
        return False
    # The short form takes one syllable of each part: its second syllable is not the long form's second
    # ("강남역" is not short for "강남구청역", nor "퇴직금" for "퇴직연금").
    if len(short) < 2 or len(long_) <= len(short) or short[0] != long_[0] or short[1] == long_[1]:
        return False
    rest = iter(long_[1:])
    return all(c in rest for c in short[1:])


# --- letter names --------------------------------------------------------------------------------------------
_LETTER_NAMES = {
    "a": ("에이",), "b": ("비",), "c": ("씨", "시"), "d": ("디",), "e": ("이",), "f": ("에프",), "g": ("지", "쥐"),
    "h": ("에이치", "에치"), "i": ("아이",), "j": ("제이",), "k": ("케이",), "l": ("엘",), "m": ("엠",),
    "n": ("엔",), "o": ("오",), "p": ("피",), "q": ("큐",), "r": ("알", "아르"), "s": ("에스",), "t": ("티",),
    "u": ("유",), "v": ("브이", "비"), "w": ("더블유", "더블류"), "x": ("엑스",), "y": ("와이",), "z": ("제트", "지"),
}


def is_letter_names(acronym: str, hangul: str) -> bool:
    """"lg" / "엘지": the Hangul spells the acronym's letters by their names."""
    if not (2 <= len(acronym) <= 5 and acronym.isascii() and acronym.isalpha()):
        return False
    pattern = "".join("(?:" + "|".join(_LETTER_NAMES[c]) + ")" for c in acronym.lower())
    return re.fullmatch(pattern, hangul) is not None


# --- transliteration -----------------------------------------------------------------------------------------
_INITIALS = ["k", "k", "n", "t", "t", "l", "m", "p", "p", "s", "s", "", "j", "j", "j", "k", "t", "p", ""]
# Final consonants as heard in loanwords (넷 = "net", 맥 = "mac", 팟 = "pod").
_FINALS = ["", "k", "k", "k", "n", "n", "n", "t", "l", "k", "m", "p", "l", "l", "p", "l", "m", "p", "p", "t", "t",
           "ng", "t", "t", "k", "t", "p", "t"]


def hangul_skeleton(text: str) -> str:
    """The consonant sounds of a Hangul word: "우분투" → "pnt", "리액트" → "lkt"."""
    out = []
    for ch in text:
        code = ord(ch) - 0xAC00
        if not 0 <= code < 11172:
            return ""
        out.append(_INITIALS[code // 588] + _FINALS[code % 28])
    return _collapse("".join(out).replace("ng", "N"))


_ENGLISH_RULES = [
    (re.compile(r"ph"), "p"), (re.compile(r"th|sh"), "s"), (re.compile(r"ch|tch"), "j"), (re.compile(r"ck|q"), "k"),
    (re.compile(r"x"), "ks"), (re.compile(r"c(?=[eiy])"), "s"), (re.compile(r"c"), "k"), (re.compile(r"ng"), "N"),
    (re.compile(r"(?<=[aeiou])r(?![aeiouy])"), ""),  # non-rhotic: "docker" → 도커, "starbucks" → 스타벅스
    (re.compile(r"[fv]"), "p"), (re.compile(r"b"), "p"), (re.compile(r"d"), "t"), (re.compile(r"g"), "k"),
    (re.compile(r"z"), "j"), (re.compile(r"r"), "l"), (re.compile(r"[aeiouwyh]"), ""),
]


def latin_skeleton(word: str) -> str:
    """The consonant sounds of an English word as Korean renders them: "ubuntu" → "pnt", "react" → "lkt"."""
    text = word.lower()
    if not text.isascii() or not text.isalpha():
        return ""
    for pattern, replacement in _ENGLISH_RULES:
        text = pattern.sub(replacement, text)
    return _collapse(text)


def _collapse(skeleton: str) -> str:
    """Voicing is not written consistently across the two scripts: ㄱ/ㅋ, ㄷ/ㅌ, ㅂ/ㅍ are one class each."""
    skeleton = skeleton.replace("g", "k").replace("d", "t").replace("b", "p").replace("h", "")
    return re.sub(r"(.)\1+", r"\1", skeleton)


def is_transliteration(latin: str, hangul: str) -> bool:
    """"ubuntu" / "우분투", "tesla" / "테슬라": equal consonant skeletons (see the module docstring)."""
    if not hangul or not all(HANGUL_SYLLABLE.match(c) for c in hangul):
        return False
    skeleton = latin_skeleton(latin)
    if len(skeleton) < 3 and not (len(skeleton) == 2 and len(latin) >= 4 and len(hangul) >= 2):
        return False
    return skeleton == hangul_skeleton(hangul)

