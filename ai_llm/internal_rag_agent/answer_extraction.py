"""Which sentences answer the question, and whether any does.

The retrieved chunks are whole sentences of one page each, one per line (`document_parser.split_document`).
Every sentence of the best chunks is scored by what it holds of the question:

* its coverage of the question's salient words (any alternative of a word counts: its English rendering, a
  similar morpheme), each word weighted by its IDF in the corpus times its IDF among the candidate sentences
  (`local_factors`: the words every candidate shares, the document's topic, do not tell them apart); and the
  corpus-weighted coverage of it together with its neighbours (a sentence often needs the one before it for its
  subject);
* the retrieval score of its chunk;
* a bonus when the question asks for a quantity (how long / how many / 몇 / 얼마) and the sentence has a number.

The answer quotes the best one to three sentences — whole, in reading order, each with its file and page —
and the documents are said to answer only when the best sentence window covers enough of the question
(`min_evidence`, tuned on the dev split) and enough of all its words, or reads like it (the embedding model's
similarity of the best sentence, for a question in everyday words): the `no_result` decision rests on what
the text holds, not on a retrieval score calibrated on one set.

Word coverage cannot be measured across languages (a Korean question's words are in no English sentence), so
a sentence in the other language than the question's (Korean or not, by `text.is_korean`) is judged by a
cross-lingual model instead (`cross_language.CrossLingualJudge`): it answers when its cosine to the question
reaches `min_cross`, and when it states the kind of value asked for; that cosine then weighs in its score
(`CROSS_WEIGHT`). When the words do not answer, the agent adds the other language's chunks nearest the
question's vector to the ones weighed (`RagAgent._other_language_chunks`): a question's words rank the chunks
of its own language first.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ai_llm.common.text import HANGUL_SYLLABLE, is_korean, normalize
from ai_llm.common.text.analysis import QueryTerms, TermStats, analyze, coverage, group_weight
from ai_llm.internal_rag_agent.rag_search_service import REPORT_FACTOR, RankedChunk

#: Check the asked-for kind of value in the sentence and the next one only (else in the ±1 window).
SENTENCE_TYPE_CHECK = True
#: Share of the question–sentence embedding similarity in a sentence's score (when embeddings answer).
SIMILARITY_WEIGHT = 0.3
#: Score factor of a short line without final punctuation (a heading, a table cell).
HEADING_PENALTY = 0.75
MIN_SENTENCE_CHARS = 12
#: Two sentences sharing this share of the shorter one's words are one sentence quoted twice.
DUPLICATE_SHARE = 0.8
_SENTENCE_END = re.compile(r"[.!?다요음함됨임)]\s*$")
#: Chunks whose sentences are considered.
CHUNKS_CONSIDERED = 6
#: Weight of the cross-lingual model's cosine in the score of a sentence in the other language (only when the
#: words did not answer and the model judged the sentences).
CROSS_WEIGHT = 0.5
#: A second or third quoted sentence must score at least this share of the best one.
FOLLOWER_SHARE = 0.7
_QUANTITY = re.compile(r"\b(how (long|many|much|often|old|far|big|large|soon)|what (percentage|proportion|number|"
                       r"size|year|date)|when|which year|at least|maximum|minimum)\b|몇|얼마|언제|기간|횟수|비율|"
                       r"금액|예산|연도|최대|최소", re.I)
_DIGIT = re.compile(r"\d")

_TIME_UNITS = r"(seconds?|secs?|minutes?|mins?|hours?|hrs?|days?|weeks?|months?|years?|ms|milliseconds?)"
_MONTHS = r"(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?"

#: Expected answer types: (what the question asks, what a passage that answers it must state). A window
#: without the asked-for kind of value ("how many seconds" and no number of seconds) cannot answer.
_NUM = r"(?:\d[\d,.]*|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|twenty|thirty|"\
       r"forty|fifty|sixty|hundred|thousand|million|billion|half|several|a few)"
#: What a measured quantity's name is the first word of when it names a device or a record, not a value.
_INSTRUMENT = r"(recorders?|loggers?|sensors?|monitors?|probes?|gauges?|logs?|records?|alarms?|controllers?|charts?)\b"

UNITS: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(p, re.I), re.compile(q, re.I)) for p, q in [
        # "second" alone is the ordinal ("the second-half evaluation"); the unit is plural or a rate (`_RATE`).
        (r"\bseconds\b|초\b|몇\s*초", rf"{_NUM}[\s-]*(seconds?|secs?|s)\b|\d+\s*초"),
        (r"\bminutes?\b|몇\s*분\b", rf"{_NUM}[\s-]*(minutes?|mins?)\b|\d+\s*분"),
        (r"\bhours?\b|몇\s*시간", rf"{_NUM}[\s-]*(hours?|hrs?|h)\b|\d+\s*시간"),
        (r"\bdays?\b|며칠|몇\s*일", rf"{_NUM}[\s-]*(days?)\b|\d+\s*일"),
        (r"\bweeks?\b|몇\s*주", rf"{_NUM}[\s-]*(weeks?)\b|\bweekly\b|\d+\s*주"),
        (r"\bmonths?\b|몇\s*(개월|달)", rf"{_NUM}[\s-]*(months?)\b|\bmonthly\b|\d+\s*(개월|달)"),
        (r"\b(how many|number of) years\b|몇\s*년(?!도)", rf"{_NUM}[\s-]*(years?)\b|\bannual(ly)?\b|\d+\s*년"),
        (r"\b(what|which) year\b|몇\s*년도|연도", r"\b(19|20)\d\d\b|\d+\s*년"),
        (r"\b(in|how many)\s+ms\b|\bmilliseconds?\b", rf"{_NUM}\s*(ms|milliseconds?)\b"),
        (r"\b(how many|number of) bytes\b|몇\s*바이트", rf"{_NUM}[\s-]*(bytes?|octets?)\b|\d+\s*바이트"),
        (r"\b(how many|number of) bits\b|몇\s*비트(?!\s*째)", rf"{_NUM}[\s-]*(bits?)\b|\d+\s*비트"),
        (r"\bpercent(age)?\b|%|퍼센트|비율", rf"{_NUM}\s*(%|percent)|\d+\s*퍼센트|\d+\s*분의\s*\d+"),
        (r"\b(feet|foot|ft)\b|피트", rf"{_NUM}[\s-]*(feet|foot|ft)\b|\d+\s*피트"),
        (r"\b(meters?|metres?)\b|미터", rf"{_NUM}[\s-]*(meters?|metres?|m)\b|\d+\s*미터"),
        (r"\b(terabytes?|tb|gigabytes?|gb)\b|(테라|기가)\s*바이트|몇\s*(테라|기가)",
         r"\d[\d,.]*\s*(tb|gb|terabytes?|gigabytes?|테라|기가)"),
        (r"\bgpu[\s-]*hours?\b", r"\d[\d,.]*\s*gpu[\s-]*hours?"),
        (r"(몇|얼마).{0,4}명|\bhow many (people|members|persons|staff|annotators|participants|workers)\b",
         r"\d+\s*(명|인)|\b\d+\s*(people|members|persons|annotators|participants)\b"),
        (r"몇\s*(곳|개소|군데)|\bhow many (hospitals|sites|institutions|centers|centres)\b",
         r"\d+\s*(곳|개소|개\s*기관|개\s*병원)|\b\d+\s*(hospitals|sites|institutions|centers)\b"),
        (r"(얼마|몇).{0,3}원|이용료|요금|수수료|\b(fee|fees|cost|price)\b",
         r"\d[\d,.]*\s*(원|만원|억|달러|\$)|\$\s*\d|\b(fee|free of charge|무료|무상)\b"),
        # Durations, frequencies, counts, deadlines and measured values, whatever the unit.
        (r"\bhow long\b|얼마나\s*(오래|걸리|길게)|몇\s*(시간|분|초|일|주|개월|년)\s*(동안|간|이나|까지)",
         rf"{_NUM}[\s-]*{_TIME_UNITS}\b|\d+\s*(초|분|시간|일|주|개월|달|년)|\b(until|as soon as|immediately|"
         r"before|after|expir\w*|indefinite\w*)\b|즉시|까지"),
        (r"\bhow often\b|\bhow frequently\b|얼마나\s*자주|주기(는|가)|몇\s*(번|회)\s*마다",
         r"\b(daily|weekly|monthly|annually|yearly|hourly|every|each|once|twice|periodic\w*|per (day|week|"
         r"month|year|shift))\b|interval|매(일|주|월|년|회)|마다|주기|간격|\d+\s*(회|번)"),
        (r"\bhow many times\b|몇\s*(회|번)(?!\s*째)",
         r"\d|\b(once|twice|one|two|three|four|five|six|seven|eight|nine|ten)\b|(한|두|세|네)\s*(번|차례|단계)|"
         r"(이|삼|사)중"),
        (r"언제까지|\buntil when\b|\bdeadline\b|\bby (what|which) date\b|마감",
         rf"\d{{1,2}}\s*월|\d{{4}}\s*[.\-/]\s*\d{{1,2}}|\d{{1,2}}\s*[./]\s*\d{{1,2}}|\b{_MONTHS}\s+\d|까지"),
        (r"\b(learning rate|latency|capacitance|current consumption|voltage|bandwidth|throughput)\b|"
         r"소비\s*전류|전압|지연\s*시간|주파수", r"\d"),
        (r"\bdefault (value|setting)s?\b|기본\s*값|초기\s*값|디폴트", r"\d|\b(enabled|disabled|true|false)\b"),
        (r"\b(maximum|minimum)\b|최대|최소|최고|최저", r"\d"),
        # A temperature that names an instrument or a record ("temperature recorder", "온도기록계") asks for no
        # degrees.
        (rf"\btemperature\b(?![\s-]+{_INSTRUMENT})|\bdegrees?\b|온도(?!\s*(기록|계|센서|로거|측정기|일지))|몇\s*도\b",
         r"\d+\s*(°|º|degrees?|℃|℉|도)"),
    ]]


@dataclass
class Quote:
    """A sentence chosen for the answer, with where it comes from."""

    text: str
    chunk: RankedChunk
    position: int  # sentence index inside the chunk
    score: float
    window_coverage: float  # of the question's words the corpus knows
    question_coverage: float = 0.0  # of all the question's words
    cross_similarity: float = 0.0  # the cross-lingual model's cosine, for a sentence in the other language
    neighbours: list[str] = field(default_factory=list)
    #: What the reader model weighs (`reader.features.FEATURES`), filled in by `find_evidence`.
    features: dict[str, float] = field(default_factory=dict)
    #: The reader model's probability that this sentence states the answer (None: not read by the model).
    reader_score: float | None = None

    @property
    def page(self) -> int | None:
        return self.chunk.hit.pages[0] if self.chunk.hit.pages else None


@dataclass
class Evidence:
    """The answer's sentences (reading order) and the evidence figure behind the answerable decision."""

    quotes: list[Quote]
    best_coverage: float
    question_coverage: float = 0.0
    cross_similarity: float = 0.0  # best cross-lingual cosine of a sentence in the other language
    unknown: list[str] = field(default_factory=list)  # identifiers the question names and no document holds
    similarity: float = 0.0  # the embedding model's similarity (0-1) of the question to the best sentence
    #: Every sentence weighed, best first by the rules' score (the reader reads these).
    candidates: list[Quote] = field(default_factory=list)
    #: The reader model's probability for the best sentence, and the threshold it must reach, when the reader
    #: read them (`reader.reading.read`).
    reader_best: float | None = None
    reader_threshold: float | None = None
    #: Reader scores in [low, high) are uncertain: a connected model's own judgement decides there.
    reader_band: tuple[float, float] | None = None

    @property
    def uncertain(self) -> bool:
        """Whether the reader's best score falls in its uncertain band."""
        return self.reader_best is not None and self.reader_band is not None \
            and self.reader_band[0] <= self.reader_best < self.reader_band[1]

    def lexical(self, min_evidence: float, min_question_coverage: float = 0.0,
                min_similarity: float | None = None) -> bool:
        """Enough of what the question asks, among the words the documents know, is in the best window — and
        enough of the whole question (an unrelated question shares a word or two with any document), or the
        best sentence reads like the question (its similarity reaches `min_similarity`: a question in everyday
        words holds few of the document's words) — and the documents hold every identifier the question
        names."""
        if not self.quotes or self.unknown or self.best_coverage < min_evidence:
            return False
        return self.question_coverage >= min_question_coverage or (
            min_similarity is not None and self.similarity >= min_similarity)

    def answerable(self, min_evidence: float, min_question_coverage: float = 0.0,
                   min_cross: float | None = None, min_similarity: float | None = None) -> bool:
        """The reader's best probability reaches its threshold when the reader read the sentences; else
        `lexical`, or a sentence in the other language whose cross-lingual cosine reaches `min_cross` (None: not
        used)."""
        if not self.quotes or self.unknown:
            return False
        if self.reader_best is not None and self.reader_threshold is not None:
            return self.reader_best >= self.reader_threshold
        return self.lexical(min_evidence, min_question_coverage, min_similarity) or (
            min_cross is not None and 0.0 < self.cross_similarity and self.cross_similarity >= min_cross)


