"""One analysis path for search text, shared by indexing, search, routing and answer extraction.

Text becomes a list of **terms**, in reading order:

* English words: lower-cased, stop words dropped, Snowball-stemmed (`stretching` → `stretch`), the same
  algorithm as Postgres' `english` configuration;
* identifiers and codes (`0x82`, `I2C_STATE`, `WMT14`, `multi-dose`): kept whole with their separators
  removed (`i2cstate`, `multidose`), plus their word parts — so an exact code wins and its parts still match;
* numbers: digits only (`1,000` → `1000`; `2.5` stays);
* Korean: content morphemes from Kiwi (`kiwipiepy`, a morphological analyser whose model ships on PyPI): nouns,
  numbers, foreign words, roots and the stems of verbs and adjectives. Particles and endings go, and Kiwi
  repairs the spacing that PDF extraction loses, so "플랫폼에서" and "플랫폼을" are both `플랫폼`.

Terms contain only letters, digits and a decimal point, so Postgres' `simple` text-search parser keeps each
one whole (the index stores them space-joined in `document_chunks.tokens`).

Cross-language: a Korean term maps to English terms through two tables in `ai_llm/common/text/data/` (Hangul
loanwords such as 클럭 → clock, and a glossary of common native words such as 폐기 → discard), and an
English term maps back to Korean through the same tables reversed. Kiwi's built-in language model also gives
morphemes similar in meaning to a Korean one (제외 → 빼, 배제). Queries carry these as weaker alternatives
(`QueryTerms`); documents are indexed with their own terms only.
"""

from __future__ import annotations

import functools
import math
import re
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from ai_llm.common.text import ENGLISH_STOPWORDS, HANGUL_SYLLABLE, hangul_bigrams, normalize
from ai_llm.common.text import KOREAN_QUERY_STOPWORDS as KOREAN_QUERY_STOPWORDS  # re-exported
from ai_llm.common.text import QUERY_STOPWORDS as QUERY_STOPWORDS  # re-exported

#: Bump when the terms produced for the same text change: stored chunks then need `hub reindex`.
ANALYSIS_VERSION = "3"

_TOKEN = re.compile(r"[0-9A-Za-z](?:[0-9A-Za-z_.\-/]*[0-9A-Za-z])?|[\uac00-\ud7a3]+")
_NUMBER = re.compile(r"^\d+(?:[.,]\d+)*$")
_THOUSANDS = re.compile(r"(\d),(\d{3})(?!\d)")

# -- Kiwi's tags (Sejong tag set), for every reader of Kiwi's tokens --------------------------------------
#: Tags of the content morphemes of indexed and searched text: nouns, numerals, roots, foreign words, numbers,
#: Hanja, and the stems of verbs and adjectives (`analyze` takes the Latin and digit ones from its own pattern).
KOREAN_CONTENT_TAGS = ("NNG", "NNP", "NR", "XR", "SH", "SN", "SL", "VV", "VA")
#: Nouns that `analyze` joins into a compound when written as one word.
KOREAN_NOUN_TAGS = ("NNG", "NNP")
#: The content tags without verb and adjective stems: the morphemes a topic or title is made of.
KOREAN_NOMINAL_CONTENT_TAGS = tuple(t for t in KOREAN_CONTENT_TAGS if not t.startswith("V"))
#: A noun phrase's morphemes: the nominal content tags, bound nouns (건/NNB) and noun suffixes (-별/XSN).
KOREAN_NOUN_PHRASE_TAGS = (*KOREAN_NOMINAL_CONTENT_TAGS, "NNB", "XSN")
#: Tags of the morphemes that carry a request's content, by class: N (nouns, bound nouns, numerals, pronouns,
#: roots), V (verb and adjective stems), M (adverbs and determiners). Wider than `KOREAN_CONTENT_TAGS`: the
#: semantic cache's same-request check compares question words (뭐/NP, 어떻게/MAG, 몇/MM) and units (명/NNB),
#: which indexing leaves out; Latin words and numbers come from its own pattern.
KOREAN_TAG_CLASSES = {"NNG": "N", "NNP": "N", "NNB": "N", "NR": "N", "NP": "N", "XR": "N", "VV": "V", "VA": "V",
                      "MAG": "M", "MM": "M"}
