"""The reader model: a small network over what is known of each candidate sentence, trained by the project.

Each sentence the search's best chunks hold comes with its features (`answer_extraction.find_evidence`): the
multilingual-e5-small cosine of the question to it and to its neighbours, the cross-lingual model's cosine for a
sentence in the other language, the question words it and its window hold (IDF-weighted, over the corpus and
over the candidates), its chunk's relevance and rank, whether it states the kind of value asked for, its shape
(heading, table row, a sentence pointing back), its rank and gap to the best by each signal, and what the corpus
knows of the question. The ranker maps them to the probability that this sentence states the answer; the
answerability model (`answer`) reads the best sentence's own values and the ranker's logit and decides whether
the documents answer (`threshold`, chosen on writers it was not trained on; `ai_llm/evals/reader/training.py`).

The shipped file (`reader_model.json`, a few kilobytes) holds both models' feature order, standardisation and
weights, the threshold and the uncertain band; scoring is a few NumPy matrix products (microseconds for the ~50
candidates of a question), so it runs in the agent's process. The question encoder whose cosine it reads is
served by the embedding server (`multilingual-e5-small-reader`).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

log = logging.getLogger(__name__)

MODEL_PATH = Path(__file__).with_name("reader_model.json")

#: The features the model reads, in order (`answer_extraction.find_evidence` computes them).
FEATURES: tuple[str, ...] = (
    "own", "window", "whole", "relevance", "chunk_rank", "position", "first_line", "similarity", "has_similarity",
    "neighbour_similarity", "cross", "other_language", "units_asked", "states_unit", "wants_number", "has_digit",
    "heading_like", "table_row", "length", "anaphor", "report", "rule_score",
    "rule_score_gap", "rule_score_margin", "rule_score_rank", "own_gap", "own_margin", "own_rank",
    "similarity_gap", "similarity_margin", "similarity_rank", "cross_gap", "cross_margin", "cross_rank",
    "whole_gap", "whole_margin", "whole_rank",
    "tuned_similarity", "tuned_similarity_gap", "tuned_similarity_margin", "tuned_similarity_rank",
    "known_share", "question_words", "korean_question", "unknown_identifier", "candidates")


@dataclass
class ReaderModel:
    """Standardised features → hidden layers (ReLU) → one logit → probability."""

    features: tuple[str, ...]
    mean: np.ndarray
    scale: np.ndarray
    layers: list[tuple[np.ndarray, np.ndarray]]
    threshold: float
    band: tuple[float, float]  # probabilities in [low, high) are uncertain: a connected model's judgement decides
    design: str = "logistic"
    meta: dict[str, Any] = field(default_factory=dict)
    #: The answerability model: over the best sentence's own values and the ranker's logit (`answer_row`), the
    #: probability that the documents answer; its `threshold` and `band` decide. None: the ranker's best
    #: probability decides.
    answer: ReaderModel | None = None

    @property
    def reads_question_encoder(self) -> bool:
        """Whether the model reads the fine-tuned question encoder's cosines (`tuned_similarity`)."""
        return "tuned_similarity" in self.features

    @property
    def null_cosine(self) -> float:
        """The question encoder's learned "none of them" cosine: its cosines are read less this."""
        return float(self.meta.get("null_cosine", 0.0))

    def matrix(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        return np.asarray([[float(r.get(name, 0.0)) for name in self.features] for r in rows], dtype=np.float64)

    def predict(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        """The probability, for each feature row, that its sentence states the answer."""
        if not rows:
            return np.zeros(0)
        return self.predict_matrix(self.matrix(rows))

    def predict_matrix(self, x: np.ndarray) -> np.ndarray:
        h = (x - self.mean) / self.scale
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return 1.0 / (1.0 + np.exp(-np.clip(h[:, 0], -40, 40)))

    def to_dict(self) -> dict[str, Any]:
        def rounded(a: np.ndarray) -> Any:
            return np.round(a.astype(np.float64), 6).tolist()

        data = {"design": self.design, "features": list(self.features), "mean": rounded(self.mean),
                "scale": rounded(self.scale), "layers": [[rounded(w), rounded(b)] for w, b in self.layers],
                "threshold": round(self.threshold, 4), "band": [round(v, 4) for v in self.band], "meta": self.meta}
        if self.answer is not None:
            data["answer"] = self.answer.to_dict()
        return data

    def answerability(self, best: Mapping[str, float], logits: Sequence[float]) -> float:
        """The probability that the documents answer, from the best sentence's features and the ranker's logits
        of the candidates (best first); the ranker's best probability without an answerability model."""
        if self.answer is None:
            return float(1.0 / (1.0 + np.exp(-logits[0])))
        return float(self.answer.predict([answer_row(best, logits)])[0])

    def logits(self, rows: Sequence[Mapping[str, float]]) -> np.ndarray:
        p = np.clip(self.predict(rows), 1e-9, 1 - 1e-9)
        return np.log(p / (1 - p))

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> ReaderModel:
        return cls(features=tuple(data["features"]), mean=np.asarray(data["mean"], dtype=np.float64),
                   scale=np.asarray(data["scale"], dtype=np.float64),
                   layers=[(np.asarray(w, dtype=np.float64), np.asarray(b, dtype=np.float64))
                           for w, b in data["layers"]],
                   threshold=float(data["threshold"]), band=(float(data["band"][0]), float(data["band"][1])),
                   design=str(data.get("design", "logistic")), meta=dict(data.get("meta") or {}),
                   answer=cls.from_dict(data["answer"]) if data.get("answer") else None)

    def save(self, path: Path = MODEL_PATH) -> None:
        path.write_text(json.dumps(self.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n",
                        encoding="utf-8")


#: What the answerability model reads: the best sentence's own values (no rank among the candidates: the best
#: sentence always ranks first, answerable or not) and the ranker's logit for it and the margin to the next.
ANSWER_FEATURES: tuple[str, ...] = (
    "ranker_logit", "ranker_margin", "tuned_similarity", "similarity", "neighbour_similarity", "own", "window",
    "whole", "cross", "other_language", "states_unit", "known_share", "unknown_identifier", "relevance")


def answer_row(best: Mapping[str, float], logits: Sequence[float]) -> dict[str, float]:
    """The answerability model's input: the best sentence's features with the ranker's logits (best first)."""
    row = {name: float(best.get(name, 0.0)) for name in ANSWER_FEATURES}
    row["ranker_logit"] = float(logits[0])
    row["ranker_margin"] = float(logits[0] - logits[1]) if len(logits) > 1 else 10.0
    return row


@functools.lru_cache(maxsize=4)
def load_model(path: Path = MODEL_PATH) -> ReaderModel | None:
    """The shipped reader, or None when its file is missing or unreadable (the rules decide then)."""
    try:
        model = ReaderModel.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (ValueError, KeyError, TypeError) as exc:
        log.warning("reader model %s unreadable, answering by the rules: %s", path, exc)
        return None
    missing = [name for name in model.features if name not in FEATURES]
    if model.answer is not None:
        missing += [name for name in model.answer.features if name not in ANSWER_FEATURES]
    if missing:
        log.warning("reader model %s reads unknown features %s, answering by the rules", path, missing)
        return None
    return model
