"""`hub train reader`: collect the candidate sentences of the development sets, train the reader, choose its
threshold on writers it was not trained on, and write `reader_model.json`.

Data (development only; `DEV_SETS`). Each set is a folder of documents and a QA file by one blind writer.
Every question is asked through the agent with the rules deciding (`RAG_READER=false`, offline); the sentences
the evidence step weighed (`Evidence.candidates`, with their features) are kept, each labelled positive when it
is the writer's evidence sentence (`evidence_shown`, either way round: a sentence the parser cut in two is half
of it). Near-miss questions (`answer: null`) give only negatives. An answerable question none of whose
candidates is its evidence (retrieval missed it) trains nothing, but counts in the threshold's figures.

Designs (`DESIGNS`): a logistic regression and a one-hidden-layer network over the same standardised
features. Each is scored by leave-one-writer-out cross-validation — every writer's questions scored by a model
trained on the other writers only (ADR 0013: a classifier learns its writers' habits) — on the share of
answerable questions whose best sentence is the evidence (`top1`), and the no-answer curve of its best score.
The better design (by `top1` + no-answer at the chosen threshold) is trained on every writer and shipped; its
threshold is the one chosen on the cross-validated scores: the highest near-miss no-answer whose false
no-result stays within `MAX_FALSE_NO_RESULT`.

Collected candidates are cached under `.data/reader/` by set and `COLLECT_VERSION` (a cache only saves time:
without it the command collects again). Training is seeded and deterministic.
"""

from __future__ import annotations

import asyncio
import gzip
import json
import logging
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from ai_llm.internal_rag_agent.agent import RagAgent

from ai_llm.common.settings import PROJECT_ROOT, Settings
from ai_llm.evals.sets.build import resolve_docs, set_folder_of
from ai_llm.internal_rag_agent.reader.model import (
    ANSWER_FEATURES,
    FEATURES,
    MODEL_PATH,
    ReaderModel,
    answer_row,
)
from ai_llm.internal_rag_agent.reader.reading import MIN_CROSS

log = logging.getLogger(__name__)

DATA = PROJECT_ROOT / "benchmarks" / "data"
SHARED_PDFS = PROJECT_ROOT.parent / "shared" / "eval-data" / "pdfs"
CACHE = PROJECT_ROOT / ".data" / "reader"
#: Bumped when the candidates' features change (the cache of an older version is collected again).
COLLECT_VERSION = "1"
SEED = 13
#: The threshold keeps false no-result (answerable questions answered "not found") within this share.
MAX_FALSE_NO_RESULT = 0.1


@dataclass(frozen=True)
class DevSet:
    """One writer's questions over one folder of documents."""

    name: str
    writer: str
    qa: tuple[Path, ...]
    docs: Path


def _set(name: str, qa: Sequence[str], docs: Path, writer: str | None = None) -> DevSet:
    return DevSet(name, writer or name, tuple(DATA / q for q in qa), docs)


#: Development sets only: every holdout listed here has been reported and became development data
#: (benchmarks/data/README.md). `rag_qa.jsonl` was written with the code in view and is left out.
DEV_SETS: tuple[DevSet, ...] = (
    _set("shared_pdfs_1", ["rag_dev.jsonl", "rag_test.jsonl"], SHARED_PDFS),
    _set("shared_pdfs_2", ["rag_dev5.jsonl"], SHARED_PDFS),
    _set("shared_pdfs_3", ["rag_holdout.jsonl"], SHARED_PDFS),
    _set("shared_pdfs_4", ["rag_holdout4.jsonl"], SHARED_PDFS),
    _set("newdocs_dev", ["rag_newdocs_dev.jsonl"], DATA / "newdocs_dev" / "docs"),
    _set("newdocs_holdout", ["rag_newdocs_holdout.jsonl"], DATA / "newdocs_holdout" / "docs"),
    _set("formats_dev", ["rag_formats_dev.jsonl"], DATA / "formats_dev" / "docs"),
    _set("formats_dev_ko", ["rag_formats_dev_ko.jsonl"], DATA / "formats_dev_ko" / "docs"),
    *(_set(f"formats_holdout{n}", [f"rag_formats_holdout{n}.jsonl"], DATA / f"formats_holdout{n}" / "docs")
      for n in ("", "2", "3", "4", "5", "6", "7")),
    _set("reader_ko", ["reader_ko/rag_reader_ko.jsonl"], DATA / "reader_ko" / "docs"),
    _set("reader_en", ["reader_en/rag_reader_en.jsonl"], DATA / "reader_en" / "docs"),
)