#: Tag prefixes of morphemes without content: particles, endings, the copula and verbalising suffixes.
KOREAN_FUNCTION_TAGS = ("J", "E", "VCP", "XSV", "XSA", "XSM")


def _stopword_stems(words: frozenset[str]) -> frozenset[str]:
    return words | frozenset(stem(w) for w in words)


def _stemmer() -> Any:
    import Stemmer

    return Stemmer.Stemmer("english")


_STEMMER = threading.local()


def stem(word: str) -> str:
    """Snowball English stem (one stemmer per thread: PyStemmer objects are not shared across threads)."""
    stemmer = getattr(_STEMMER, "value", None)
    if stemmer is None:
        stemmer = _STEMMER.value = _stemmer()
    return str(stemmer.stemWord(word))


_KIWI_LOCK = threading.Lock()
_KIWI_LOAD = threading.Lock()
_KIWI: Any = None


def kiwi() -> Any:
    """The process's one Kiwi analyser, shared by indexing, search, routing, reports and the search gateway's
    same-request check (loaded once, lazily: a few seconds and about 500 MB; only texts with Hangul need it).

    One configuration, Kiwi's defaults (its typo and multi-word dictionaries loaded); a caller that needs more
    asks per call (the gateway: `typos="basic"`), so every caller reads a text with the same dictionary.
    """
    global _KIWI
    if _KIWI is None:
        with _KIWI_LOAD:
            if _KIWI is None:
                try:
                    from kiwipiepy import Kiwi
                except ImportError as exc:  # listed in requirements.txt; say how to get it
                    raise ImportError("Korean analysis needs kiwipiepy: "
                                      "pip install kiwipiepy==0.24.1 kiwipiepy-model==0.24.0") from exc
                _KIWI = Kiwi()
    return _KIWI


def _english_terms(raw: str) -> list[str]:
    low = raw.lower()
    if _NUMBER.match(low):
        return [low.replace(",", "")]
    parts = [p for p in re.split(r"[_./\-]+", low) if p]
    if len(parts) > 1 or any(c.isdigit() for c in low):
        whole = "".join(parts)
        out = [whole]
        for part in parts:
            if len(parts) > 1 and part not in ENGLISH_STOPWORDS and (len(part) > 1 or part.isdigit()):
                out.append(part if any(c.isdigit() for c in part) else stem(part))
        return out
    if low in ENGLISH_STOPWORDS:
        return []
    return [stem(low)]


#: Longest compound (syllables) `_korean_terms` joins from two nouns written as one word.
COMPOUND_MAX_CHARS = 6


def _korean_terms(tokens: Iterable[Any], joins: dict[str, tuple[str, str]] | None = None,
                  compounds: bool = True) -> list[tuple[int, str]]:
    """(offset, term) for Kiwi's content morphemes; foreign words and numbers are left to the English path.

    Two nouns written as one word are also joined into one term ("통신비" read as 통신 + 비 in one sentence and
    as 통신비 in another — Kiwi's segmentation follows the context): the joined form is added after its parts,
    and recorded in `joins` (joined -> parts)."""
    out: list[tuple[int, str]] = []
    previous: Any = None
    for token in tokens:
        tag = str(token.tag)
        noun = tag.startswith(KOREAN_NOUN_TAGS)
        if compounds and previous is not None and noun and int(previous.start) + int(previous.len) == int(token.start) \
                and len(previous.form) + len(token.form) <= COMPOUND_MAX_CHARS:
            joined = previous.form + token.form
            out.append((int(previous.start), joined))
            if joins is not None:
                joins.setdefault(joined, (previous.form, token.form))
        previous = token if noun else None
        if tag in ("SL", "SN", "SH") or not tag.startswith(KOREAN_CONTENT_TAGS):
            continue
        out.append((int(token.start), token.form))
    return out


