"""The shipped intent model is what its listed development sets train, and training is deterministic."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ai_llm.orchestrator_agent.intent_model import TRAINING_SETS, load_model, load_rows, train_model

HOLDOUTS = sorted((Path(__file__).resolve().parents[2] / "benchmarks" / "data").glob("intent_holdout*.jsonl"))


def test_the_shipped_model_is_reproduced_from_its_training_sets() -> None:
    rows = load_rows(TRAINING_SETS)
    fresh = train_model(rows)
    shipped = load_model()
    assert fresh.classes == shipped.classes and fresh.n_messages == shipped.n_messages == len(rows)
    probe = [r["message"] for r in rows[::25]]
    for message in probe:  # the file stores float16 weights: same decisions, probabilities within 0.02
        a, b = fresh.probabilities(message), shipped.probabilities(message)
        assert max(a, key=a.get) == max(b, key=b.get), message
        assert np.allclose([a[c] for c in fresh.classes], [b[c] for c in fresh.classes], atol=0.02), message


def test_the_newest_holdout_is_not_trained_on() -> None:
    """A holdout becomes training data only after it was reported once (benchmarks/data/README.md); the newest
    one is never among the training sets."""
    newest = max(HOLDOUTS, key=lambda p: (len(p.stem), p.stem))
    assert newest.resolve() not in {p.resolve() for p in TRAINING_SETS}
