"""`hub eval rag`: index a folder of documents (every supported format), ask a QA set through the agent graph,
score retrieval and no-answer handling.

QA format (JSONL): `{"id", "file", "question", "answer", "pages"}`; `answer: null` marks an unanswerable
question, which must come back `no_result`. A document without pages (Word, slides, sheets, HWP, HTML) has
`pages: []` and a `location` string (`슬라이드 3`, `Sheet1!12`, `제5조`, a heading). Metrics:

* `page_recall` — answerable questions with `pages` whose cited sources include the expected file and one
  expected page;
* `file_recall` — answerable questions whose cited sources include the expected file;
* `location_recall` — answerable questions with a `location` whose cited sources hold it (`location_hit`);
* `answer_evidence_hit` — answerable questions whose cited chunks contain the gold answer span
  (lower-cased, NFKC, all whitespace removed, as in benchmarks/data/README.md);
* `answer_hit` — the same test on the answer text itself;
* `evidence_in_answer` — answerable items with an `evidence` span (the sentence that answers) whose span is
  contained in the reply text the person reads (whitespace collapsed; for Korean, spaces removed); a table
  row's evidence is its cells, and matches the row as shown (`header: value; …`, `row_values`);
* `answer_first` — answerable items with an `evidence` span whose first quote (the answer's first block) holds it;
* `no_answer_curve` (with the reader on) — no-answer accuracy against false no-result at other reader thresholds,
  read off the same replies' reader scores (`reader_threshold` is the shipped one);
* `no_answer_accuracy` — unanswerable questions answered `no_result`;
* `false_no_result` — answerable questions wrongly answered `no_result`;
* latency per question (mean, p50, p95);
* `by_kind` — the same per item `kind` (e.g. `en`, `ko_about_en`, `followup`, `near_miss`);
* `unsupported_numbers` — answered questions whose reply states a number that appears in none of the passages
  it cites (nor its source lines): a hallucination check that needs no judge model
  (`internal_rag_agent.grounding`).

With `llm_url` (`--llm-url`, an OpenAI-compatible server), the same questions are asked a second time on the
same index by an agent with that model, and its figures are reported under `llm` beside the offline ones of
the same run, with `model_answerable_accuracy` (the model's own judgement against the gold) and the share of
answers the model wrote (`answered_by_llm`).

Items may carry `history` (`[{"role": "user"|"agent", "text": …}]`, sent as `data.history`: follow-ups),
`kind`, `evidence` and `evidence_by_page` (page -> span).
"""

from __future__ import annotations

import asyncio
import json
import re
import statistics
import tempfile
import time
import unicodedata
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from contextlib import ExitStack, asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from ai_llm.common.a2a.events import STATUS_NO_RESULT
from ai_llm.common.a2a.server import AgentRequest
from ai_llm.common.degraded import collect_degraded
from ai_llm.common.embeddings import KNOWN_DIMENSIONS, make_embeddings
from ai_llm.common.llm import make_llm
from ai_llm.common.settings import Settings
from ai_llm.common.store.db import Database, migrate, start_embedded_postgres
from ai_llm.common.text import analysis as text_analysis
from ai_llm.evals.harness import with_model_server
from ai_llm.hub.process import embedding_server
from ai_llm.internal_rag_agent.agent import RagAgent
from ai_llm.internal_rag_agent.document_parser import SUPPORTED_SUFFIXES
from ai_llm.internal_rag_agent.grounding import unsupported_numbers
from ai_llm.internal_rag_agent.indexing_service import DocumentInput
from ai_llm.internal_rag_agent.vector_store import PgVectorStore

T = TypeVar("T")


@dataclass
class RagEnvironment:
    """A self-contained RAG stack: temp embedded Postgres, embedding server (when local), the agent.

    `stop_embedding_server` stops the embedding server this environment started (None when it uses a
    configured one): a test takes it away in the middle of a run.
    """

    settings: Settings
    db: Database
    agent: RagAgent
    stop_embedding_server: Callable[[], None] | None