#: How Korean text becomes terms: "kiwi" (morphemes, the default) or "bigrams" (Hangul character bigrams, the
#: analysis before Kiwi — kept so that `hub eval rag --korean-analysis kiwi,bigrams` measures both in one run).
KOREAN_ANALYSIS = "kiwi"


def analyze(text: str, compounds: bool = True) -> list[str]:
    """The terms of `text` in reading order (see the module docstring); without `compounds`, two nouns written
    as one word are not joined (the intent model's features, trained before the joins, stay as trained)."""
    return _analyze(text, compounds=compounds)


def _analyze(text: str, joins: dict[str, tuple[str, str]] | None = None, compounds: bool = True) -> list[str]:
    text = _THOUSANDS.sub(r"\1\2", normalize(text))
    positioned: list[tuple[int, str]] = []
    for match in _TOKEN.finditer(text):
        raw = match.group(0)
        if not HANGUL_SYLLABLE.match(raw):
            positioned.extend((match.start(), term) for term in _english_terms(raw))
        elif KOREAN_ANALYSIS == "bigrams":
            positioned.extend((match.start(), gram) for gram in hangul_bigrams(raw))
    if HANGUL_SYLLABLE.search(text) and KOREAN_ANALYSIS != "bigrams":
        # Kiwi reads the whole text (context decides the analysis); its Latin and digit tokens are skipped
        # because the English path above already produced them.
        with _KIWI_LOCK:
            tokens = kiwi().tokenize(text)
        positioned.extend(_korean_terms(tokens, joins, compounds))
        positioned.sort(key=lambda item: item[0])
    return [term for _, term in positioned if term]


def index_terms(text: str) -> str:
    """The `tokens` column of a chunk: its terms, space-joined."""
    return " ".join(analyze(text))


# -- cross-language tables --------------------------------------------------------------------------------


#: The Korean–English tables in `data/`: Hangul loanwords (클럭 → clock) and a glossary of native words (폐기 →
#: discard). Each line is "Korean<TAB>English".
KOREAN_ENGLISH_TABLES = ("loanwords_ko_en", "glossary_ko_en")


@functools.cache
def korean_english_pairs(table: str) -> tuple[tuple[str, str], ...]:
    """The (Korean, English) lines of one of `KOREAN_ENGLISH_TABLES`, stripped, as written."""
    text = resources.files("ai_llm.common.text").joinpath("data", f"{table}.tsv").read_text(encoding="utf-8")
    pairs = []
    for line in text.splitlines():
        korean, _, english = line.partition("\t")
        pairs.append((korean.strip(), english.strip()))
    return tuple(pairs)


@functools.cache
def _tables() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(Korean form -> English terms, English term -> Korean forms) from the loanword and glossary tables."""
    ko_en: dict[str, list[str]] = {}
    en_ko: dict[str, list[str]] = {}
    for table in KOREAN_ENGLISH_TABLES:
        for korean, english in korean_english_pairs(table):
            korean, english = korean.replace(" ", ""), english.lower()
            if not korean or not english:
                continue
            stems = [t for word in english.split() for t in _english_terms(word)]
            if not stems:
                continue
            ko_en.setdefault(korean, [])
            for term in stems:
                if term not in ko_en[korean]:
                    ko_en[korean].append(term)
            if len(stems) == 1:
                en_ko.setdefault(stems[0], [])
                if korean not in en_ko[stems[0]]:
                    en_ko[stems[0]].append(korean)
    return ko_en, en_ko


def english_for(korean: str) -> list[str]:
    """English terms for a Korean morpheme or word (empty when the tables do not know it)."""
    return list(_tables()[0].get(korean, []))


def korean_for(english_term: str) -> list[str]:
    """Korean forms for an English term (stemmed), from the same tables."""
    return list(_tables()[1].get(english_term, []))


def similar_korean(term: str, top_n: int = 5, min_score: float = 0.55) -> list[tuple[str, float]]:
    """Morphemes close in meaning to a Korean noun or stem, by Kiwi's language model (score 0–1)."""
    try:
        with _KIWI_LOCK:
            found = kiwi().most_similar_morphemes(term, top_n=top_n)
    except Exception:  # Kiwi knows several senses or none: no expansion (the original term still counts)
        return []
    out: list[tuple[str, float]] = []
    for item in found:
        if float(item.score) >= min_score and str(item.tag).startswith(KOREAN_CONTENT_TAGS) and item.form != term:
            out.append((item.form, float(item.score)))
    return out


