"""The reader's further quotes (its followers: the sentences quoted after the best one), measured.

The reader quotes the best sentence and up to two more (`reading.choose_quotes`). A further quote that states a
parallel fact of another entity ("다온 프로젝트의 출시 코드명은 …" under a question about 한빛 프로젝트) reads as
if it supported the answer. Two development measures, each scoring the follower rules of `RULES` on the same
readings (the best sentence and the answer decision are the model's either way):

* `lowo`: the cached candidates of every development set (`training.load_or_collect`), each writer's questions
  read by a ranker and an answerability model trained on the other writers only (as `training.cross_validate`).
  The sets label one evidence sentence a question, so an off-entity follower is approximated: a follower from
  another chunk than the evidence's whose sentence lacks a question word the best sentence holds.
* `parallel`: `benchmarks/data/reader_parallel_dev` (documents of several entities sharing the same attributes,
  one `## ` section an entity), asked through the real RAG path with the shipped reader; a follower from another
  entity's section is off-entity, exactly.

Each figure: top-1 (the best sentence is the evidence; followers never change it), evidence in the quotes, quotes
per answer, answers with a follower, off-entity followers (per follower and per answer), followers that are a
labelled evidence sentence (HotpotQA labels each supporting sentence), with paired 95 % bootstrap intervals of
each rule's change against the shipped one.
"""

from __future__ import annotations

import asyncio
import functools
import math
import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from ai_llm.common.settings import Settings
from ai_llm.common.text.analysis import analyze as _analyze
from ai_llm.evals.reader.training import (
    DATA,
    choose_threshold,
    fit,
    fit_answer,
    item_scores,
    paired_interval,
    positive,
)
from ai_llm.internal_rag_agent.answer_extraction import Quote, antecedents, pick_followers
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk
from ai_llm.internal_rag_agent.reader.model import ReaderModel
from ai_llm.internal_rag_agent.reader.reading import (
    FOLLOWER_MARGIN,
    MAX_QUOTES,
    choose_quotes,
    holds_the_question,
    states_asked_unit,
)
from ai_llm.internal_rag_agent.vector_store import ChunkHit

PARALLEL = DATA / "reader_parallel_dev"


@functools.lru_cache(maxsize=200_000)
def _terms(text: str) -> frozenset[str]:
    return frozenset(_analyze(text))


def analyze(text: str) -> frozenset[str]:
    """A text's analysed terms (cached: every rule reads the same sentences)."""
    return _terms(text)

#: A follower rule: (ranked candidates best first, their ranker logits, the model) -> the quotes chosen.
Rule = Callable[[Sequence[Quote], Sequence[float], ReaderModel], list[Quote]]
#: The rule before: a share of the best sentence's ranker probability.
BEFORE_SHARE = 0.5


def _share(share: float) -> Rule:
    def rule(ranked: Sequence[Quote], logits: Sequence[float], model: ReaderModel) -> list[Quote]:
        return pick_followers(ranked, [q.reader_score or 0.0 for q in ranked], MAX_QUOTES, share)
    return rule


def _eligible(keep: Callable[[int, Sequence[Quote], Sequence[float], ReaderModel], bool]) -> Rule:
    """The shipped share rule over the candidates `keep` admits as followers (the best always stays)."""
    def rule(ranked: Sequence[Quote], logits: Sequence[float], model: ReaderModel) -> list[Quote]:
        kept = [0, *(i for i in range(1, len(ranked)) if keep(i, ranked, logits, model))]
        return pick_followers([ranked[i] for i in kept], [ranked[i].reader_score or 0.0 for i in kept], MAX_QUOTES,
                              BEFORE_SHARE)
    return rule


def rebased(i: int, logits: Sequence[float]) -> list[float]:
    """The ranker's logits with candidate `i` first and the others after it (as if it were the best)."""
    return [logits[i], *logits[:i], *logits[i + 1:]]


def _answering(level: str) -> Callable[[int, Sequence[Quote], Sequence[float], ReaderModel], bool]:
    def keep(i: int, ranked: Sequence[Quote], logits: Sequence[float], model: ReaderModel) -> bool:
        cut = model.threshold if level == "threshold" else model.band[1]
        return model.answerability(ranked[i].features, rebased(i, logits)) >= cut
    return keep


def _margin(m: float) -> Callable[[int, Sequence[Quote], Sequence[float], ReaderModel], bool]:
    return lambda i, ranked, logits, model: logits[0] - logits[i] <= m