@asynccontextmanager
async def rag_environment(base: Settings, work_dir: Path | None = None,
                          embedding_env: Mapping[str, str] | None = None) -> AsyncIterator[RagEnvironment]:
    """Start what the RAG agent needs in a temporary directory and clean everything up afterwards.

    The embedded Postgres always runs in the temp dir (an evaluation must not touch the hub's own index);
    a local embedding server (with `embedding_env` added to its environment) is started on an ephemeral port
    unless `EMBEDDING_URL` points at one.
    """
    with tempfile.TemporaryDirectory(prefix="hub-rag-") as tmp:
        root = work_dir or Path(tmp)
        server, url = start_embedded_postgres(root / "pg")
        embedding_stack = ExitStack()
        stop_embedding_server: Callable[[], None] | None = None
        db: Database | None = None
        embeddings = None
        try:
            overrides: dict[str, Any] = {"database_url": url, "data_dir": root / "data", "supabase_url": None,
                                         "supabase_key": None}
            if base.embedding_provider == "local" and not base.embedding_url:
                overrides["embedding_url"] = embedding_stack.enter_context(
                    embedding_server(token=base.hub_token, log_dir=root / "logs", env=embedding_env))
                stop_embedding_server = embedding_stack.close
            settings = base.model_copy(update=overrides)
            embeddings = make_embeddings(settings)
            await embeddings.embed(["warm-up"])  # the model loads on the first request
            await migrate(url, embeddings.model, embeddings.dimension or KNOWN_DIMENSIONS.get(embeddings.model, 0))
            db = await Database(url).open()
            agent = RagAgent(PgVectorStore(db, settings.rag_ef_search), embeddings, make_llm(settings),
                             settings)
            yield RagEnvironment(settings, db, agent, stop_embedding_server)
        finally:
            if db is not None:
                await db.close()
            if embeddings is not None:
                await embeddings.close()
            embedding_stack.close()
            server.cleanup()


def normalize_span(text: str) -> str:
    """Lower-case, NFKC, all whitespace removed (how gold spans are matched)."""
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text).lower())


def evidence_shown(evidence: str, reply_text: str) -> bool:
    """Whether the evidence sentence is in the reply as a person reads it.

    The reply is read as rendered (`rendered_text`); whitespace is collapsed (English) or removed (Korean,
    where PDF extraction loses spaces); NFKC and curly/straight quotes are unified; a number's thousands
    separators are dropped (a sheet shows `41,260` where its writer copied the cell's `41260`); case is kept
    apart from that, so a fragment does not count.
    """
    def clean(text: str, drop_spaces: bool) -> str:
        text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2018", "'")
        text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
        text = text.replace("\u201c", '"').replace("\u201d", '"')
        return re.sub(r"\s+", "" if drop_spaces else " ", text).strip()

    korean = bool(re.search(r"[\uac00-\ud7a3]", evidence))
    shown = rendered_text(reply_text)
    return any(clean(evidence, korean) in clean(form, korean) for form in (shown, row_values(shown)))


#: A table row as the hub shows it: `header: value; header: value` (`formats.structure.row_sentence`).
_ROW = re.compile(r"[^:;\n]{1,40}: [^;\n]*(?:; [^:;\n]{1,40}: [^;\n]*)+")
_LABEL = re.compile(r"(?:^|(?<=; ))[^:;\n]{1,40}: ")


def row_values(text: str) -> str:
    """`text` with each table row's cells as the table shows them, values only ("구분: 임차료; 2024년: 340" →
    "임차료 340"): a row's evidence is written as its cells."""
    return _ROW.sub(lambda m: _LABEL.sub("", m.group()).replace("; ", " "), text)


def rendered_text(markdown: str) -> str:
    """A reply's Markdown as the chat page shows it: without the code-span backticks, the bold/italic markers
    and the block-quote `>` at a line's start (the evidence sentence "does not have a url_prefix" is what a
    person reads in "does not have a `url_prefix`")."""
    text = re.sub(r"(?m)^\s*>\s?", "", markdown)
    text = re.sub(r"`+", "", text)
    return re.sub(r"(\*\*|__)(?=\S)(.+?)(?<=\S)\1", r"\2", text)


def load_qa(path: Path) -> list[dict[str, Any]]:
    items = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    for item in items:
        missing = {"id", "question", "answer", "pages"} - set(item)
        if missing:
            raise ValueError(f"{path}: QA item {item.get('id')!r} lacks {sorted(missing)}")
    return items


def spread(items: list[T], limit: int) -> list[T]:
    """`limit` items taken evenly over `items` (every k-th, from the first), or all of them when `limit` is 0."""
    if limit <= 0 or limit >= len(items):
        return items
    step = len(items) / limit
    return [items[int(i * step)] for i in range(limit)]


def document_files(docs_dir: Path) -> list[Path]:
    """The documents of a folder: every file of a supported format (a single file stands for itself). A
    folder's README describes the set and is not one of its documents (`../shared/eval-data/pdfs` has one:
    indexed, its words about pages and languages matched requests such as "영어로 번역해줘" to it)."""
    if not docs_dir.is_dir():
        return [docs_dir]
    return sorted(p for p in docs_dir.iterdir() if p.is_file() and p.suffix.lower() in SUPPORTED_SUFFIXES
                  and p.stem.lower() != "readme")