#: A name the question gives one thing by — a version ("2.24.0"), a setting's key ("SQLALCHEMY_DATABASE_URI"), a
#: CVE — is not the asker's own wording: when no document holds it, no document is about that thing. A version
#: inside a name ("HTTP/1.1") is part of that name, not an identifier of its own.
_IDENTIFIER = re.compile(r"(?<![\w./])\d+(?:\.\d+)+(?![\w.]*\d)|\b[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+\b|\bCVE-\d{4}-\d{4,}\b")


def unknown_identifiers(question: str, stats: TermStats, texts: Sequence[str] = ()) -> list[str]:
    """The identifiers of the question (`_IDENTIFIER`) that no indexed chunk holds: neither as an indexed term
    nor written out in one of `texts` (the chunks found), where a version may sit inside a longer form the
    analysis splits differently ("1.26" in "1.26.x", "1.0.2" in "1.0.2k-fips"; never "2.0" in "2.0.1")."""
    unknown: list[str] = []
    written: str | None = None  # the chunks' text, normalised once an identifier is not an indexed term
    for match in _IDENTIFIER.finditer(question):
        terms = analyze(match.group())
        if not terms or stats.df.get(terms[0]):
            continue
        if written is None:
            written = normalize("\n".join(texts)).lower()
        name = normalize(match.group()).lower()
        if written and re.search(rf"(?<![\w.]){re.escape(name)}(?!\d|\.\d|[a-z0-9]*_)", written):
            continue
        unknown.append(match.group())
    return unknown