def _tuned_over_null(i: int, ranked: Sequence[Quote], logits: Sequence[float], model: ReaderModel) -> bool:
    return ranked[i].features.get("tuned_similarity", 0.0) >= 0.0


def _question_words(i: int, ranked: Sequence[Quote], logits: Sequence[float], model: ReaderModel) -> bool:
    """The narrow word rule: a follower holds every question word the best sentence holds (`Quote.neighbours`
    carries the question's words here)."""
    asked = set(ranked[0].neighbours)
    return asked & set(analyze(ranked[0].text)) <= set(analyze(ranked[i].text))


def _margin_rule(m: float) -> Rule:
    return lambda ranked, logits, model: choose_quotes(ranked, logits, MAX_QUOTES, m)


def _margin_and_words(m: float) -> Rule:
    """The shipped margin and the narrow word rule on top of it."""
    def rule(ranked: Sequence[Quote], logits: Sequence[float], model: ReaderModel) -> list[Quote]:
        kept = [0, *(i for i in range(1, len(ranked)) if _question_words(i, ranked, logits, model))]
        return choose_quotes([ranked[i] for i in kept], [logits[i] for i in kept], MAX_QUOTES, m)
    return rule


BEFORE = "share_0.5 (before)"
MARGINS = (0.5, math.log(2), 1.0, 1.5, 2.0, 2.5, 3.0, 4.0)
RULES: dict[str, Rule] = {
    BEFORE: _share(BEFORE_SHARE),
    "share_0.7": _share(0.7),
    "share_0.8": _share(0.8),
    "share_0.9": _share(0.9),
    "answerable_at_threshold": _eligible(_answering("threshold")),
    "answerable_at_band_top": _eligible(_answering("band")),
    "encoder_over_null": _eligible(_tuned_over_null),
    **{f"logit_margin_{m:.2f}": _margin_rule(m) for m in MARGINS},
    "no_followers": _share(2.0),
    "question_words (rule)": _eligible(_question_words),
    "shipped_margin_and_question_words (rule)": _margin_and_words(FOLLOWER_MARGIN),
    f"shipped (logit_margin_{FOLLOWER_MARGIN:.2f})": _margin_rule(FOLLOWER_MARGIN),
}


# --- readings --------------------------------------------------------------------------------------------
def candidate_quotes(row: dict[str, Any], question_words: Sequence[str]) -> list[Quote]:
    """A collected row's candidates as quotes (their chunk: the file and the chunk's rank among those read)."""
    quotes = []
    for c in row["candidates"]:
        f = c["features"]
        chunk = RankedChunk(ChunkHit(c.get("chunk_ref") or c["file"], int(c.get("chunk_index", f.get("chunk_rank", 0))),
                                     "", [], 0.0, file_name=c["file"]), relevance=f.get("relevance", 0.0))
        quote = Quote(c["text"], chunk, int(f.get("position", 0)), 0.0, 0.0, neighbours=list(question_words))
        quote.features = dict(f)
        quotes.append(quote)
    return quotes


def reading(row: dict[str, Any], model: ReaderModel) -> dict[str, Any] | None:
    """What `reading.read` computes for a collected row: candidates best first (the unit gate applied), their
    logits, and whether the answer is given. None without candidates."""
    if not row["candidates"]:
        return None
    quotes = candidate_quotes(row, sorted(analyze(row["question"])))
    logits = model.logits([q.features for q in quotes])
    for q, logit in zip(quotes, logits, strict=True):
        q.reader_score = round(float(1.0 / (1.0 + np.exp(-logit))), 4)
    order = sorted(range(len(quotes)), key=lambda i: quotes[i].reader_score or 0.0, reverse=True)
    order = [*(i for i in order if states_asked_unit(quotes[i])), *(i for i in order if not states_asked_unit(quotes[i]))]
    ranked = [quotes[i] for i in order]
    ranked_logits = [float(logits[i]) for i in order]
    best = ranked[0]
    decided = model.answerability(best.features, ranked_logits) \
        if states_asked_unit(best) and holds_the_question(best) else 0.0
    return {"quotes": quotes, "ranked": ranked, "logits": ranked_logits, "answered": decided >= model.threshold}