def _squash(text: str) -> str:
    return re.sub(r"[\s–—-]+", "", unicodedata.normalize("NFKC", text)).lower()


def location_hit(expected: str, locations: Sequence[Mapping[str, Any]], pages: Sequence[int] = ()) -> bool:
    """Whether a cited location is the expected one: the same slide or page number, a sheet row inside the
    cited row range, or a heading path that holds the expected heading or article."""
    want = _squash(expected)
    numbers = [int(n) for n in re.findall(r"\d+", expected)]
    for location in locations:
        kind = location.get("kind")
        if kind in ("slide", "page") and numbers and numbers[0] == location.get(kind):
            return True
        if kind == "sheet":
            sheet, _, rows = expected.rpartition("!")
            if _squash(sheet) != _squash(str(location.get("sheet", ""))):
                continue
            low, _, high = str(location.get("rows", "")).partition("-")
            wanted = [int(n) for n in re.findall(r"\d+", rows)]
            if not wanted or not low.isdigit():
                return not wanted
            top = int(high) if high.isdigit() else int(low)
            if any(int(low) <= n <= top for n in wanted):
                return True
        if kind == "heading" and want and want in _squash(str(location.get("heading", ""))):
            return True
    return bool(numbers) and re.match(r"^\s*(p\.?|page|페이지|쪽)", expected, re.I) is not None \
        and numbers[0] in pages


async def index_directory(agent: RagAgent, docs_dir: Path) -> list[dict[str, Any]]:
    """Index every document of `docs_dir` (storage_ref = file name)."""
    files = await asyncio.to_thread(document_files, docs_dir)
    docs = [DocumentInput(storage_ref=p.name, file_name=p.name, path=str(p), file_url=f"file://{p}") for p in files]
    return [r.to_dict() for r in await agent.indexing.index_many(docs)]


