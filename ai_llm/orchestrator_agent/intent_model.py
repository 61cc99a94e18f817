"""The learned offline intent model: a multinomial logistic regression over hashed features.

Features of a message (`features`): character 1–4-grams of the normalised, lower-cased text (word-bounded,
so Korean works without spacing rules) and the shared analysis' terms (`text_analysis.analyze`: English
stems, Kiwi Korean morphemes) as `t:` features, hashed into `N_FEATURES` buckets (`HashingVectorizer`: no
vocabulary to ship). The shipped file (`intent_model.npz`) holds only the weights of buckets seen in training,
the classes, and the document frequency of analysed terms over the training messages (the background that
weighs catalog matches: a word common in requests, such as "what" or "알려", says little about a document).

Training is deterministic (`train_model`; `python -m ai_llm.orchestrator_agent.intent_model` retrains and
writes the file) and uses only development data (`TRAINING_SETS`, package data in `intent_training/` beside this
module; its README says where each set comes from): `intent_dev.jsonl` and `intent_test.jsonl` (the first blind
set's two splits), `intent_eval.jsonl`, `intent_holdout.jsonl` and `intent_holdout2.jsonl` (blind holdouts, each
reported once before it became development data), `intent_dev2.jsonl` (a blind development set rich in DIRECT
requests) and `intent_dev0.jsonl` (the first development set, committed with the planner). The sets the model
is not trained on stay in `benchmarks/data/`: the newest blind holdout (`intent_holdout3.jsonl`), never read here
(a test checks it), and `intent_owndocs_dev.jsonl`. Model card: `docs/models/intent.md`.
"""

from __future__ import annotations

import functools
import json
import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ai_llm.common.text import normalize
from ai_llm.common.text.analysis import analyze

MODEL_PATH = Path(__file__).with_name("intent_model.npz")
#: The training sets' folder (package data): development data only, never a blind holdout.
TRAINING_DIR = Path(__file__).with_name("intent_training")
#: In training order (the fit is deterministic for a given order).
TRAINING_SETS = tuple(TRAINING_DIR / name for name in (
    "intent_dev.jsonl", "intent_test.jsonl", "intent_eval.jsonl", "intent_holdout.jsonl", "intent_holdout2.jsonl",
    "intent_dev2.jsonl", "intent_dev0.jsonl"))
N_FEATURES = 2**18
NGRAMS = (1, 4)
#: Inverse regularisation strength of the logistic regression (chosen by cross-validation on the dev split).
C = 30.0


def features(text: str) -> list[str]:
    """The message's hashed-feature names: word-bounded character n-grams and `t:`-prefixed analysed terms."""
    return list(_features(text))


@functools.lru_cache(maxsize=4096)
def _features(text: str) -> tuple[str, ...]:
    low = normalize(text).lower()
    grams: list[str] = []
    for word in low.split():
        padded = f" {word} "
        for n in range(NGRAMS[0], NGRAMS[1] + 1):
            grams.extend(padded[i:i + n] for i in range(max(len(padded) - n + 1, 0)))
    terms = analyze(text, compounds=False)
    grams.extend(f"t:{term}" for term in terms)
    grams.extend(f"b:{a}_{b}" for a, b in zip(terms, terms[1:], strict=False))
    return tuple(grams)


def _vectorizer() -> Any:
    from sklearn.feature_extraction.text import HashingVectorizer

    return HashingVectorizer(analyzer=features, n_features=N_FEATURES, alternate_sign=False, norm="l2")


def load_rows(paths: Sequence[Path] = TRAINING_SETS) -> list[dict[str, str]]:
    """The labelled messages of the training sets (message, intent), in file order."""
    rows = []
    for path in paths:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                item = json.loads(line)
                rows.append({"message": item["message"], "intent": item["intent"]})
    return rows