# -- queries ----------------------------------------------------------------------------------------------


@functools.cache
def _query_stopwords() -> frozenset[str]:
    return _stopword_stems(QUERY_STOPWORDS)


@dataclass
class TermGroup:
    """One word of a question and the terms that may stand for it (itself at weight 1)."""

    base: str
    alternatives: dict[str, float] = field(default_factory=dict)
    salient: bool = True  # False for request words ("explain", "알려줘"): matched, never required
    weight: float = 1.0  # share of this word in coverage (a follow-up's earlier turn counts less)


@dataclass
class QueryTerms:
    """A question as terms: one group per distinct word, English phrases (adjacent term pairs), numbers."""

    groups: list[TermGroup]
    phrases: list[tuple[str, str]]
    numbers: list[str]
    korean: bool

    def all_terms(self) -> list[str]:
        seen: dict[str, None] = {}
        for group in self.groups:
            for term in group.alternatives:
                seen.setdefault(term, None)
        return list(seen)


#: Weights of the alternatives of a question word.
TRANSLATION_WEIGHT = 0.8
#: A Korean form for an English word: the tables are written Korean → English, and read backwards they are looser.
REVERSE_TRANSLATION_WEIGHT = TRANSLATION_WEIGHT * 0.75
SIMILAR_WEIGHT = 0.45
HISTORY_WEIGHT = 0.5


def analyze_query(text: str, *, translate: bool = True, expand_similar: bool = True,
                  context: Sequence[str] = ()) -> QueryTerms:
    """Terms of a question, with cross-language and similar-meaning alternatives.

    Args:
        text: the question.
        translate: add English terms for Korean words and Korean forms for English words.
        expand_similar: add Kiwi's similar morphemes for Korean nouns and stems.
        context: earlier turns a follow-up leans on (the earlier question first, then what was answered);
            their terms join as weaker groups.
    """
    joins: dict[str, tuple[str, str]] = {}
    terms = _analyze(text, joins)
    korean = bool(HANGUL_SYLLABLE.search(text))
    groups: dict[str, TermGroup] = {}
    for term in terms:
        if term in groups or term in joins:  # a compound is a form of its parts (below), not a word more
            continue
        is_hangul = bool(HANGUL_SYLLABLE.match(term))
        stop = term in (KOREAN_QUERY_STOPWORDS if is_hangul else _query_stopwords())
        group = TermGroup(term, {term: 1.0}, salient=not stop)
        if translate and not stop:
            if is_hangul:
                for english in english_for(term):
                    group.alternatives.setdefault(english, TRANSLATION_WEIGHT)
            else:
                for form in korean_for(term):
                    group.alternatives.setdefault(form, REVERSE_TRANSLATION_WEIGHT)
        if expand_similar and is_hangul and not stop and len(term) > 1:
            for form, score in similar_korean(term):
                group.alternatives.setdefault(form, round(SIMILAR_WEIGHT * score, 3))
        groups[term] = group
    # A compound of two of the question's nouns is another form of each: a passage holding "통신비" holds both.
    for joined, parts in joins.items():
        for part in parts:
            if part in groups:
                groups[part].alternatives.setdefault(joined, 1.0)
    for position, turn in enumerate(context):
        for term in analyze(turn):
            if term in groups or term in _query_stopwords() or term in KOREAN_QUERY_STOPWORDS:
                continue
            # The earlier question's words count (half) towards coverage; the earlier answer's only rank.
            groups[term] = TermGroup(term, {term: HISTORY_WEIGHT}, salient=position == 0, weight=HISTORY_WEIGHT)
            if translate and HANGUL_SYLLABLE.match(term):
                for english in english_for(term):
                    groups[term].alternatives.setdefault(english, HISTORY_WEIGHT * TRANSLATION_WEIGHT)
    latin = [t for t in terms if not HANGUL_SYLLABLE.match(t) and t not in _query_stopwords()]
    phrases = [(a, b) for a, b in zip(latin, latin[1:], strict=False) if a != b]
    numbers = [t for t in terms if _NUMBER.match(t)]
    return QueryTerms(list(groups.values()), phrases, numbers, korean)