def lowo_models(rows: Sequence[dict[str, Any]], design: str) -> dict[str, ReaderModel]:
    """Per writer: the ranker trained on the other writers, with the answerability model trained on the other
    writers' cross-validated rows, at the threshold chosen on the pooled cross-validated scores (as shipped)."""
    writers = sorted({r["writer"] for r in rows})
    rankers = {w: fit([r for r in rows if r["writer"] != w], design) for w in writers}
    scores = [s for w in writers for s in item_scores(rankers[w], [r for r in rows if r["writer"] == w])]
    answers = {w: fit_answer([s for s in scores if s["writer"] != w]) for w in writers}
    for w in writers:
        held = [s for s in scores if s["writer"] == w]
        for s, p in zip(held, answers[w].predict([s["answer_row"] for s in held]) if held else [], strict=True):
            s["best"] = float(p)
    threshold = choose_threshold(scores)
    for w in writers:
        rankers[w].answer, rankers[w].threshold = answers[w], threshold
    return rankers


# --- measures --------------------------------------------------------------------------------------------
def _chunk(q: Quote) -> str:
    return q.chunk.key


def outcomes(row: dict[str, Any], read: dict[str, Any], rule: Rule, model: ReaderModel,
             entity_of: Callable[[str, str], str | None] | None = None) -> dict[str, Any]:
    """One question's quotes under `rule`, and what they are (see the module docstring)."""
    ranked, quotes = read["ranked"], read["quotes"]
    chosen = rule(ranked, read["logits"], model)
    chosen = [*chosen, *antecedents(chosen, quotes)]
    best = ranked[0]
    followers = [q for q in chosen[1:] if not (q.chunk.key == best.chunk.key and q.position == best.position - 1)]
    is_evidence = {id(q): bool(c["positive"]) for q, c in zip(quotes, row["candidates"], strict=True)}
    evidence = [q for q in quotes if is_evidence[id(q)]]
    asked = set(analyze(row["question"]))
    best_words = asked & set(analyze(best.text))
    off = []
    for q in followers:
        if entity_of is not None:
            theirs = entity_of(q.chunk.hit.file_name, q.text)
            off.append(theirs is not None and theirs != row.get("entity"))
        else:
            other_chunk = bool(evidence) and all(_chunk(q) != _chunk(e) for e in evidence)
            off.append(other_chunk and bool(best_words - set(analyze(q.text))))
    return {"top1": is_evidence[id(best)], "shown": any(is_evidence[id(q)] for q in chosen),
            "quotes": len(chosen), "followers": len(followers), "off": sum(off),
            "follower_evidence": sum(is_evidence[id(q)] for q in followers),
            "has_evidence": bool(evidence)}


def figures(per_item: Sequence[dict[str, Any]]) -> dict[str, float]:
    """The figures over answered answerable questions (off-entity only where the evidence is a candidate)."""
    n = max(len(per_item), 1)
    with_evidence = [o for o in per_item if o["has_evidence"]]
    followers = sum(o["followers"] for o in with_evidence)
    return {"answers": len(per_item),
            "top1": round(sum(o["top1"] for o in with_evidence) / max(len(with_evidence), 1), 4),
            "evidence_in_quotes": round(sum(o["shown"] for o in with_evidence) / max(len(with_evidence), 1), 4),
            "quotes_per_answer": round(sum(o["quotes"] for o in per_item) / n, 3),
            "with_follower": round(sum(o["followers"] > 0 for o in per_item) / n, 4),
            "off_entity_per_follower": round(sum(o["off"] for o in with_evidence) / max(followers, 1), 4),
            "answers_with_off_entity": round(sum(o["off"] > 0 for o in with_evidence) / max(len(with_evidence), 1),
                                             4),
            "followers_that_are_evidence": round(sum(o["follower_evidence"] for o in with_evidence)
                                                 / max(followers, 1), 4),
            "shown_less_off_entity": round(sum(_net(o) for o in with_evidence) / max(len(with_evidence), 1), 4)}


def _net(o: dict[str, Any]) -> float:
    """Evidence quoted, less an answer quoting an off-entity sentence (each counted once per answer)."""
    return float(o["shown"]) - float(o["off"] > 0)


