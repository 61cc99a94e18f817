"""Same-request check of the semantic cache: may the answer cached for one query serve another?

Embedding cosine measures topic, not request: all-MiniLM-L6-v2 puts "Korea GDP growth rate 2023" and
"… 2024" at 0.976, above any useful threshold. So a semantic hit also needs `same_request(cached, asked)`:
the two texts must carry the same *request content*, whatever their cosine.

How the two texts are compared:

1. **Content terms.** Each query becomes a sequence of terms. Latin-script words are case-folded and
   reduced to a singular form; numbers are kept whole (``3.12``, ``1,000`` → ``1000``); meaningful symbols
   (``% $ € £ ¥ ₩ ° + #``) are terms. Korean goes through the Kiwi morphological analyser: nouns
   (NNG/NNP/NNB/NR/NP), roots (XR), verb/adjective stems (VV/VA), adverbs and determiners (MAG/MM) are terms;
   particles, endings and verbalising suffixes are not, so "서울의 날씨는?" and "서울 날씨" have the same
   terms. Prefixes and noun suffixes stay on their noun (비+흡연자, 성장+률): they change what is asked.
2. **Neutral words** carry no request content and are dropped: request phrasing ("please tell me", "could
   you explain", "알려줘", "좀", "검색해 줘", "감사합니다"), articles, auxiliaries, pronouns. Question words
   (what, how, who, when, where, 뭐, 어떻게, 언제, 누구, 얼마, 몇) and the tense of "to be" may be left out on
   one side ("who is the CEO of Apple" = "Apple CEO") but must agree when both sides have one ("what to
   eat" ≠ "where to eat", "어떻게 신청" ≠ "언제 신청"). Negation (not, no, never, without, 안, 못, 않,
   아니, 없) is never neutral, nor are acronyms ("US") or letters written against digits ("S24", "4o").
3. **Same terms.** After equal terms are matched, every leftover term rules the hit out: a content word
   present on one side only, or substituted by another, means another request. The only leftovers forgiven
   are spelling variants:

   * a typo in a Latin word of five or more letters: one adjacent transposition, or one insertion, deletion
     or substitution by a neighbouring QWERTY key inside the word ("goverment", "weahter");
   * a spacing variant: one side's term is adjacent terms of the other written together ("iphone15");
   * for Korean, where a typo or unusual spacing makes Kiwi segment differently, the query's content
     words (its space-separated words that hold a content term, trailing particles and endings cut off)
     are compared as one string without spaces: equal means a spacing variant ("청년 도약 계좌" /
     "청년도약계좌"); one jamo apart, in the third or a later syllable of a word of three or more syllables,
     means a typo ("최저임굼", "카카오뱅그"), while "양주시" / "영주시" or "안양시" / "안산시" stay apart.

   Numbers are never fuzzy. Synonyms and abbreviations ("cost" / "price", "NYC") are not matched: a miss
   costs one provider call, a wrong hit serves another question's results.
4. **Same structure.** Numbers must come in the same order ("3/1" is not "1/3"). Case roles must agree:
   Korean particles (에서/부터 source, 까지/로/에게 goal, 에 location, 의 possessor, 보다 comparison,
   이/가 subject, 을/를 object) and English prepositions (from, to/into, in, than, by) mark the term they
   attach to, so "서울에서 부산까지" / "부산에서 서울까지", "USD to KRW" / "KRW to USD", "100 USD in KRW" /
   "100 KRW in USD", "애플이 인수한" / "애플을 인수한" differ. A role present on one side only is tolerated
   ("서울 부산 KTX" asks what "서울에서 부산 KTX" asks) unless the other side gives that role to another
   term ("by" must be on both sides). English keyword order is free ("2025 Korea minimum wage"), but terms
   may not swap sides around a verb ("Apple acquired Beats" ≠ "Beats acquired Apple").

It is cheap: a regex pass, one Kiwi call for text with Hangul (≈0.1–0.3 ms), and an LRU cache of analysed
queries. Kiwi is loaded once per process, lazily (≈1 s, ≈300 MB); `warm_up()` loads it ahead of time.
"""