async def evaluate(agent: RagAgent, qa: list[dict[str, Any]], details: bool = False) -> dict[str, Any]:
    """Ask every question through the agent graph and score the replies."""
    per_item: list[dict[str, Any]] = []
    latencies: list[float] = []
    for item in qa:
        started = time.perf_counter()
        data: dict[str, Any] = {"language": "ko"}
        if item.get("history"):
            data["history"] = item["history"]
        with collect_degraded() as skipped:
            state = await agent.run_state(AgentRequest(text=item["question"], data=data))
        latencies.append((time.perf_counter() - started) * 1000)
        reply = state["reply"]
        sources = reply.data.get("sources") or []
        evidence = state.get("evidence")
        cited = state.get("cited")
        if cited is None:
            cited = [q.chunk for q in evidence.quotes] if evidence else []
        row: dict[str, Any] = {"id": item["id"], "kind": item.get("kind") or "",
                               "format": Path(str(item.get("file") or "")).suffix.lower().lstrip(".") or "none",
                               "status": reply.data.get("status"),
                               "max_score": reply.data.get("max_score"),
                               "question_coverage": reply.data.get("question_coverage"),
                               "cross_similarity": reply.data.get("cross_similarity"),
                               "cited": [(s["file_name"], s["page_label"] or s["pages"]) for s in sources],
                               "degraded": sorted(skipped)}
        if "reader_score" in reply.data:
            row["reader_score"] = reply.data["reader_score"]
        if "model_answerable" in reply.data:
            row["model_answerable"] = reply.data["model_answerable"]
            row["answer_by"] = reply.data.get("answer_by")
        if reply.data.get("status") == "ok":
            grounds = [c.hit.content for c in cited] + [f"{s['file_name']} {s['page_label']}" for s in sources]
            row["unsupported"] = unsupported_numbers(reply.text, grounds)
            row["has_unsupported"] = bool(row["unsupported"])
        if item["answer"] is None:
            row["correct_no_answer"] = reply.data.get("status") == STATUS_NO_RESULT
        else:
            expected = set(item["pages"])
            mine = [s for s in sources if s["file_name"] == item["file"]]
            row["file_hit"] = bool(mine)
            if expected:
                row["page_hit"] = any(expected & set(s["pages"]) for s in mine)
            if item.get("location"):
                row["location_hit"] = any(location_hit(item["location"], s.get("locations") or [], s["pages"])
                                          for s in mine)
            gold = normalize_span(item["answer"])
            cited_text = normalize_span(" ".join(c.hit.content for c in cited)) if sources else ""
            row["evidence_hit"] = bool(gold) and gold in cited_text
            row["answer_hit"] = bool(gold) and gold in normalize_span(reply.text)
            row["false_no_result"] = reply.data.get("status") == STATUS_NO_RESULT
            if item.get("evidence"):
                row["evidence_in_answer"] = evidence_shown(item["evidence"], reply.text)
                quotes = reply.data.get("quotes") or []
                row["answer_first"] = bool(quotes) and evidence_shown(item["evidence"], str(quotes[0].get("text", "")))
        per_item.append(row)
    answerable = [r for r in per_item if "file_hit" in r]
    negatives = [r for r in per_item if "correct_no_answer" in r]

    def share(rows: list[dict[str, Any]], key: str) -> float:
        rows = [r for r in rows if key in r]
        return round(sum(1 for r in rows if r[key]) / len(rows), 4) if rows else 0.0

    by_format: dict[str, dict[str, Any]] = {}
    for fmt in sorted({r["format"] for r in answerable}):
        rows = [r for r in answerable if r["format"] == fmt]
        by_format[fmt] = {"n": len(rows), "file_recall": share(rows, "file_hit"),
                          "location_recall": share(rows, "location_hit") if any("location_hit" in r for r in rows)
                          else None,
                          "page_recall": share(rows, "page_hit") if any("page_hit" in r for r in rows) else None,
                          "evidence_in_answer": share(rows, "evidence_in_answer"),
                          "false_no_result": share(rows, "false_no_result")}

    by_kind: dict[str, dict[str, Any]] = {}
    for kind in sorted({r["kind"] for r in per_item if r["kind"]}):
        rows = [r for r in per_item if r["kind"] == kind]
        kind_answerable = [r for r in rows if "file_hit" in r]
        kind_negatives = [r for r in rows if "correct_no_answer" in r]
        by_kind[kind] = {"n": len(rows),
                         "page_recall": share(kind_answerable, "page_hit")
                         if any("page_hit" in r for r in kind_answerable) else None,
                         "file_recall": share(kind_answerable, "file_hit") if kind_answerable else None,
                         "evidence_in_answer": share(kind_answerable, "evidence_in_answer")
                         if kind_answerable else None,
                         "no_answer_accuracy": share(kind_negatives, "correct_no_answer") if kind_negatives else None,
                         "false_no_result": share(kind_answerable, "false_no_result") if kind_answerable else None}

    ordered = sorted(latencies)
    result: dict[str, Any] = {
        "questions": len(per_item), "answerable": len(answerable), "unanswerable": len(negatives),
        "page_recall": share(answerable, "page_hit") if any("page_hit" in r for r in answerable) else None,
        "file_recall": share(answerable, "file_hit"),
        "location_recall": share(answerable, "location_hit") if any("location_hit" in r for r in answerable)
        else None,
        "answer_evidence_hit": share(answerable, "evidence_hit"),
        "answer_hit": share(answerable, "answer_hit"),
        "evidence_in_answer": share(answerable, "evidence_in_answer"),
        "answer_first": share(answerable, "answer_first"),
        "no_answer_accuracy": share(negatives, "correct_no_answer"),
        "false_no_result": share(answerable, "false_no_result"),
        "unsupported_numbers": share(per_item, "has_unsupported"),
        "by_kind": by_kind,
        "by_format": by_format,
        "mean_latency_ms": round(statistics.fmean(latencies), 1) if latencies else 0.0,
        "p50_latency_ms": round(ordered[len(ordered) // 2], 1) if ordered else 0.0,
        "p95_latency_ms": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.95))], 1) if ordered else 0.0,
        # Questions answered with a fallback (keyword search only while the embedding server was down).
        "degraded_items": sum(1 for r in per_item if r["degraded"]),
        "degraded": sorted({name for r in per_item for name in r["degraded"]}),
        "min_evidence": agent.settings.rag_min_evidence,
        "llm": "online" if agent.settings.llm_online else "offline",
        "embedding_model": agent.settings.embedding_model_name,
    }
    scored = [r for r in per_item if "reader_score" in r and ("file_hit" in r or "correct_no_answer" in r)]
    if scored:  # what other reader thresholds would have decided, on the same replies
        result["reader_threshold"] = _reader_threshold()
        result["no_answer_curve"] = no_answer_curve(scored, result["reader_threshold"])
    judged = [r for r in per_item if "model_answerable" in r]
    if judged:
        result["model_answerable_accuracy"] = round(sum(
            1 for r in judged if r["model_answerable"] == ("file_hit" in r)) / len(judged), 4)
        result["model_judged"] = len(judged)
        result["answered_by_llm"] = round(sum(1 for r in judged if r.get("answer_by") == "llm") / len(per_item), 4)
    if details:
        result["items"] = per_item
    return result