# -- scoring ----------------------------------------------------------------------------------------------


def idf(df: int, n: int) -> float:
    """BM25's inverse document frequency (a term no chunk holds gets the highest value)."""
    return math.log(1 + (n - df + 0.5) / (df + 0.5))


@dataclass
class TermStats:
    """Corpus statistics for a query's terms: chunk count, document frequency per term, mean length."""

    n: int
    df: dict[str, int]
    avgdl: float = 120.0

    def idf(self, term: str) -> float:
        return idf(self.df.get(term, 0), max(self.n, 1))


def bm25(query: QueryTerms, doc_terms: Sequence[str], stats: TermStats, k1: float = 1.2, b: float = 0.75) -> float:
    """BM25 of a chunk's terms; each question word counts once, through its best-scoring alternative."""
    counts: dict[str, int] = {}
    for term in doc_terms:
        counts[term] = counts.get(term, 0) + 1
    length = len(doc_terms) or 1
    score = 0.0
    for group in query.groups:
        best = 0.0
        for term, weight in group.alternatives.items():
            tf = counts.get(term, 0)
            if not tf:
                continue
            part = stats.idf(term) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / stats.avgdl))
            best = max(best, weight * part)
        score += best
    if query.phrases:
        pairs = set(zip(doc_terms, doc_terms[1:], strict=False))
        score += sum(0.5 * (stats.idf(a) + stats.idf(b_)) / 2 for a, b_ in query.phrases if (a, b_) in pairs)
    return score


def group_weight(group: TermGroup, stats: TermStats) -> float:
    """How much a question word says: the IDF of its most common alternative that the corpus holds, or the
    IDF of a term seen once when the corpus holds none of them (an absent concept weighs, without dominating)."""
    known = [stats.df[t] for t in group.alternatives if stats.df.get(t)]
    return idf(min(known) if known else 1, max(stats.n, 1))


def coverage(query: QueryTerms, terms: Iterable[str], stats: TermStats, known_only: bool = False,
             factors: Sequence[float] | None = None) -> float:
    """IDF-weighted share (0–1) of the question's salient words that `terms` holds (via any alternative).

    With `known_only`, words the corpus does not hold at all (no alternative has a document frequency) are left
    out: they are the asker's own wording, which no passage can match, so they say nothing about whether a
    passage answers.
    """
    present = set(terms)
    total = got = 0.0
    for i, group in enumerate(query.groups):
        if not group.salient:
            continue
        if known_only and not any(stats.df.get(t) for t in group.alternatives):
            continue
        weight = group_weight(group, stats) * group.weight * (factors[i] if factors is not None else 1.0)
        total += weight
        got += weight * max((w / group.alternatives[group.base] for t, w in group.alternatives.items()
                             if t in present), default=0.0)
    return got / total if total else 0.0