def content_lines(text: str) -> list[str]:
    """A chunk's lines as quoting weighs them (its sentences: the parser puts one per line); their vectors are
    stored at indexing time in this order."""
    return [line.strip() for line in text.split("\n") if line.strip()]


#: A unit of time read as a rate ("downloads per week", "3 times a day", "requests / minute"): the question asks
#: for a count over that time, not for a duration in it.
_RATE = re.compile(r"(\b(per|a|an|each|every)\s+|/\s*)(seconds?|minutes?|hours?|days?|weeks?|months?|years?)\b", re.I)


#: A quoted or code span of the question ("suppress=[\"days\"]", `max_age`): a literal it names, not a quantity.
_QUOTED = re.compile(r'"[^"]*"|“[^”]*”|`[^`]*`|(?<!\w)\'[^\'\s]*\'')


def asked_units(question: str) -> list[re.Pattern[str]]:
    """Patterns of the quantities a question asks for ("how many seconds" → a number of seconds); quoted and
    code spans are left out (`_QUOTED`)."""
    question = _RATE.sub(" ", _QUOTED.sub(" ", question))
    return [text for asked, text in UNITS if asked.search(question)]


def candidate_sentences(chunks: Sequence[RankedChunk], max_chunks: int = CHUNKS_CONSIDERED) -> list[str]:
    """The sentences `find_evidence` weighs (their embeddings may be passed to it)."""
    return [s for chunk in chunks[:max_chunks] for s in content_lines(chunk.hit.content)
            if len(s) >= MIN_SENTENCE_CHARS]


