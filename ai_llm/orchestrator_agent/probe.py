"""What the person's documents hold about a request: a cheap probe of their own index before planning.

The catalog (`catalog.py`) knows each document's name, title and key terms; a question about a fact deep in a
document ("What is the launch code of Project Falcon?") names none of them. The probe asks the index itself:
the request's telling terms (analysed as the index analyses chunks, with their English / Korean
equivalents; weighed by how rare each is in requests, `IntentModel.term_weight`) against the chunks this
viewer may read (`internal_rag_agent.catalog.probe_chunks`: one SQL statement over the full-text index, no
model, a few milliseconds). The best chunk's matched weight and its share of the request's weight
(`coverage`) say whether the documents hold what the request asks about; the planner reads them
(`planner.OfflineClassifier`, rule 3).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import Any

from ai_llm.common.degraded import add_degraded
from ai_llm.common.identity import Viewer
from ai_llm.common.store.db import Database
from ai_llm.common.text.analysis import analyze_query
from ai_llm.orchestrator_agent.intent_model import IntentModel, load_model

log = logging.getLogger(__name__)

#: A term at most this common in requests (its `term_weight`, an IDF over the intent model's training
#: messages) says nothing about a document ("what", "알려", "policy" …) and is not probed.
MIN_TERM_WEIGHT = 3.0
#: Terms probed at most (the rarest first), so one long request cannot make the statement heavy.
MAX_TERMS = 12
#: How long the probe may take before planning goes on without it.
TIMEOUT_S = 1.0


@dataclass
class ProbeMatch:
    """The best chunk of the person's documents for a request, and how much of the request it holds."""

    score: float = 0.0  # the matched terms' summed weight
    coverage: float = 0.0  # that weight over the weight of every probed term of the request
    file_name: str = ""
    storage_ref: str = ""
    terms: list[str] = field(default_factory=list)  # the request's terms the chunk holds
    probed: int = 0  # how many terms were probed
    elapsed_ms: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        return {"score": round(self.score, 3), "coverage": round(self.coverage, 3), "file_name": self.file_name,
                "terms": self.terms, "probed": self.probed, "elapsed_ms": round(self.elapsed_ms, 1)}


def probe_terms(text: str, model: IntentModel) -> list[tuple[str, list[str], float]]:
    """The request's telling terms: (term, its forms in the index's analysis, weight), rarest first."""
    out: list[tuple[str, list[str], float]] = []
    for group in analyze_query(text, expand_similar=False).groups:
        weight = model.term_weight(group.base)
        if not group.salient or len(group.base) < 2 or weight < MIN_TERM_WEIGHT:
            continue
        out.append((group.base, list(dict.fromkeys([group.base, *group.alternatives])), weight))
    out.sort(key=lambda item: -item[2])
    return out[:MAX_TERMS]


class DocumentProbe:
    """Probes the index of the hub's database for one viewer at a time.

    Args:
        open_db: returns the open hub database (opened on first use; `HubDeps.open_db` in the hub).
        model: the intent model whose term weights rank the request's terms (the shipped one by default).
        timeout_s: the probe's limit; past it, or on a database error, planning goes on without it. Opening
            the database (the first probe's, or `start`'s) goes on in the background past it.
    """

    def __init__(self, open_db: Callable[[], Coroutine[Any, Any, Database]], model: IntentModel | None = None,
                 timeout_s: float = TIMEOUT_S) -> None:
        self._open_db = open_db
        self._model = model
        self.timeout_s = timeout_s
        self._opening: asyncio.Task[Database] | None = None

    def start(self) -> None:
        """Begin opening the database (in the background) so that the first request finds it open."""
        if self._opening is None:
            self._opening = asyncio.create_task(self._open_db(), name="document-probe-db")

    async def _database(self) -> Database | None:
        """The open database, or None while it is still opening after `timeout_s`."""
        self.start()
        opening = self._opening
        assert opening is not None
        if not opening.done():
            await asyncio.wait({opening}, timeout=self.timeout_s)
            if not opening.done():
                return None
        if opening.exception() is not None:
            self._opening = None  # the next request tries again
            raise RuntimeError(f"the database did not open: {opening.exception()}")
        return opening.result()

    @property
    def model(self) -> IntentModel:
        if self._model is None:
            self._model = load_model()
        return self._model

    async def probe(self, text: str, viewer: Viewer) -> ProbeMatch | None:
        """The best chunk `viewer` may read for `text` (an empty match when none holds a probed term); None
        when the index could not be asked (the note `document probe` is added to the answer's degradations)."""
        from ai_llm.internal_rag_agent.catalog import probe_chunks

        started = time.perf_counter()
        terms = await asyncio.to_thread(probe_terms, text, self.model)
        if not terms:
            return ProbeMatch(elapsed_ms=(time.perf_counter() - started) * 1000)
        forms = [form for _, group_forms, _ in terms for form in group_forms]
        groups = [i for i, (_, group_forms, _) in enumerate(terms) for _ in group_forms]
        weights = [weight for _, group_forms, weight in terms for _ in group_forms]
        try:
            db = await self._database()
            if db is None:
                add_degraded(["document probe"])
                return None
            async with asyncio.timeout(self.timeout_s):
                rows = await probe_chunks(db, forms, groups, weights, viewer, limit=1)
        except Exception as exc:  # any failure of the database: plan without the probe
            log.warning("document probe failed, planning without it: %s", exc)
            add_degraded(["document probe"])
            return None
        elapsed = (time.perf_counter() - started) * 1000
        total = sum(weight for _, _, weight in terms)
        if not rows:
            return ProbeMatch(probed=len(terms), elapsed_ms=elapsed)
        best = rows[0]
        matched = [terms[i][0] for i in best.get("matched") or [] if 0 <= i < len(terms)]
        score = float(best.get("score") or 0.0)
        return ProbeMatch(score, score / total if total else 0.0, str(best.get("file_name") or ""),
                          str(best.get("storage_ref") or ""), matched, len(terms), elapsed)