from __future__ import annotations

import re
import threading
import unicodedata
from collections import Counter
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any, Literal

TermKind = Literal["word", "number", "symbol", "korean"]

_HANGUL_CHARS = "\uac00-\ud7a3\u3131-\u318e\u1100-\u11ff"
_HANGUL = re.compile(f"[{_HANGUL_CHARS}]")
_SYLLABLE = re.compile("[\uac00-\ud7a3]")
# ㅋㅋ, ㅠㅠ, a stray ㅣ: keyboard noise, never a word (NFKC turns them into conjoining jamo)
_LONE_JAMO = re.compile("[\u1100-\u11ff\u3131-\u318e]+")
# Latin/other-script words without digits or Hangul, numbers with decimal/thousands separators, and the
# symbols that change a request (currencies, percent, degrees, C++ / S24+ / C#).
_TOKEN = re.compile(rf"(?P<number>\d+(?:[.,]\d+)*)|(?P<word>[^\W\d_{_HANGUL_CHARS}]+)|(?P<symbol>[%$€£¥₩°+#])")
_THOUSANDS = re.compile(r"^\d{1,3}(?:,\d{3})+$")
_CONTRACTIONS = [(re.compile(pattern, re.IGNORECASE), replacement) for pattern, replacement in [
    (r"\bcan['’]t\b", "can not"), (r"\bwon['’]t\b", "will not"), (r"\bcannot\b", "can not"), (r"n['’]t\b", " not"),
    (r"['’](d|ll|ve|re|m)\b", " ")]]
_NOT_IN_CONTENT_STRING = re.compile(r"[\s?!.,~·…'\"“”‘’()\[\]{}:;]")

#: English words that carry no request content: phrasing, articles, auxiliaries, pronouns, fillers.
ENGLISH_NEUTRAL = frozenset("""
    a an the this that these those it its there here some any each every
    i me my mine myself we us our you your yours he him his she her they them their
    be been being do does did done doing have has having
    can could would should will shall may might must
    of on at for with about regarding concerning via and or also just really actually exactly
    please pls plz kindly tell show find search searching look give get know want wanna need like let lets
    explain describe info information details detail s
    hi hello hey thanks thank
    inc corp corporation ltd llc plc co
""".split())

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
    "어느/M": ("wh", "what"), "어떻/V": ("wh", "how"), "어떠/V": ("wh", "how"), "언제/N": ("wh", "when"),
    "언제/M": ("wh", "when"), "어디/N": ("wh", "where"), "어디/M": ("wh", "where"), "누구/N": ("wh", "who"),
    "왜/M": ("wh", "why"), "얼마/N": ("wh", "much"), "얼마나/M": ("wh", "much"), "몇/M": ("wh", "many"),
    "몇/N": ("wh", "many"),
}

#: English prepositions that give the next content term a case role.
ENGLISH_ROLES = {"from": "source", "to": "goal", "into": "goal", "towards": "goal", "toward": "goal",
                 "in": "in", "than": "comparison", "by": "agent"}
#: Roles whose absence on one side is itself a difference ("acquired by Apple" ≠ "Apple acquired").
STRICT_ROLES = frozenset({"agent"})
#: English verbs (besides -ed forms) around which subject and object may not swap (singular-folded forms).
RELATION_VERBS = frozenset("""beat defeat win won lose lost buy bought sell sold acquire sue hire fire invest
    overtake overtook surpass outsell outsold replace pay paid owe follow call play lead led join leave left
    meet met marry""".split())
#: Plural-looking words that are not plurals of another word.
_NOT_PLURAL = frozenset("news goods arms glasses means species series physics economics politics mathematics "
                        "athletics savings this its is was has does us bus gas plus yes less".split())