def other_language(question: str, sentences: Sequence[str]) -> list[str]:
    """The sentences in the other language than the question's (the ones only a cross-lingual model judges)."""
    korean = is_korean(question)
    return [s for s in sentences if is_korean(s) != korean]


def find_evidence(question: str, query: QueryTerms, stats: TermStats, chunks: Sequence[RankedChunk],
                  max_sentences: int = 3, similarity: dict[str, float] | None = None,
                  cross: dict[str, float] | None = None, max_chunks: int = CHUNKS_CONSIDERED,
                  tuned: dict[str, float] | None = None) -> Evidence:
    """Score the sentences of the best chunks and pick the ones to quote (see the module docstring).

    Args:
        similarity: the question's similarity to each candidate sentence on [0, 1] (cosine rescaled for the
            model by `embeddings.rescale_similarity`), when available; it joins the score as one more signal.
        cross: the cross-lingual model's cosine of the question to sentences in the other language; the best
            of those that state the asked-for kind of value is the evidence across languages, and it weighs in
            their score (`CROSS_WEIGHT`), so the sentence the model judged answering is the one quoted.
        max_chunks: how many of the best chunks are weighed (`CHUNKS_CONSIDERED`; more when chunks in the
            other language were added for the cross-lingual model).
        tuned: the cosine of the reader's question vector (`reader.model.QUESTION_MODEL`) to each candidate
            sentence's stored vector: a feature of the reader model only, not of the rules' score.
    """
    wants_number = bool(_QUANTITY.search(question)) or bool(query.numbers)
    korean_question = is_korean(question)
    units = asked_units(question)
    considered = list(chunks[:max_chunks])
    best_relevance = max((c.relevance for c in considered), default=0.0) or 1.0
    candidates: list[Quote] = []
    analysed = [(chunk, content_lines(chunk.hit.content)) for chunk in considered]
    analysed_terms = [[analyze(s) for s in sentences] for _, sentences in analysed]
    factors = local_factors(query, {s: t for (_, sentences), terms in zip(analysed, analysed_terms, strict=True)
                                    for s, t in zip(sentences, terms, strict=True) if len(s) >= MIN_SENTENCE_CHARS})
    for rank, ((chunk, sentences), terms) in enumerate(zip(analysed, analysed_terms, strict=True)):
        for i, sentence in enumerate(sentences):
            if len(sentence) < MIN_SENTENCE_CHARS:
                continue
            own = coverage(query, terms[i], stats, factors=factors)
            around = range(max(0, i - 1), min(len(sentences), i + 2))
            window_terms = [t for j in around for t in terms[j]]
            window = coverage(query, window_terms, stats, known_only=True)
            whole = coverage(query, window_terms, stats)
            score = 0.55 * own + 0.2 * whole + 0.25 * chunk.relevance / best_relevance
            if similarity and sentence in similarity:
                score = (1 - SIMILARITY_WEIGHT) * score + SIMILARITY_WEIGHT * similarity[sentence]
            if chunk.hit.source_kind == "report":
                score *= REPORT_FACTOR  # a sentence the hub quoted into a report: its original comes first
            if not _SENTENCE_END.search(sentence) and len(sentence) < 80 and not HANGUL_SYLLABLE.search(sentence):
                score *= HEADING_PENALTY  # a heading or a table cell names the topic but answers nothing
            if wants_number and _DIGIT.search(sentence):
                score += 0.08
            states_unit = True
            if units:
                window_text = " ".join(sentences[j] for j in range(i, min(len(sentences), i + 2))) \
                    if SENTENCE_TYPE_CHECK else " ".join(sentences[j] for j in around)
                states_unit = all(unit.search(window_text) for unit in units)
                if states_unit:
                    score += 0.1
                else:  # the quantity asked for is not stated here: this window cannot answer
                    window = 0.0
            across = 0.0
            if cross and sentence in cross and states_unit and is_korean(sentence) != korean_question:
                across = cross[sentence]
                score += CROSS_WEIGHT * across
            quote = Quote(sentence, chunk, i, round(score, 4), round(window, 4), round(whole, 4), round(across, 4))
            quote.features = {
                "own": own, "window": window, "whole": whole, "relevance": chunk.relevance / best_relevance,
                "chunk_rank": rank, "position": float(i), "first_line": float(i == 0),
                "similarity": (similarity or {}).get(sentence, 0.0),
                "has_similarity": float(bool(similarity) and sentence in (similarity or {})),
                "neighbour_similarity": max(((similarity or {}).get(sentences[j], 0.0) for j in around if j != i),
                                            default=0.0),
                "cross": cross.get(sentence, 0.0) if cross else 0.0,
                "tuned_similarity": (tuned or {}).get(sentence, 0.0),
                "other_language": float(is_korean(sentence) != korean_question),
                "units_asked": float(bool(units)), "states_unit": float(states_unit),
                "wants_number": float(wants_number), "has_digit": float(bool(_DIGIT.search(sentence))),
                "heading_like": float(not _SENTENCE_END.search(sentence) and len(sentence) < 80),
                "table_row": float(bool(_TABLE_ROW.match(sentence))),
                "length": math.log1p(len(sentence)), "anaphor": float(points_back(sentence)),
                "report": float(chunk.hit.source_kind == "report"), "rule_score": score}
            candidates.append(quote)
    unknown = unknown_identifiers(question, stats, [c.hit.content for c in chunks])
    if not candidates:
        return Evidence([], 0.0, unknown=unknown)
    candidates.sort(key=lambda q: q.score, reverse=True)
    _relative_features(candidates, query, stats, korean_question, bool(unknown))
    best = candidates[0]
    # Candidates are best first, and a report's copy of a sentence scores below the original, so a duplicate
    # dropped here is the report's.
    chosen = pick_followers(candidates, [q.score for q in candidates], max_sentences)
    chosen += antecedents(chosen, candidates)
    chosen.sort(key=lambda q: (q.chunk.hit.storage_ref, q.page or 0, q.chunk.hit.chunk_index, q.position))
    top = candidates[:5]
    return Evidence(chosen, max(c.window_coverage for c in top), max(c.question_coverage for c in top),
                    max(c.cross_similarity for c in candidates), unknown,
                    (similarity or {}).get(best.text, 0.0), candidates)