HOTPOTQA = PROJECT_ROOT.parent / "shared" / "eval-data" / "hotpotqa" / "dev_distractor_300.jsonl"
#: HotpotQA's first questions train the reader; the rest stay the web evaluation's test half (`hub eval web`).
HOTPOTQA_TRAIN = 150


def hotpotqa_set(source: Path = HOTPOTQA, n: int = HOTPOTQA_TRAIN, root: Path | None = None) -> DevSet:
    """The first `n` HotpotQA questions as a development set: each context paragraph one Markdown document
    (its title the heading, one sentence a line), each question's evidence its supporting sentences that
    state the answer (all of them where none does; `evidence_all`). Written into the cache (the shared file is read, never copied in)."""
    root = root or CACHE / f"hotpotqa_{n}"
    docs = root / "docs"
    qa = root / "qa.jsonl"
    if source.is_file() and not qa.is_file():
        docs.mkdir(parents=True, exist_ok=True)
        lines = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()][:n]
        names: dict[str, str] = {}
        items = []
        for row in lines:
            paragraphs = {title: [s.strip() for s in sentences] for title, sentences in row["context"]}
            for title, sentences in paragraphs.items():
                if title not in names:
                    names[title] = f"{len(names):04d}_" + "".join(ch if ch.isalnum() else "_" for ch in title)[:60] + ".md"
                    (docs / names[title]).write_text(f"# {title}\n\n" + "\n".join(sentences) + "\n", encoding="utf-8")
            support = [paragraphs[t][i] for t, i in row["supporting_facts"]
                       if t in paragraphs and i < len(paragraphs[t])]
            # The supporting sentences that state the answer, where any does (the other hop only leads there).
            support = [x for x in support if row["answer"].lower() in x.lower()] or support
            items.append({"id": row["id"], "file": names[row["supporting_facts"][0][0]], "question": row["question"],
                          "answer": row["answer"], "pages": [], "evidence": support[0] if support else None,
                          "evidence_all": support, "kind": "hotpotqa", "lang": "en"})
        qa.write_text("".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8")
    return DevSet("hotpotqa", "hotpotqa", (qa,), docs)


def off_corpus_set(source: Path = DATA / "web_noanswer_dev.jsonl", docs: Path = DATA / "newdocs_dev" / "docs",
                   root: Path | None = None) -> DevSet:
    """Questions no indexed document is about, as near misses over one document folder: the blind web no-answer
    development set's questions (everyday requests and facts about HotpotQA's entities) asked of the newdocs
    development documents (Click, Jinja, attrs, the constitution). The reader meets such questions in a hub whose
    documents are about other things; the development sets' near misses are all on their documents' topics."""
    root = root or CACHE / "off_corpus"
    qa = root / "qa.jsonl"
    if source.is_file() and not qa.is_file():
        root.mkdir(parents=True, exist_ok=True)
        rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
        qa.write_text("".join(json.dumps({"id": r["id"], "question": r["question"], "answer": None, "pages": [],
                                          "kind": f"off_corpus_{r.get('kind', '')}", "lang": r.get("language")},
                                         ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return DevSet("off_corpus", "web_noanswer_dev", (qa,), docs)


def positive(evidence: str | None, sentence: str) -> bool:
    """Whether a candidate sentence is the writer's evidence sentence (or half of it, cut by the parser)."""
    from ai_llm.evals.rag.evaluation import evidence_shown, normalize_span

    if not evidence:
        return False
    if evidence_shown(evidence, sentence):
        return True
    part = normalize_span(sentence)
    return len(part) >= 25 and part in normalize_span(evidence)


# --- collection -----------------------------------------------------------------------------------------
async def collect_items(agent: RagAgent, items: Sequence[dict[str, Any]], name: str,
                        writer: str) -> list[dict[str, Any]]:
    """Ask each QA item through `agent` and keep the candidate sentences its evidence step weighed, labelled
    against the item's evidence sentence, with the rules' own decision beside them."""
    from ai_llm.common.a2a.server import AgentRequest
    from ai_llm.evals.rag.evaluation import evidence_shown

    rows: list[dict[str, Any]] = []
    for item in items:
        data: dict[str, Any] = {"language": "ko"}
        if item.get("history"):
            data["history"] = item["history"]
        state = await agent.run_state(AgentRequest(text=item["question"], data=data))
        evidence = state.get("evidence")
        reply = state["reply"]
        gold = item.get("evidence") if item.get("answer") is not None else None
        golds = (item.get("evidence_all") or [gold]) if gold else []
        candidates = evidence.candidates if evidence is not None else []
        rows.append({
            "set": name, "writer": writer, "id": item["id"], "kind": item.get("kind") or "",
            "question": item["question"], "answerable": item.get("answer") is not None, "has_evidence": bool(gold),
            "rule_answerable": reply.data.get("status") == "ok",
            "rule_shown": bool(gold) and evidence_shown(str(gold), reply.text),
            "candidates": [{"text": c.text, "file": c.chunk.hit.file_name,
                            "positive": any(positive(g, c.text) for g in golds),
                            "features": {k: round(float(v), 5) for k, v in c.features.items()}}
                           for c in candidates]})
    return rows


async def collect_set(base: Settings, dev: DevSet, limit: int = 0) -> list[dict[str, Any]]:
    """Index `dev`'s documents in a temporary stack and collect its questions (rules deciding, offline)."""
    from ai_llm.evals.rag.evaluation import index_directory, load_qa, rag_environment, spread

    items = spread([item for path in dev.qa for item in load_qa(path)], limit)
    settings = base.model_copy(update={"rag_reader": False, "openai_api_key": None, "openai_base_url": None})
    async with rag_environment(settings) as env:
        await index_directory(env.agent, resolve_docs(dev.docs))
        return await collect_items(env.agent, items, dev.name, dev.writer)


def cache_path(dev: DevSet) -> Path:
    return CACHE / f"{dev.name}.v{COLLECT_VERSION}.jsonl.gz"


def load_or_collect(base: Settings, sets: Sequence[DevSet], recollect: bool = False,
                    echo: Any = print) -> list[dict[str, Any]]:
    """Every set's collected rows, from the cache where it holds them."""
    rows: list[dict[str, Any]] = []
    for dev in sets:
        if not all(p.is_file() for p in dev.qa) or not (dev.docs.exists() or set_folder_of(dev.docs)):
            echo(f"skipped {dev.name}: its questions or documents are missing")
            continue
        path = cache_path(dev)
        if path.is_file() and not recollect:
            with gzip.open(path, "rt", encoding="utf-8") as f:
                got = [json.loads(line) for line in f if line.strip()]
        else:
            started = time.perf_counter()
            got = asyncio.run(collect_set(base, dev))
            path.parent.mkdir(parents=True, exist_ok=True)
            with gzip.open(path, "wt", encoding="utf-8") as f:
                f.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in got)
            echo(f"collected {dev.name}: {len(got)} questions in {time.perf_counter() - started:.0f} s")
        rows.extend(got)
    # The relative features are computed again from each candidate's own values, as `find_evidence` computes
    # them now (a cache written by an older formula stays usable).
    from ai_llm.internal_rag_agent.answer_extraction import RELATIVE_KEYS, add_relative

    for row in rows:
        for key in RELATIVE_KEYS:
            add_relative([c["features"] for c in row["candidates"]], key)
    return rows


# --- training -------------------------------------------------------------------------------------------
#: Features that describe only the question's style, not what a sentence holds of it. ADR 0013 found a learned
#: answerability classifier leaning on one ("asks for a quantity"): it learned that near-miss writers ask for
#: numbers. No design reads them.
QUESTION_STYLE = ("wants_number", "units_asked", "question_words", "korean_question", "candidates")
TUNED = ("tuned_similarity", "tuned_similarity_gap", "tuned_similarity_margin", "tuned_similarity_rank")
CONTENT_FEATURES = tuple(f for f in FEATURES if f not in QUESTION_STYLE and f not in TUNED)

#: The designs compared: a logistic regression over what the rules weigh (their words, e5's base cosine, the
#: cross-lingual cosine, the sentence's shape); the same with the fine-tuned question encoder's cosine
#: (`encoder`); and that cosine alone with its rank and gap.
#: The rules' quote weights (`find_evidence`'s score of a sentence and its rank and gap): taken out of the
#: design with the encoder, the writer-disjoint top-1 stayed within its bootstrap interval and no-answer rose at
#: the chosen threshold (`hub train reader --ablate`), so `encoder_without_quote_weights` does without them.
QUOTE_WEIGHTS = ("rule_score", "rule_score_gap", "rule_score_margin", "rule_score_rank")
DESIGNS: dict[str, dict[str, Any]] = {
    "features": {"features": CONTENT_FEATURES, "encoder": False},
    "features_and_encoder": {"features": (*CONTENT_FEATURES, *TUNED), "encoder": True},
    "encoder_without_quote_weights": {
        "features": (*(f for f in CONTENT_FEATURES if f not in QUOTE_WEIGHTS), *TUNED), "encoder": True},
    "encoder": {"features": (*TUNED, "unknown_identifier"), "encoder": True},
}
#: L2 strength of the logistic regression (inverse of scikit-learn's C, per training sentence).
ALPHA = 1e-3
#: Writer folds of the question encoder's cross-validation (each fold's questions get a cosine from an encoder
#: trained on the other folds' writers only).
ENCODER_FOLDS = 4


def _matrix(rows: Sequence[dict[str, Any]], names: Sequence[str] = FEATURES
            ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Candidate features (`names`), labels and item index (one row per candidate)."""
    xs, ys, owners = [], [], []
    for i, row in enumerate(rows):
        for c in row["candidates"]:
            xs.append([float(c["features"].get(name, 0.0)) for name in names])
            ys.append(1.0 if c["positive"] else 0.0)
            owners.append(i)
    return (np.asarray(xs, dtype=np.float64).reshape(-1, len(names)), np.asarray(ys), np.asarray(owners))


def trainable(rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The rows a model learns from: near misses (all negative) and answerable questions whose evidence is
    among the candidates."""
    return [r for r in rows if r["candidates"] and (not r["answerable"] or any(c["positive"]
                                                                               for c in r["candidates"]))]


def fit(rows: Sequence[dict[str, Any]], design: str, seed: int = SEED) -> ReaderModel:
    """Train one design's logistic regression on `rows` (the threshold is set later, from cross-validated
    scores)."""
    from sklearn.linear_model import LogisticRegression

    names = tuple(DESIGNS[design]["features"])
    x, y, _ = _matrix(trainable(rows), names)
    if not len(y) or y.min() == y.max():
        raise ValueError("the reader needs positive and negative sentences to learn from")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    clf = LogisticRegression(C=1.0 / (ALPHA * len(y)), max_iter=2000, class_weight="balanced", random_state=seed)
    clf.fit((x - mean) / scale, y)
    return ReaderModel(names, mean, scale, [(clf.coef_.T.copy(), clf.intercept_.copy())], threshold=0.5,
                       band=(0.5, 0.5), design=design)


def item_scores(model: ReaderModel, rows: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per question: the best probability, whether the best sentence is the evidence, the gold answerability."""
    out = []
    for row in rows:
        cands = row["candidates"]
        if not cands:
            out.append({"best": 0.0, "top1": False, "answerable": row["answerable"], "writer": row["writer"],
                        "kind": row["kind"]})
            continue
        probs = model.predict([c["features"] for c in cands])
        best = int(np.argmax(probs))
        top = cands[best]["features"]
        clipped = np.clip(np.sort(probs)[::-1], 1e-9, 1 - 1e-9)
        out.append({"best": float(probs[best]), "top1": bool(cands[best]["positive"]),
                    "answerable": row["answerable"], "writer": row["writer"], "kind": row["kind"],
                    "has_evidence": row.get("has_evidence", False), "id": row["id"],
                    "units_asked": top.get("units_asked", 0.0), "states_unit": top.get("states_unit", 1.0),
                    "tuned": top.get("tuned_similarity", 0.0), "window": top.get("window", 0.0),
                    # The two gates of `reading.read`, apart so that `ablate` can lift one.
                    "window_gated": not (top.get("window", 0.0) > 0 or top.get("cross", 0.0) >= MIN_CROSS),
                    "unit_gated": bool(top.get("units_asked") and not top.get("states_unit", 1.0)),
                    "rule_answerable": row.get("rule_answerable"),
                    "answer_row": answer_row(top, list(np.log(clipped / (1 - clipped))))})
        out[-1]["gated"] = out[-1]["window_gated"] or out[-1]["unit_gated"]
    return out


def curve(scores: Sequence[dict[str, Any]], thresholds: Sequence[float] | None = None) -> list[dict[str, float]]:
    """No-answer accuracy (near misses below the threshold) against false no-result (answerable questions
    below it), for each threshold."""
    # A question the gates refuse (`reading.holds_the_question`, `reading.states_asked_unit`) is refused at every
    # threshold.
    negatives = [-1.0 if s.get("gated") else s["best"] for s in scores if not s["answerable"]]
    positives = [-1.0 if s.get("gated") else s["best"] for s in scores if s["answerable"]]
    points = []
    for t in thresholds if thresholds is not None else [round(x, 3) for x in np.arange(0.02, 1.0, 0.02)]:
        points.append({"threshold": float(t),
                       "no_answer_accuracy": round(sum(1 for v in negatives if v < t) / max(len(negatives), 1), 4),
                       "false_no_result": round(sum(1 for v in positives if v < t) / max(len(positives), 1), 4)})
    return points


#: Nor may any one writer's false no-result exceed this share (writers with at least `MIN_WRITER_ANSWERABLE`
#: answerable questions): pooled, the Korean colloquial writers' refusals hid behind the others' answers.
MAX_WRITER_FALSE_NO_RESULT = 0.15
MIN_WRITER_ANSWERABLE = 20


def choose_threshold(scores: Sequence[dict[str, Any]], max_false: float = MAX_FALSE_NO_RESULT,
                     max_writer_false: float = MAX_WRITER_FALSE_NO_RESULT) -> float:
    """The threshold with the best no-answer accuracy whose false no-result stays within `max_false` over all
    questions and within `max_writer_false` for every writer (the lowest such threshold among equals)."""
    writers: dict[str, list[float]] = {}
    for s in scores:
        if s["answerable"]:
            writers.setdefault(s.get("writer", ""), []).append(-1.0 if s.get("gated") else s["best"])
    judged = [v for v in writers.values() if len(v) >= MIN_WRITER_ANSWERABLE]
    best_t, best_acc = 0.0, -1.0
    for point in curve(scores, [round(x, 3) for x in np.arange(0.01, 1.0, 0.01)]):
        t = point["threshold"]
        worst = max((sum(1 for b in v if b < t) / len(v) for v in judged), default=0.0)
        if point["false_no_result"] <= max_false and worst <= max_writer_false \
                and point["no_answer_accuracy"] > best_acc:
            best_t, best_acc = t, point["no_answer_accuracy"]
    return best_t


#: The uncertain band's edges: under it at most this share of answerable questions (cross-validated), over it
#: at most `BAND_NEAR_MISSES` of near misses.
BAND_ANSWERABLE = 0.02
BAND_NEAR_MISSES = 0.2


def uncertain_band(scores: Sequence[dict[str, Any]], threshold: float) -> tuple[float, float]:
    """Where cross-validated answerable and near-miss questions mix around the threshold: from the highest score
    under which at most `BAND_ANSWERABLE` of answerable questions fall, to the lowest over which at most
    `BAND_NEAR_MISSES` of near misses score. A connected model's own judgement decides there."""
    grid = [round(x, 3) for x in np.arange(0.01, 1.0, 0.01)]
    points = curve(scores, grid)
    low = max((p["threshold"] for p in points if p["false_no_result"] <= BAND_ANSWERABLE
               and p["threshold"] <= threshold), default=threshold)
    high = min((p["threshold"] for p in points if p["no_answer_accuracy"] >= 1 - BAND_NEAR_MISSES
                and p["threshold"] >= threshold), default=threshold)
    return (low, max(high, threshold))


def summary(scores: Sequence[dict[str, Any]], threshold: float) -> dict[str, Any]:
    answerable = [s for s in scores if s["answerable"]]
    with_evidence = [s for s in answerable if s.get("has_evidence", True)]
    negatives = [s for s in scores if not s["answerable"]]
    return {"questions": len(scores),
            "top1": round(sum(s["top1"] for s in with_evidence) / max(len(with_evidence), 1), 4),
            "no_answer_accuracy": round(sum(s["best"] < threshold or bool(s.get("gated")) for s in negatives)
                                        / max(len(negatives), 1), 4),
            "false_no_result": round(sum(s["best"] < threshold or bool(s.get("gated")) for s in answerable)
                                     / max(len(answerable), 1), 4)}


def rules_summary(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The rules' own figures on the same rows (their quotes shown and their no_result decision)."""
    answerable = [r for r in rows if r["answerable"]]
    with_evidence = [r for r in answerable if r.get("has_evidence")]
    negatives = [r for r in rows if not r["answerable"]]
    top1 = [bool(r["candidates"]) and r["candidates"][0]["positive"] for r in with_evidence]
    return {"questions": len(rows), "top1": round(sum(top1) / max(len(top1), 1), 4),
            "evidence_shown": round(sum(r["rule_shown"] for r in with_evidence) / max(len(with_evidence), 1), 4),
            "no_answer_accuracy": round(sum(not r["rule_answerable"] for r in negatives) / max(len(negatives), 1), 4),
            "false_no_result": round(sum(not r["rule_answerable"] for r in answerable) / max(len(answerable), 1), 4)}


def cross_validate(rows: Sequence[dict[str, Any]], design: str) -> list[dict[str, Any]]:
    """Every question scored by a ranker trained on the other writers only, then by an answerability model
    trained on the other writers' cross-validated rows (`best` becomes its probability)."""
    writers = sorted({r["writer"] for r in rows})
    scores: list[dict[str, Any]] = []
    for writer in writers:
        held = [r for r in rows if r["writer"] == writer]
        model = fit([r for r in rows if r["writer"] != writer], design)
        scores.extend(item_scores(model, held))
    for writer in writers:
        held_scores = [s for s in scores if s["writer"] == writer]
        answer = fit_answer([s for s in scores if s["writer"] != writer])
        for s, p in zip(held_scores, answer.predict([s["answer_row"] for s in held_scores]), strict=True):
            s["ranker_best"], s["best"] = s["best"], float(p)
    return scores


def fit_answer(scores: Sequence[dict[str, Any]], seed: int = SEED) -> ReaderModel:
    """The answerability model: a logistic regression over each question's `answer_row` (its best sentence's own
    values and the ranker's logits), labelled by whether the question is answerable."""
    from sklearn.linear_model import LogisticRegression

    x = np.asarray([[s["answer_row"][n] for n in ANSWER_FEATURES] for s in scores], dtype=np.float64)
    y = np.asarray([1.0 if s["answerable"] else 0.0 for s in scores])
    if not len(y) or y.min() == y.max():
        raise ValueError("the answerability model needs answerable and unanswerable questions")
    mean = x.mean(axis=0)
    scale = x.std(axis=0)
    scale[scale < 1e-6] = 1.0
    clf = LogisticRegression(C=1.0, max_iter=2000, class_weight="balanced", random_state=seed)
    clf.fit((x - mean) / scale, y)
    return ReaderModel(ANSWER_FEATURES, mean, scale, [(clf.coef_.T.copy(), clf.intercept_.copy())],
                       threshold=0.5, band=(0.5, 0.5), design="answerability")


def train(rows: Sequence[dict[str, Any]], designs: Sequence[str] = tuple(DESIGNS)) -> tuple[ReaderModel, dict[str, Any]]:
    """Compare the designs by leave-one-writer-out cross-validation, train the better on every writer, set its
    threshold and uncertain band from its cross-validated scores. Returns the model and the report."""
    report: dict[str, Any] = {"writers": sorted({r["writer"] for r in rows}), "questions": len(rows),
                              "sentences": sum(len(r["candidates"]) for r in rows),
                              "rules": rules_summary(rows), "designs": {}}
    best_design, best_value, best_scores = designs[0], -1.0, []
    for design in designs:
        started = time.perf_counter()
        scores = cross_validate(rows, design)
        threshold = choose_threshold(scores)
        result = summary(scores, threshold)
        result.update(threshold=threshold, seconds=round(time.perf_counter() - started, 1),
                      by_writer={w: summary([s for s in scores if s["writer"] == w], threshold)
                                 for w in report["writers"]})
        report["designs"][design] = result
        value = result["top1"] + result["no_answer_accuracy"]
        if value > best_value:
            best_design, best_value, best_scores = design, value, scores
    report["scores"] = best_scores  # each question's cross-validated best probability (popped before printing)
    model = fit(rows, best_design)
    model.answer = fit_answer(best_scores)
    model.threshold = choose_threshold(best_scores)
    model.band = uncertain_band(best_scores, model.threshold)
    report["shipped"] = {"design": best_design, "threshold": model.threshold, "band": list(model.band)}
    report["curve"] = curve(best_scores)
    model.meta = {"trained_on": report["writers"], "questions": len(rows), "seed": SEED,
                  "cross_validated": report["designs"][best_design]}
    return model, report


#: The hand rules of evidence selection and no-answer, each as the features that carry it into the reader and
#: whether it also gates the answer (`reading.states_asked_unit`, `reading.holds_the_question`): `ablate` scores
#: the shipped design without each, on the same writer-disjoint folds.
RULES: dict[str, dict[str, Any]] = {
    "quote_weights": {"features": QUOTE_WEIGHTS},
    "identifier_check": {"features": ("unknown_identifier",)},
    "unit_veto": {"features": ("units_asked", "states_unit", "wants_number"), "gate": "unit"},
    "cross_lingual_pass": {"features": ("cross", "cross_gap", "cross_margin", "cross_rank", "other_language")},
    "unit_gate_only": {"features": (), "gate": "unit"},
    "window_gate_only": {"features": (), "gate": "window"},
}
BOOTSTRAP_SAMPLES = 1000


def _without(rows: Sequence[dict[str, Any]], features: Sequence[str]) -> list[dict[str, Any]]:
    """`rows` with `features` zeroed in every candidate (a constant feature carries nothing into either model)."""
    gone = set(features)
    return [{**r, "candidates": [{**c, "features": {k: (0.0 if k in gone else v) for k, v in c["features"].items()}}
                                 for c in r["candidates"]]} for r in rows]


def _ungated(scores: list[dict[str, Any]], gate: str) -> None:
    """Lift one gate from cross-validated scores: the unit gate or the window gate."""
    for s in scores:
        if "gated" in s:  # a question without candidates has no gates
            s["gated"] = s["window_gated"] if gate == "unit" else s["unit_gated"]


def paired_interval(a: Sequence[float], b: Sequence[float], seed: int = SEED) -> list[float]:
    """95 % bootstrap interval of mean(a) − mean(b) over paired items (resampled together)."""
    x = np.asarray(a, dtype=np.float64) - np.asarray(b, dtype=np.float64)
    if not len(x):
        return [0.0, 0.0]
    rng = np.random.default_rng(seed)
    means = x[rng.integers(0, len(x), size=(BOOTSTRAP_SAMPLES, len(x)))].mean(axis=1)
    return [round(float(np.percentile(means, 2.5)), 4), round(float(np.percentile(means, 97.5)), 4)]


def _outcomes(scores: Sequence[dict[str, Any]], threshold: float) -> dict[str, list[float]]:
    """Per question, in order: top1 (answerable with evidence), refused near miss, refused answerable."""
    def refused(s: dict[str, Any]) -> float:
        return float(s["best"] < threshold or bool(s.get("gated")))

    return {"top1": [float(s["top1"]) for s in scores if s["answerable"] and s.get("has_evidence", True)],
            "no_answer_accuracy": [refused(s) for s in scores if not s["answerable"]],
            "false_no_result": [refused(s) for s in scores if s["answerable"]]}


def ablate(rows: Sequence[dict[str, Any]], design: str, full: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Each hand rule (`RULES`) taken out of `design`, scored leave-one-writer-out as the full design was
    (`full`: its cross-validated scores); each figure with the paired 95 % bootstrap interval of the change
    (every configuration at its own chosen threshold). A rule whose removal changes nothing beyond the interval
    adds nothing the model does not already read."""
    full_threshold = choose_threshold(full)
    base = _outcomes(full, full_threshold)
    out: dict[str, Any] = {"full": {**summary(full, full_threshold), "threshold": full_threshold}}
    for name, rule in RULES.items():
        scores = cross_validate(_without(rows, rule["features"]), design) if rule["features"] else \
            [dict(s) for s in full]
        if rule.get("gate"):
            _ungated(scores, rule["gate"])
        threshold = choose_threshold(scores)
        these = _outcomes(scores, threshold)
        out[name] = {**summary(scores, threshold), "threshold": threshold,
                     "change_interval": {k: paired_interval(these[k], base[k]) for k in base}}
    return out


def all_sets() -> tuple[DevSet, ...]:
    """The development sets, HotpotQA's training half and the off-corpus questions."""
    return (*DEV_SETS, hotpotqa_set(), off_corpus_set())


def _writer_folds(rows: Sequence[dict[str, Any]], k: int) -> list[set[str]]:
    """`k` groups of writers of about equal size (largest first into the smallest group; deterministic)."""
    sizes: dict[str, int] = {}
    for row in rows:
        sizes[row["writer"]] = sizes.get(row["writer"], 0) + 1
    folds: list[set[str]] = [set() for _ in range(max(1, min(k, len(sizes))))]
    totals = [0] * len(folds)
    for writer in sorted(sizes, key=lambda w: (-sizes[w], w)):
        i = totals.index(min(totals))
        folds[i].add(writer)
        totals[i] += sizes[writer]
    return folds


def encoder_items(rows: Sequence[dict[str, Any]], index: dict[str, int]) -> list[dict[str, Any]]:
    return [{"question": r["question"], "candidates": [index[c["text"]] for c in r["candidates"]],
             "positives": [i for i, c in enumerate(r["candidates"]) if c["positive"]]} for r in rows]


def add_tuned_features(rows: Sequence[dict[str, Any]], trainer: Any, passages: np.ndarray, index: dict[str, int],
                       folds: int = ENCODER_FOLDS, echo: Any = print, **train_options: Any) -> None:
    """Each candidate's cosine to its question's vector by a question encoder trained on the other writer
    folds only, less that encoder's learned "none of them" cosine (each fine-tune settles at a level of its
    own), and its rank and gap among the candidates, as the features `tuned_similarity*`."""
    from ai_llm.internal_rag_agent.answer_extraction import add_relative

    for n, held in enumerate(_writer_folds(rows, folds)):
        started = time.perf_counter()
        training = trainable([r for r in rows if r["writer"] not in held])
        module = trainer.train(encoder_items(training, index), passages, SEED + n, **train_options)
        scored = [r for r in rows if r["writer"] in held]
        vectors = trainer.encode(module, [r["question"] for r in scored])
        for row, q in zip(scored, vectors, strict=True):
            for c in row["candidates"]:  # over the encoder's own "none of them" cosine: its level is its own
                c["features"]["tuned_similarity"] = float(passages[index[c["text"]]] @ q) - module.null_cosine
            add_relative([c["features"] for c in row["candidates"]], "tuned_similarity")
        echo(f"question encoder fold {n + 1}: {len(training)} training questions, held out "
             f"{', '.join(sorted(held))} ({time.perf_counter() - started:.0f} s)")


async def _embed_texts(base: Settings, texts: Sequence[str]) -> list[list[float]]:
    """Passage vectors of `texts` by the embedding model the hub indexes with (a local server of its own)."""
    import tempfile

    from ai_llm.common.embeddings import make_embeddings
    from ai_llm.hub.process import embedding_server

    with tempfile.TemporaryDirectory(prefix="hub-reader-") as tmp:
        settings = base
        if base.embedding_provider == "local" and not base.embedding_url:
            with embedding_server(token=base.hub_token, log_dir=Path(tmp)) as url:
                settings = base.model_copy(update={"embedding_url": url})
                embeddings = make_embeddings(settings)
                try:
                    return await embeddings.embed(list(texts), kind="passage")
                finally:
                    await embeddings.close()
        embeddings = make_embeddings(settings)
        try:
            return await embeddings.embed(list(texts), kind="passage")
        finally:
            await embeddings.close()


def run(base: Settings, sets: Sequence[DevSet] | None = None, recollect: bool = False, output: Path = MODEL_PATH,
        designs: Sequence[str] = tuple(DESIGNS), echo: Any = print, layers_output: Path | None = None,
        folds: int = ENCODER_FOLDS, ablation: bool = False) -> dict[str, Any]:
    """The whole `hub train reader`: collect, fine-tune the question encoder (cross-validated by writer folds),
    compare the designs, write the model (and, when the shipped design reads it, the encoder's layers). With
    `ablation`, measure each hand rule instead (`ablate`): nothing is written."""
    from ai_llm.embedding_server.runtime import READER_LAYERS_PATH
    from ai_llm.evals.reader.encoder import QuestionEncoderTrainer, passage_vectors, save_layers

    rows = load_or_collect(base, all_sets() if sets is None else sets, recollect, echo)
    started = time.perf_counter()
    trainer = None
    index: dict[str, int] = {}
    passages = np.zeros((0, 0), dtype=np.float32)
    if any(DESIGNS[d]["encoder"] for d in designs):
        texts = sorted({c["text"] for r in rows for c in r["candidates"]})
        index = {t: i for i, t in enumerate(texts)}
        passages = passage_vectors(texts, lambda batch: asyncio.run(_embed_texts(base, batch)),
                                   CACHE / "passages.npz")
        echo(f"{len(texts)} candidate sentences embedded ({time.perf_counter() - started:.0f} s)")
        trainer = QuestionEncoderTrainer()
        add_tuned_features(rows, trainer, passages, index, folds, echo)
    model, report = train(rows, designs)
    if ablation:
        report["ablation"] = ablate(rows, model.design, report.pop("scores"))
        report["train_seconds"] = round(time.perf_counter() - started, 1)
        return report
    if DESIGNS[model.design]["encoder"] and trainer is not None:
        final = trainer.train(encoder_items(trainable(rows), index), passages, SEED)
        # A model written elsewhere takes its layers beside it: the shipped layers change only with the shipped
        # model.
        target = layers_output or (READER_LAYERS_PATH if output == MODEL_PATH
                                   else output.with_name(READER_LAYERS_PATH.name))
        save_layers(target, trainer.trained_layers(final), {"seed": SEED, "writers": report["writers"],
                                                             "null_cosine": round(final.null_cosine, 4)})
        report["question_layers"] = str(target)
        model.meta.update(question_encoder=target.name, null_cosine=round(final.null_cosine, 6))
    model.save(output)
    scores_path = CACHE / "cross_validated_scores.json"
    scores_path.parent.mkdir(parents=True, exist_ok=True)
    scores_path.write_text(json.dumps(report.pop("scores")), encoding="utf-8")
    report["train_seconds"] = round(time.perf_counter() - started, 1)
    report["output"] = str(output)
    return report