#: Korean particles (Kiwi J* tags) that give the preceding term a case role.
KOREAN_ROLES = {"에서": "source", "에서부터": "source", "부터": "source", "으로부터": "source", "로부터": "source",
                "까지": "goal", "로": "goal", "으로": "goal", "에게": "goal", "한테": "goal", "께": "goal",
                "에게로": "goal", "보다": "comparison", "이": "subject", "가": "subject", "께서": "subject",
                "을": "object", "를": "object", "의": "possessor", "에": "location", "에게서": "source",
                "한테서": "source"}
#: Korean morphemes (form/tag class N, V or M) that carry no request content.
KOREAN_NEUTRAL = frozenset("""
    알리/V 알/V 주/V 주시/V 보/V 보이/V 찾/V 찾아보/V 말하/V 가르치/V 대하/V 관하/V 있/V 하/V 되/V 싶/V
    그렇/V 감사하/V 고맙/V
    검색/N 조회/N 확인/N 설명/N 정리/N 궁금/N 부탁/N 질문/N 정보/N 관련/N 것/N 거/N 수/N 등/N
    데/N 나/N 저/N 제/N 내/N 우리/N 저희/N 주식회사/N 감사/N
    이/M 그/M 저/M 좀/M 혹시/M 그냥/M 제발/M 한번/M 정말/M 진짜/M 꼭/M 다시/M
""".split())
#: Korean negators, mapped to one term per meaning ("안 먹는" = "먹지 않는"; "못 먹는" = "먹지 못하는").
KOREAN_NEGATION = {"안": "않", "않": "않", "아니": "않", "말": "않", "못": "못", "못하": "못"}

_CONTENT_TAGS = {"NNG": "N", "NNP": "N", "NNB": "N", "NR": "N", "NP": "N", "XR": "N", "VV": "V", "VA": "V",
                 "MAG": "M", "MM": "M"}
_FUNCTION_TAGS = ("J", "E", "VCP", "XSV", "XSA", "XSM")  # tag prefixes of particles, endings, verbalisers

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
    """

    key: str
    surface: str
    kind: TermKind
    role: str | None = None
    start: int = 0
    optional: str | None = None


@dataclass(frozen=True)
class Word:
    """A space-separated word of the query, with its trailing particles and endings cut off (Korean)."""

    start: int
    end: int
    stem: str


@dataclass(frozen=True)
class RequestTerms:
    """The analysed query: content terms in text order, its words, and whether it contains Hangul."""

    terms: tuple[Term, ...]
    words: tuple[Word, ...]
    hangul: bool


@dataclass(frozen=True)
class MatchResult:
    """Outcome of `compare`: `same` and, when not, the first difference found (for logs and benchmarks)."""

    same: bool
    reason: str = ""

    def __bool__(self) -> bool:
        return self.same


# --- Kiwi: one shared instance, created lazily -------------------------------------------------------------
_kiwi: Any = None
_kiwi_lock = threading.Lock()


def _analyser() -> Any:
    """The process's Kiwi instance (its analysis methods are safe to call from several threads)."""
    global _kiwi
    if _kiwi is None:
        with _kiwi_lock:
            if _kiwi is None:
                try:
                    from kiwipiepy import Kiwi
                except ImportError as exc:  # listed in requirements.txt; say how to get it
                    raise ImportError("the semantic cache's Korean check needs kiwipiepy: "
                                      "pip install kiwipiepy==0.24.1 kiwipiepy-model==0.24.0") from exc
                # Without the typo and multi-word dictionaries: 300 MB instead of 490 MB, and the same
                # segmentation of the morphemes compared here.
                kiwi = Kiwi(load_typo_dict=False, load_multi_dict=False)
                kiwi.tokenize("준비")  # the first call finishes loading the model (≈1 s): pay it here
                _kiwi = kiwi
    return _kiwi


def warm_up() -> None:
    """Load the Korean analyser now (call it off the request path, e.g. in a thread at start-up)."""
    _analyser()