#: A table row as the parser writes it (`header: value; header: value`).
_TABLE_ROW = re.compile(r"^[^:;]{1,40}: [^;]*; [^:;]{1,40}: ")


def _relative_features(candidates: Sequence[Quote], query: QueryTerms, stats: TermStats, korean_question: bool,
                       unknown: bool) -> None:
    """Add the features that compare a sentence with the others (its rank and gap to the best by each signal)
    and the question's own (how much of it the corpus knows, how long it is) to every candidate's features."""
    salient = [g for g in query.groups if g.salient]
    weights = [group_weight(g, stats) * g.weight for g in salient]
    known = sum(w for g, w in zip(salient, weights, strict=True) if any(stats.df.get(t) for t in g.alternatives))
    question = {"known_share": known / sum(weights) if sum(weights) else 0.0,
                "question_words": math.log1p(len(salient)), "korean_question": float(korean_question),
                "unknown_identifier": float(unknown), "candidates": math.log1p(len(candidates))}
    rows = [c.features for c in candidates]
    for key in RELATIVE_KEYS:
        add_relative(rows, key)
    for row in rows:
        row.update(question)


#: The signals whose rank and gap to the best among the candidates are features of their own.
RELATIVE_KEYS = ("rule_score", "own", "similarity", "cross", "whole", "tuned_similarity")