def compare(items: Sequence[tuple[dict[str, Any], dict[str, Any], ReaderModel]],
            entity_of: Callable[[str, str], str | None] | None = None,
            rules: dict[str, Rule] = RULES) -> dict[str, Any]:
    """Every rule's figures on the same readings (answered answerable questions), with the paired 95 % bootstrap
    interval of each per-question measure's change against the rule before (`BEFORE`)."""
    out: dict[str, Any] = {}
    per_rule: dict[str, list[dict[str, Any]]] = {}
    for name, rule in rules.items():
        per_rule[name] = [outcomes(row, read, rule, model, entity_of) for row, read, model in items]
        out[name] = figures(per_rule[name])
    base = per_rule[BEFORE]
    measures: dict[str, Callable[[dict[str, Any]], float]] = {
        "evidence_in_quotes": lambda o: float(o["shown"]), "answers_with_off_entity": lambda o: float(o["off"] > 0),
        "shown_less_off_entity": _net}
    for name in rules:
        if name == BEFORE:
            continue
        these = per_rule[name]
        out[name]["change_interval"] = {
            "quotes_per_answer": paired_interval([o["quotes"] for o in these], [o["quotes"] for o in base]),
            **{k: paired_interval([f(o) for o in these if o["has_evidence"]], [f(o) for o in base if o["has_evidence"]])
               for k, f in measures.items()}}
    return out


def choose_margin(items: Sequence[tuple[dict[str, Any], dict[str, Any], ReaderModel]],
                  margins: Sequence[float] = MARGINS) -> tuple[float, dict[str, Any]]:
    """The follower margin: the largest of `margins` whose evidence quoted less answers quoting an off-entity
    sentence (`_net`) is not below the best margin's beyond the paired 95 % bootstrap interval — as many
    followers as the development data says cost nothing on that balance (each a chance to quote the evidence
    when the best sentence is not it)."""
    per = {m: [outcomes(row, read, _margin_rule(m), model) for row, read, model in items] for m in margins}
    net = {m: [_net(o) for o in per[m] if o["has_evidence"]] for m in margins}
    best = max(margins, key=lambda m: float(np.mean(net[m])) if net[m] else 0.0)
    against = {m: paired_interval(net[m], net[best]) for m in margins}
    table = {f"{m:.2f}": {"shown_less_off_entity": round(float(np.mean(net[m])), 4) if net[m] else 0.0,
                          "against_best": against[m]} for m in margins}
    chosen = max(m for m in margins if against[m][1] >= 0.0)
    return chosen, {"best": round(best, 2), "chosen": round(chosen, 2), "margins": table}


def lowo_readings(rows: Sequence[dict[str, Any]], design: str
                  ) -> list[tuple[dict[str, Any], dict[str, Any], ReaderModel]]:
    """The answered answerable questions of the development sets, each read by its writer's held-out models."""
    models = lowo_models(rows, design)
    items = []
    for row in rows:
        if not row["answerable"]:
            continue
        read = reading(row, models[row["writer"]])
        if read is not None and read["answered"]:
            items.append((row, read, models[row["writer"]]))
    return items


def lowo(rows: Sequence[dict[str, Any]], design: str, rules: dict[str, Rule] = RULES) -> dict[str, Any]:
    """The rules compared on the development sets, leave-one-writer-out."""
    return compare(lowo_readings(rows, design), rules=rules)


# --- the parallel-entity set -----------------------------------------------------------------------------
def sections(path: Path) -> dict[str, str]:
    """Each line of a Markdown document under a `## ` heading, mapped to that heading (its entity)."""
    entity: str | None = None
    out: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            entity = line[3:].strip()
        elif line.strip() and entity is not None:
            out[line.strip()] = entity
    return out


def entity_lookup(docs: Path) -> Callable[[str, str], str | None]:
    """(file, sentence) -> the entity whose section holds the sentence (None: the document's opening)."""
    by_file = {p.name: sections(p) for p in docs.glob("*.md")}

    def entity_of(file: str, text: str) -> str | None:
        for line, entity in by_file.get(file, {}).items():
            if text.strip() == line or (len(text) >= 20 and re.sub(r"\s+", "", text) in re.sub(r"\s+", "", line)):
                return entity
        return None
    return entity_of


async def collect_parallel(base: Settings, root: Path = PARALLEL) -> list[dict[str, Any]]:
    """Ask the parallel-entity set through the RAG agent with the shipped reader (offline): each question's
    candidates with their features and chunk, and the quotes of its reply."""
    from ai_llm.common.a2a.server import AgentRequest
    from ai_llm.evals.rag.evaluation import index_directory, load_qa, rag_environment

    items = load_qa(root / "rag_reader_parallel_dev.jsonl")
    settings = base.model_copy(update={"rag_reader": True, "openai_api_key": None, "openai_base_url": None})
    rows: list[dict[str, Any]] = []
    async with rag_environment(settings) as env:
        await index_directory(env.agent, root / "docs")
        for item in items:
            state = await env.agent.run_state(AgentRequest(text=item["question"], data={"language": "ko"}))
            evidence, reply = state.get("evidence"), state["reply"]
            candidates = evidence.candidates if evidence is not None else []
            rows.append({
                **{k: item[k] for k in ("id", "question", "entity", "file", "evidence")},
                "writer": "reader_parallel_dev", "answerable": True, "status": reply.data.get("status"),
                "reply_quotes": [q["text"] for q in reply.data.get("quotes") or []],
                "reply_files": [q.get("file") for q in reply.data.get("quotes") or []],
                "candidates": [{"text": c.text, "file": c.chunk.hit.file_name, "chunk_ref": c.chunk.hit.storage_ref,
                                "chunk_index": c.chunk.hit.chunk_index, "positive": positive(item["evidence"], c.text),
                                "features": {k: float(v) for k, v in c.features.items()}} for c in candidates]})
    return rows