# --- analysis ------------------------------------------------------------------------------------------------
def _normalise(text: str) -> str:
    """NFKC, contractions spelt out, keyboard-noise jamo dropped; case is kept (acronyms: "US" ≠ "us")."""
    text = unicodedata.normalize("NFKC", text)
    for pattern, replacement in _CONTRACTIONS:
        text = pattern.sub(replacement, text)
    return _LONE_JAMO.sub("", text)


def singular(word: str) -> str:
    """Light English plural/possessive folding: companies→company, taxes→tax, prices→price, news stays."""
    if len(word) < 4 or word in _NOT_PLURAL or not word.endswith("s") or word.endswith(("ss", "us", "is")):
        return word
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "zes", "sses")):
        return word[:-2]
    return word[:-1]


@dataclass
class _Piece:
    start: int
    end: int
    form: str
    tag: str  # "number" | "word" | "acronym" | "symbol" for regex pieces, the Kiwi tag otherwise

    @property
    def function(self) -> bool:
        """A particle, ending, verbaliser, or an auxiliary/neutral morpheme (해 **줘**): no content."""
        if self.tag.startswith(_FUNCTION_TAGS):
            return True
        if self.tag == "VX":
            return self.form not in KOREAN_NEGATION
        return self.tag in ("VV", "VA") and f"{self.form}/V" in KOREAN_NEUTRAL


def _pieces(text: str, hangul: bool) -> list[_Piece]:
    # All-caps typing ("WHAT IS THE GDP") is not a string of acronyms.
    shouting = any(w.isupper() and (w.casefold() in ENGLISH_NEUTRAL or w.casefold() in OPTIONAL_WORDS)
                   for w in re.findall(r"[A-Za-z]{3,}", text))
    pieces = []
    for m in _TOKEN.finditer(text):
        tag = m.lastgroup or "word"
        if tag == "word" and len(m.group()) > 1 and m.group().isupper() and not shouting:
            tag = "acronym"  # US, IT, CO: never a neutral word
        pieces.append(_Piece(m.start(), m.end(), m.group().casefold(), tag))
    if hangul:
        for token in _analyser().tokenize(text):
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
    terms: list[Term] = []
    last_end = -1  # end offset of the last term, to attach particles and suffixes only to adjacent terms
    pending_role: str | None = None  # an English preposition waits for its term
    prefix: _Piece | None = None  # a Korean prefix (XPN) waits for its noun

    def add(key: str, surface: str, kind: TermKind, piece: _Piece, optional: str | None = None) -> None:
        nonlocal last_end, pending_role
        terms.append(Term(key, surface, kind, pending_role, piece.start, optional))
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
            elif form in ENGLISH_ROLES:
                pending_role = ENGLISH_ROLES[form]
            elif form in OPTIONAL_WORDS:
                optional, key = OPTIONAL_WORDS[form]
                add(key, form, "word", piece, optional)
            elif form not in ENGLISH_NEUTRAL:
                add(singular(form), form, "word", piece)
        elif tag.startswith("J"):
            role = KOREAN_ROLES.get(form)
            if role and terms and piece.start == last_end and terms[-1].role is None:
                terms[-1] = replace(terms[-1], role=role)
        elif tag == "XPN":
            prefix = piece
        elif tag == "XSN":
            # A noun suffix changes the noun (성장 → 성장률, 경제 → 경제적), except the plural 들.
            if form != "들" and terms and terms[-1].kind == "korean" and piece.start == last_end:
                last = terms[-1]
                terms[-1] = replace(last, key=last.key + form, surface=last.surface + form)
            if terms and piece.start == last_end:
                last_end = piece.end
        elif form in KOREAN_NEGATION and tag in ("MAG", "VX", "VCN"):
            add(KOREAN_NEGATION[form], form, "korean", piece)
        elif tag in _CONTENT_TAGS:
            tagged = f"{form}/{_CONTENT_TAGS[tag]}"
            if tagged in KOREAN_NEUTRAL:
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
            add(form, form, "korean", piece)
    return RequestTerms(tuple(terms), _words(text, pieces) if hangul else (), hangul)


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
        parts = unicodedata.normalize("NFD", ch) if _SYLLABLE.match(ch) else ch
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