def add_relative(rows: Sequence[dict[str, float]], key: str) -> None:
    """Add `{key}_gap` (the best value less this one), `{key}_margin` (this one less the best other one) and
    `{key}_rank` (log of 1 + its mean rank: sentences tied share the middle of their places, so a signal every
    sentence lacks — no question word in any — ranks none of them first) to each candidate's features."""
    if not rows:
        return
    values = sorted((r.get(key, 0.0) for r in rows), reverse=True)
    best = values[0]
    second = values[1] if len(values) > 1 else 0.0
    for row in rows:
        value = row.get(key, 0.0)
        higher = sum(1 for v in values if v > value)
        tied = sum(1 for v in values if v == value) - 1
        row[f"{key}_gap"] = best - value
        row[f"{key}_margin"] = value - (second if value >= best else best)
        row[f"{key}_rank"] = math.log1p(higher + tied / 2)


def local_factors(query: QueryTerms, sentence_terms: Mapping[str, Sequence[str]]) -> list[float]:
    """How much each question word tells the candidate sentences apart (one factor per `query.groups` entry):
    1 for a word one sentence holds, less the more of them hold it — the document's topic ("행정절차법",
    "육아휴직"), which every candidate shares, says little about which of them answers; the asked-for detail
    ("공포", "연령") does. An IDF over the candidates, scaled to (0, 1]."""
    held = [set(words) for words in sentence_terms.values()]
    n = len(held)
    factors: list[float] = []
    for group in query.groups:
        df = sum(1 for words in held if any(t in words for t in group.alternatives))
        factors.append(math.log(1 + n / df) / math.log(1 + n) if df and n > 1 else 1.0)
    return factors