def parallel(rows: Sequence[dict[str, Any]], model: ReaderModel, root: Path = PARALLEL,
             rules: dict[str, Rule] = RULES) -> dict[str, Any]:
    """The rules compared on the parallel-entity set's collected candidates, read by `model`."""
    items = []
    for row in rows:
        read = reading(row, model)
        if read is not None and read["answered"]:
            items.append((row, read, model))
    return compare(items, entity_lookup(root / "docs"), rules)


def reply_figures(rows: Sequence[dict[str, Any]], root: Path = PARALLEL) -> dict[str, float]:
    """The replies' own quotes on the parallel-entity set (end to end): answers, evidence quoted, quoted
    sentences per answer, answers quoting another entity's sentence (a quote block may join several sentences
    of one chunk: each document line it holds counts)."""
    lines = {re.sub(r"\s+", "", line): entity for p in sorted((root / "docs").glob("*.md"))
             for line, entity in sections(p).items()}
    answered = [r for r in rows if r["status"] == "ok"]
    n = max(len(answered), 1)

    def held(row: dict[str, Any]) -> list[str]:
        blocks = [re.sub(r"\s+", "", t) for t in row["reply_quotes"]]
        return [entity for line, entity in lines.items() if any(line in b for b in blocks)]

    return {"questions": len(rows), "answered": len(answered),
            "evidence_in_quotes": round(sum(any(r["evidence"] in t for t in r["reply_quotes"])
                                            for r in answered) / n, 4),
            "quoted_sentences_per_answer": round(sum(len(held(r)) for r in answered) / n, 3),
            "answers_with_off_entity": round(sum(any(e != r["entity"] for e in held(r)) for r in answered) / n, 4)}


def measure(base: Settings, sets: Sequence[Any] | None = None, echo: Any = print,
            design: str = "encoder_without_quote_weights") -> dict[str, Any]:
    """`hub train reader --followers`: the follower rules compared leave-one-writer-out on the development sets
    (the question encoder's cosines from encoders trained on the other writer folds, as `training.run`), the
    margin the development data chooses (`choose_margin`), and the parallel-entity set through the RAG path
    with the shipped reader (its replies' own quotes with it). Nothing is written."""
    from ai_llm.evals.reader.encoder import QuestionEncoderTrainer, passage_vectors
    from ai_llm.evals.reader.training import (
        CACHE,
        _embed_texts,
        add_tuned_features,
        all_sets,
        load_or_collect,
    )
    from ai_llm.internal_rag_agent.reader.model import load_model

    rows = load_or_collect(base, all_sets() if sets is None else sets, False, echo)
    texts = sorted({c["text"] for r in rows for c in r["candidates"]})
    index = {t: i for i, t in enumerate(texts)}
    passages = passage_vectors(texts, lambda batch: asyncio.run(_embed_texts(base, batch)), CACHE / "passages.npz")
    add_tuned_features(rows, QuestionEncoderTrainer(), passages, index, echo=echo)
    items = lowo_readings(rows, design)
    margin, margins = choose_margin(items)
    report: dict[str, Any] = {"lowo": compare(items), "margin": margins, "shipped_margin": FOLLOWER_MARGIN}
    model = load_model()
    if model is not None:
        parallel_rows = asyncio.run(collect_parallel(base))
        report["parallel"] = parallel(parallel_rows, model)
        report["parallel_replies"] = reply_figures(parallel_rows)
    if round(margin, 2) != round(FOLLOWER_MARGIN, 2):
        echo(f"the development data chooses a follower margin of {margin:.2f}; reading.FOLLOWER_MARGIN is "
             f"{FOLLOWER_MARGIN:.2f}")
    return report