@dataclass
class IntentModel:
    """Weights of the trained model (`coef` over all `N_FEATURES` buckets, zero where unseen)."""

    classes: list[str]
    coef: np.ndarray  # (n_classes, N_FEATURES), float32
    intercept: np.ndarray  # (n_classes,)
    term_df: dict[str, int]
    n_messages: int

    def probabilities(self, text: str) -> dict[str, float]:
        """P(intent | message) for every class."""
        x = _vectorizer().transform([text])
        # Only the message's few hundred buckets: `x @ coef.T` made scipy copy the whole (classes × 2^18)
        # transposed matrix on every call (≈ 6 ms per message, 13 % of the orchestrator's CPU under load).
        logits = self.coef[:, x.indices] @ x.data + self.intercept
        logits = logits - logits.max()
        p = np.exp(logits)
        p /= p.sum()
        return {label: float(v) for label, v in zip(self.classes, p, strict=True)}

    def term_weight(self, term: str) -> float:
        """IDF of an analysed term over the training messages (high: rare in requests, telling)."""
        return math.log((self.n_messages + 1) / (self.term_df.get(term, 0) + 1))

    def save(self, path: Path = MODEL_PATH) -> None:
        used = np.flatnonzero(np.any(self.coef != 0, axis=0)).astype(np.int32)
        terms = sorted(self.term_df)
        np.savez_compressed(path, classes=np.array(self.classes), indices=used,
                            weights=self.coef[:, used].astype(np.float16), intercept=self.intercept.astype(np.float32),
                            terms=np.array(terms), dfs=np.array([self.term_df[t] for t in terms], dtype=np.int32),
                            n_messages=np.array(self.n_messages))


def train_model(rows: Sequence[dict[str, str]], c: float = C) -> IntentModel:
    """Fit the model on labelled rows (deterministic: lbfgs from zeros, rows in the given order)."""
    from sklearn.linear_model import LogisticRegression

    x = _vectorizer().transform([r["message"] for r in rows])
    y = [r["intent"] for r in rows]
    clf = LogisticRegression(C=c, max_iter=5000, class_weight="balanced")
    clf.fit(x, y)
    df: Counter[str] = Counter()
    for row in rows:
        df.update(set(analyze(row["message"], compounds=False)))
    coef = np.asarray(clf.coef_, dtype=np.float32)
    coef[np.abs(coef) < 1e-4] = 0.0  # buckets never seen stay exactly zero; near-zero ones are dropped
    return IntentModel([str(c_) for c_ in clf.classes_], coef, np.asarray(clf.intercept_, dtype=np.float32),
                       {t: n for t, n in df.items() if n >= 2}, len(rows))


@functools.cache
def load_model(path: Path = MODEL_PATH) -> IntentModel:
    """The shipped model (read once per process)."""
    with np.load(path) as data:
        classes = [str(c) for c in data["classes"]]
        coef = np.zeros((len(classes), N_FEATURES), dtype=np.float32)
        coef[:, data["indices"]] = data["weights"].astype(np.float32)
        term_df = {str(t): int(n) for t, n in zip(data["terms"], data["dfs"], strict=True)}
        return IntentModel(classes, coef, data["intercept"].astype(np.float32), term_df, int(data["n_messages"]))


def train_and_save(path: Path = MODEL_PATH, sets: Sequence[Path] = TRAINING_SETS) -> dict[str, Any]:
    """`hub train intent`: train on the development sets and write the model file; returns a summary."""
    rows = load_rows(sets)
    model = train_model(rows)
    model.save(path)
    return {"path": str(path), "messages": len(rows), "classes": model.classes,
            "buckets": int(np.count_nonzero(np.any(model.coef != 0, axis=0))), "bytes": path.stat().st_size,
            "sets": [str(p) for p in sets]}


if __name__ == "__main__":  # `python -m ai_llm.orchestrator_agent.intent_model`: retrain and write the file
    print(json.dumps(train_and_save(), indent=1))