#: A sentence that opens by pointing back ("This is used to protect …", "이는 …") says nothing alone.
_ANAPHOR = re.compile(r"^(this|that|these|those|it|they|such|here|there)\b|^(이는|이것은|이러한|그러나|이 경우|이때)",
                      re.I)


def points_back(sentence: str) -> bool:
    """Whether a sentence opens by pointing back ("This is used …", "이는 …"): it needs the one before it."""
    return bool(_ANAPHOR.match(sentence))


def pick_followers(ranked: Sequence[Quote], scores: Sequence[float], max_quotes: int,
                   share: float = FOLLOWER_SHARE) -> list[Quote]:
    """The best of `ranked` (best first, `scores` in the same order) and up to `max_quotes - 1` more scoring at
    least `share` of it, a sentence sharing most of its words with one already chosen left out (the
    same sentence, or a copy quoting it)."""
    chosen = [ranked[0]]
    seen = [words(ranked[0].text)]
    for quote, score in zip(ranked[1:], scores[1:], strict=True):
        if len(chosen) == max_quotes or score < share * scores[0]:
            break
        these = words(quote.text)
        if any(len(these & other) >= DUPLICATE_SHARE * min(len(these), len(other)) for other in seen):
            continue
        seen.append(these)
        chosen.append(quote)
    return chosen


def antecedents(chosen: Sequence[Quote], candidates: Sequence[Quote]) -> list[Quote]:
    """The sentence before each chosen one that opens by pointing back, from the same chunk, so the quote reads
    whole ("ItsDangerous securely signs data … This is used to protect Flask's session cookie.")."""
    have = {(q.chunk.key, q.position) for q in chosen}
    by_place = {(c.chunk.key, c.position): c for c in candidates}
    added: list[Quote] = []
    for quote in chosen:
        place = (quote.chunk.key, quote.position - 1)
        if quote.position == 0 or place in have or not points_back(quote.text):
            continue
        before = by_place.get(place)
        if before is None:  # too short to be a candidate (a heading): not a subject
            continue
        have.add(place)
        added.append(before)
    return added


def words(text: str) -> set[str]:
    """The lower-cased words of a sentence (two quotes sharing most of them are one sentence quoted twice)."""
    return set(re.findall(r"\w+", text.lower()))