def _korean_variant(a: RequestTerms, b: RequestTerms) -> bool:
    """Spacing or one-jamo typo variant, judged on the content words of both queries (module docstring, 3)."""
    def content(q: RequestTerms) -> tuple[str, list[tuple[int, Word]]]:
        chosen = [w for w in q.words if w.stem and any(w.start <= t.start < w.end for t in q.terms)]
        spans, pos = [], 0
        for w in chosen:
            spans.append((pos, w))
            pos += len(w.stem)
        return "".join(w.stem for w in chosen), spans

    text_a, spans_a = content(a)
    text_b, spans_b = content(b)
    if text_a == text_b:
        return True
    jamo_a, owner_a = _jamo(text_a)
    jamo_b, owner_b = _jamo(text_b)
    at = _one_edit(jamo_a, jamo_b)
    if at is None:
        return False
    text, owner, spans = (text_b, owner_b, spans_b) if len(jamo_b) > len(jamo_a) else (text_a, owner_a, spans_a)
    if at >= len(owner):
        return False
    char = owner[at]
    offset, word = next((o, w) for o, w in reversed(spans) if o <= char)
    syllables = [c for c in word.stem if _SYLLABLE.match(c)]
    # The edit is in a Hangul syllable, not among the first two syllables of a word of three or more.
    return bool(_SYLLABLE.match(text[char])) and len(syllables) >= 3 and char - offset >= 2


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


def _slot(t: Term, key: str | None = None) -> _Slot:
    return _Slot(key or t.key, t.kind, t.role, t.start, bool(t.optional))


def _align(a: RequestTerms, b: RequestTerms) -> tuple[list[_Slot], list[_Slot]] | MatchResult:
    """Match the two term lists; returns the matched slots of each side, or why they differ."""
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
    for ta in list(left_a):  # typos: one Latin word for one Latin word
        tb = next((t for t in left_b if t.kind == ta.kind == "word" and is_typo(ta.surface, t.surface)), None)
        if tb is not None:
            left_a.remove(ta)
            left_b.remove(tb)
            slots_a.append(_slot(ta))
            slots_b.append(_slot(tb, ta.key))
    if left_a or left_b:
        groups = _spacing_groups(left_a, left_b) if left_a and left_b else None
        if groups is not None:
            for ga, gb in groups:
                key = "".join(t.surface for t in ga)
                slots_a.append(replace(_slot(ga[0], key), role=ga[-1].role))
                slots_b.append(replace(_slot(gb[0], key), role=gb[-1].role))
        elif all(t.kind == "korean" for t in left_a + left_b) and _korean_variant(a, b):
            pass  # Kiwi split a misspelt or oddly spaced Korean word differently: the words agree
        else:
            only_a = ", ".join(t.surface for t in left_a) or "-"
            only_b = ", ".join(t.surface for t in left_b) or "-"
            return MatchResult(False, f"different content: {only_a} / {only_b}")
    slots_a.sort(key=lambda s: s.start)
    slots_b.sort(key=lambda s: s.start)
    return slots_a, slots_b


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


def compare(cached: str, asked: str) -> MatchResult:
    """Whether the answer cached for `cached` answers `asked` (see the module docstring for the rules)."""
    a, b = _drop_one_sided_optional(request_terms(cached), request_terms(asked))
    if not a.terms or not b.terms:  # nothing to compare: never assume two content-free queries agree
        return MatchResult(False, "a query without content terms")
    aligned = _align(a, b)
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
    return MatchResult(conflict is None, conflict or "")


def same_request(cached: str, asked: str) -> bool:
    """True when the results cached for `cached` may be served for `asked`."""
    return compare(cached, asked).same