def _reader_threshold() -> float | None:
    from ai_llm.internal_rag_agent.reader.model import load_model

    model = load_model()
    return model.threshold if model else None


def no_answer_curve(rows: Sequence[Mapping[str, Any]], shipped: float | None,
                    thresholds: Sequence[float] = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
                    ) -> list[dict[str, float]]:
    """No-answer accuracy against false no-result at each reader threshold: a question counts as answered
    "not found" when its best reader score is under the threshold, or when its reply was `no_result` for a
    reason of its own (an unknown identifier: its score reached the `shipped` threshold)."""
    negatives = [r for r in rows if "correct_no_answer" in r]
    positives = [r for r in rows if "file_hit" in r]
    points = []
    for t in thresholds:
        def refused(r: Mapping[str, Any], t: float = t) -> bool:
            score = float(r["reader_score"])
            other = r["status"] == STATUS_NO_RESULT and (shipped is None or score >= shipped)
            return score < t or other
        points.append({"threshold": t,
                       "no_answer_accuracy": round(sum(refused(r) for r in negatives) / max(len(negatives), 1), 4),
                       "false_no_result": round(sum(refused(r) for r in positives) / max(len(positives), 1), 4)})
    return points


async def run_rag_eval(base: Settings, docs_dir: Path, qa_path: Path, details: bool = False,
                       korean_analysis: Sequence[str] = (), llm_url: str | None = None,
                       llm_model: str | None = None, limit: int = 0, compare_rules: bool = False) -> dict[str, Any]:
    """The whole `hub eval rag` run.

    Args:
        korean_analysis: run the whole evaluation once per Korean analysis (`kiwi`, `bigrams`), each on a fresh
            index, and report each under `by_korean_analysis` (the first is also the top-level result).
        llm_url, llm_model: also ask every question with this OpenAI-compatible model on the same index
            (offline figures top level, the model's under `llm`).
        limit: ask only this many questions, every k-th of the set (0: all).
        compare_rules: also ask every question on the same index with the other decider (the word rules when
            `RAG_READER` is on, the reader when off), reported under `rules` (or `reader`).
    """
    qa = spread(load_qa(qa_path), limit)
    modes = list(korean_analysis) or [text_analysis.KOREAN_ANALYSIS]
    results: dict[str, dict[str, Any]] = {}
    default = text_analysis.KOREAN_ANALYSIS
    try:
        for mode in modes:
            if mode not in ("kiwi", "bigrams"):
                raise ValueError(f"unknown Korean analysis {mode!r}: use kiwi or bigrams")
            text_analysis.KOREAN_ANALYSIS = mode
            async with rag_environment(base) as env:
                started = time.perf_counter()
                indexed = await index_directory(env.agent, docs_dir)
                index_s = time.perf_counter() - started
                result = await evaluate(env.agent, qa, details)
                if compare_rules:  # the same questions on the same index with the word rules deciding
                    rules = RagAgent(env.agent.store, env.agent.embeddings, env.agent.llm,
                                     env.settings.model_copy(update={"rag_reader": not env.settings.rag_reader}))
                    other = await evaluate(rules, qa, details)
                    result["reader" if rules.settings.rag_reader else "rules"] = other
                if llm_url:
                    model_settings = with_model_server(base, llm_url, llm_model)
                    model_name = model_settings.llm_model
                    online = RagAgent(env.agent.store, env.agent.embeddings, make_llm(model_settings), env.settings)
                    started = time.perf_counter()
                    result["llm"] = await evaluate(online, qa, details)
                    result["llm"].update(llm="online", model=model_name, base_url=llm_url,
                                         seconds=round(time.perf_counter() - started, 1))
            result["korean_analysis"] = mode
            result["indexed_documents"] = [{k: r[k] for k in ("file_name", "status", "chunks", "reason", "notices")}
                                           for r in indexed]
            result["index_seconds"] = round(index_s, 2)
            scanned = [r for r in indexed if r.get("ocr_pages")]
            ocr_s = sum(r["parse_ms"] for r in scanned) / 1000
            result["ocr_pages"] = sum(r["ocr_pages"] for r in scanned)
            result["ocr_pages_per_s"] = round(result["ocr_pages"] / ocr_s, 3) if ocr_s else None
            results[mode] = result
    finally:
        text_analysis.KOREAN_ANALYSIS = default
    first = dict(results[modes[0]])
    if len(modes) > 1:
        first["by_korean_analysis"] = {mode: {k: v for k, v in r.items() if k != "items"}
                                       for mode, r in results.items()}
    return first
