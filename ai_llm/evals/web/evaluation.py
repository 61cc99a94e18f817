"""HotpotQA evaluation of the web-research agent over a closed local "web" (`hub eval web`).

Every context paragraph of the file becomes one page of the gateway's local provider (URL from its title);
each question goes through the real agent against a real gateway process. Reported per depth mode:
supporting-paragraph recall of the sources the answer cites, exact match and token F1 of the short answer
(SQuAD normalisation), `no_result` rate, mean latency and searches per question. With a set of questions the
corpus cannot answer (`--unanswerable`), also the share of them answered `no_result` (`no_answer_accuracy`).
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import string
import tempfile
import time
from collections import Counter
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_llm.common.a2a.events import AgentReply
from ai_llm.common.a2a.server import free_port
from ai_llm.common.degraded import collect_degraded
from ai_llm.common.embeddings import OpenAIEmbeddings
from ai_llm.common.llm import LocalEngine
from ai_llm.common.runtime import HubDeps
from ai_llm.common.settings import Settings
from ai_llm.common.store.jsonl import iter_jsonl
from ai_llm.evals.harness import module_process
from ai_llm.hub.process import embedding_server
from ai_llm.search_gateway.corpus import hotpotqa_pages, title_for_url
from ai_llm.web_research_agent.agent import WebResearchAgent


class EvalDataError(ValueError):
    """The evaluation file is missing or not HotpotQA JSONL (message names file and line)."""


def read_rows(path: Path) -> list[dict[str, Any]]:
    """HotpotQA rows; a clear error naming the line when the file is not HotpotQA JSONL."""
    rows: list[dict[str, Any]] = []
    for lineno, row in iter_jsonl(path, EvalDataError):
        missing = {"question", "answer", "supporting_facts", "context"} - set(row if isinstance(row, dict) else {})
        if missing:
            raise EvalDataError(f"{path}:{lineno}: missing HotpotQA keys {sorted(missing)}")
        rows.append(row)
    if not rows:
        raise EvalDataError(f"{path} holds no questions")
    return rows


def normalize_answer(text: str) -> str:
    """SQuAD answer normalisation: lower case, no punctuation, articles or extra spaces."""
    text = text.lower()
    text = "".join(ch for ch in text if ch not in set(string.punctuation))
    text = re.sub(r"\b(a|an|the)\b", " ", text)
    return " ".join(text.split())


def exact_match(prediction: str, gold: str) -> float:
    return float(normalize_answer(prediction) == normalize_answer(gold))


def token_f1(prediction: str, gold: str) -> float:
    pred = normalize_answer(prediction).split()
    ref = normalize_answer(gold).split()
    common = Counter(pred) & Counter(ref)
    same = sum(common.values())
    if not pred or not ref or same == 0:
        return 0.0
    precision, recall = same / len(pred), same / len(ref)
    return 2 * precision * recall / (precision + recall)


Reply = tuple[str, float | None]  # a reply's status and its best sentence's reader cosine


@dataclass
class QuestionResult:
    status: str
    recall: float
    em: float
    f1: float
    gold_in_text: float
    latency_ms: float
    searches: int
    pages_read: int
    degraded: list[str] = field(default_factory=list)
    reader_best: float | None = None  # the reader's best sentence cosine (deep read with the reader)


def score_reply(row: dict[str, Any], data: dict[str, Any], text: str, latency_ms: float) -> QuestionResult:
    """Metrics of one reply against the HotpotQA row."""
    gold_titles = {html.unescape(t) for t, _ in row["supporting_facts"]}
    cited = {title_for_url(s["url"]) for s in data.get("sources") or []}
    answer = str(data.get("answer") or "")
    gold = str(row["answer"])
    return QuestionResult(
        status=str(data.get("status")),
        recall=len(gold_titles & cited) / len(gold_titles) if gold_titles else 0.0,
        em=exact_match(answer, gold), f1=token_f1(answer, gold),
        gold_in_text=float(normalize_answer(gold) in normalize_answer(text)),
        latency_ms=latency_ms, searches=int(data.get("searches") or 0),
        pages_read=len(data.get("pages_read") or []),
        reader_best=float(data["reader_best"]) if data.get("reader_best") is not None else None)


def summarise(results: list[QuestionResult]) -> dict[str, Any]:
    n = len(results) or 1
    return {
        "questions": len(results),
        "supporting_recall": round(sum(r.recall for r in results) / n, 4),
        "exact_match": round(sum(r.em for r in results) / n, 4),
        "f1": round(sum(r.f1 for r in results) / n, 4),
        "answer_in_text_rate": round(sum(r.gold_in_text for r in results) / n, 4),
        "no_result_rate": round(sum(r.status == "no_result" for r in results) / n, 4),
        "error_rate": round(sum(r.status not in ("ok", "no_result") for r in results) / n, 4),
        "mean_latency_ms": round(sum(r.latency_ms for r in results) / n, 1),
        "searches_per_question": round(sum(r.searches for r in results) / n, 3),
        "pages_read_per_question": round(sum(r.pages_read for r in results) / n, 3),
        # Questions answered with a fallback (e.g. keyword scores with the embedding server down).
        "degraded_items": sum(1 for r in results if r.degraded),
        "degraded": sorted({name for r in results for name in r.degraded}),
    }


@contextmanager
def hub_processes(corpus: Path, work: Path, embedding_url: str | None = None) -> Iterator[dict[str, str]]:
    """Start the embedding server (unless given) and the search gateway over `corpus`; stop both after."""
    with embedding_server(embedding_url, log_dir=work / "logs", timeout_s=180) as embedding_base:
        gw_port = free_port()
        with module_process("search_gateway", "ai_llm.search_gateway", ["--port", str(gw_port)],
                            {"LOCAL_CORPUS": str(corpus), "EMBEDDING_URL": embedding_base,
                             "DATA_DIR": str(work / "data")}, work / "logs",
                            f"http://127.0.0.1:{gw_port}/healthz", timeout_s=180):
            yield {"gateway_url": f"http://127.0.0.1:{gw_port}", "embedding_url": embedding_base}


@asynccontextmanager
async def offline_agent(gateway_url: str, embedding_url: str, **kwargs: Any) -> AsyncIterator[WebResearchAgent]:
    """A web agent in offline mode wired to a gateway and an embedding server."""
    settings = Settings(search_gateway_url=gateway_url, embedding_url=embedding_url,  # type: ignore[call-arg]
                        openai_api_key=None, openai_base_url=None, mcp_servers=None, _env_file=None)
    embeddings = OpenAIEmbeddings(embedding_url, settings.embedding_model_name)
    deps = HubDeps(settings=settings, embeddings=embeddings, llm=LocalEngine())
    try:
        yield WebResearchAgent(deps, **kwargs)
    finally:
        await embeddings.close()


async def _ask(agent: WebResearchAgent, question: str, depth: str, language: str) -> tuple[AgentReply, float]:
    """The agent's reply and its latency in ms; an `error` reply (a dropped MCP connection) is asked once
    more, and then it counts."""
    started = time.perf_counter()
    reply = await agent.research(question, depth=depth, language=language)  # type: ignore[arg-type]
    if reply.data.get("status") == "error":
        started = time.perf_counter()
        reply = await agent.research(question, depth=depth, language=language)  # type: ignore[arg-type]
    return reply, (time.perf_counter() - started) * 1000


async def evaluate_rows(agent: WebResearchAgent, rows: list[dict[str, Any]], depth: str,
                        concurrency: int = 4) -> list[QuestionResult]:
    """Ask every question (bounded concurrency) and score the replies, in row order."""
    gate = asyncio.Semaphore(concurrency)

    async def one(row: dict[str, Any]) -> QuestionResult:
        async with gate:
            with collect_degraded() as skipped:
                reply, latency_ms = await _ask(agent, row["question"], depth, "en")
            result = score_reply(row, reply.data, reply.text, latency_ms)
            result.degraded = sorted(skipped)
            return result

    return list(await asyncio.gather(*(one(row) for row in rows)))


def read_unanswerable(path: Path) -> list[dict[str, Any]]:
    """Questions the corpus cannot answer (`question`, optional `id`, `kind`, `language`)."""
    rows: list[dict[str, Any]] = []
    for lineno, row in iter_jsonl(path, EvalDataError):
        if not isinstance(row, dict) or not str(row.get("question") or "").strip():
            raise EvalDataError(f"{path}:{lineno}: each line needs a non-empty `question`")
        rows.append(row)
    if not rows:
        raise EvalDataError(f"{path} holds no questions")
    return rows


async def evaluate_unanswerable(agent: WebResearchAgent, rows: list[dict[str, Any]], depth: str,
                                concurrency: int = 4) -> dict[str, Any]:
    """Ask questions whose answer is in no page: `no_answer_accuracy` is the share answered `no_result`
    (overall, per `kind` and per `language`); `replies` holds each reply's status and reader cosine."""
    gate = asyncio.Semaphore(concurrency)

    async def one(row: dict[str, Any]) -> Reply:
        async with gate:
            reply, _ = await _ask(agent, row["question"], depth, str(row.get("language") or "en"))
            best = reply.data.get("reader_best")
            return str(reply.data.get("status")), float(best) if best is not None else None

    replies = list(await asyncio.gather(*(one(row) for row in rows)))
    statuses = [status for status, _ in replies]

    def accuracy(picked: list[str]) -> dict[str, Any]:
        return {"n": len(picked), "no_answer_accuracy": round(sum(s == "no_result" for s in picked) / len(picked), 4)}

    out: dict[str, Any] = {**accuracy(statuses), "error_rate": round(
        sum(s not in ("ok", "no_result") for s in statuses) / len(statuses), 4),
        "replies": replies}
    for key in ("kind", "language"):
        values = sorted({str(row.get(key) or "") for row in rows} - {""})
        if values:
            out[f"by_{key}"] = {v: accuracy([s for s, row in zip(statuses, rows, strict=True)
                                              if str(row.get(key) or "") == v]) for v in values}
    return out


#: Reader cosines at which the curve is drawn (the encoder's "none of them" cosine is about 0.79).
READER_CURVE = (0.75, 0.76, 0.77, 0.78, 0.79, 0.8)


def reader_curve(answerable: list[Reply], unanswerable: list[Reply]) -> list[dict[str, float]]:
    """What refusing every answer whose best sentence's reader cosine falls under a threshold would give, at
    each of `READER_CURVE`: no-answer accuracy over the unanswerable questions and false no-result over the
    answerable ones (a reply already `no_result` stays refused at every threshold)."""
    def refused(reply: Reply, t: float) -> bool:
        status, best = reply
        return status == "no_result" or (status == "ok" and best is not None and best < t)

    return [{"threshold": t,
             "no_answer_accuracy": round(sum(refused(r, t) for r in unanswerable) / max(len(unanswerable), 1), 4),
             "false_no_result": round(sum(refused(r, t) for r in answerable) / max(len(answerable), 1), 4)}
            for t in READER_CURVE]


def run_hotpotqa_eval(path: Path, n: int | None, depths: list[str], concurrency: int = 4, skip: int = 0,
                      unanswerable: Path | None = None, compare_reader: bool = False,
                      embedding_url: str | None = None) -> dict[str, Any]:
    """The whole `hub eval web` run: corpus, processes, both depth modes, metrics.

    Args:
        skip: leave out the first `skip` questions (with `n`: a slice of the file, e.g. a test half).
        unanswerable: also ask these questions, whose answers are in no page of the corpus, and report
            `no_answer_accuracy` per mode beside the HotpotQA metrics (whose `no_result_rate` is then the
            false no-result rate).
        compare_reader: also run the `pages` mode with the deep-read chunks ranked without the reader
            (`WEB_READER` off) on the same processes: mode `pages_without_reader`, and `reader_vs_rules`.
        embedding_url: a running embedding server (`…/v1`, `EMBEDDING_URL`) to use instead of starting one.
    """
    rows = read_rows(path)
    pages = hotpotqa_pages(rows)
    asked = rows[skip:skip + n] if n else rows[skip:]
    negatives = read_unanswerable(unanswerable) if unanswerable else []
    with tempfile.TemporaryDirectory(prefix="hub-eval-web-") as tmp:
        work = Path(tmp)
        corpus = work / "corpus.jsonl"
        corpus.write_text("".join(json.dumps(p, ensure_ascii=False) + "\n" for p in pages), encoding="utf-8")
        with hub_processes(corpus, work, embedding_url) as urls:
            async def run_mode(agent: WebResearchAgent, depth: str) -> dict[str, Any]:
                results = await evaluate_rows(agent, asked, depth, concurrency)
                summary = summarise(results)
                if negatives:
                    summary["unanswerable"] = await evaluate_unanswerable(agent, negatives, depth, concurrency)
                    replies = summary["unanswerable"].pop("replies")
                    if any(r.reader_best is not None for r in results):
                        summary["reader_no_answer_curve"] = reader_curve(
                            [(r.status, r.reader_best) for r in results], replies)
                return summary

            async def run_all() -> dict[str, Any]:
                out: dict[str, Any] = {}
                async with offline_agent(urls["gateway_url"], urls["embedding_url"]) as agent:
                    for depth in depths:
                        out[depth] = await run_mode(agent, depth)
                if compare_reader and "pages" in depths:
                    async with offline_agent(urls["gateway_url"], urls["embedding_url"], reader=False) as agent:
                        out["pages_without_reader"] = await run_mode(agent, "pages")
                return out

            modes = asyncio.run(run_all())
    report: dict[str, Any] = {"dataset": str(path), "corpus_pages": len(pages), "questions": len(asked),
                              "skipped": skip, "unanswerable_set": str(unanswerable) if unanswerable else None,
                              "relevance_threshold": 0.5, "llm": "offline LocalEngine", "modes": modes}
    if "snippets" in modes and "pages" in modes:
        base = modes["snippets"]
        report["pages_vs_snippets"] = {
            key: round(modes["pages"][key] - base[key], 4)
            for key in ("supporting_recall", "exact_match", "f1", "answer_in_text_rate", "no_result_rate")}
    if "pages_without_reader" in modes:
        with_reader, without = modes["pages"], modes["pages_without_reader"]
        report["reader_vs_rules"] = {
            key: round(with_reader[key] - without[key], 4)
            for key in ("supporting_recall", "exact_match", "f1", "answer_in_text_rate", "no_result_rate",
                        "mean_latency_ms")}
        if negatives:
            report["reader_vs_rules"]["no_answer_accuracy"] = round(
                with_reader["unanswerable"]["no_answer_accuracy"] - without["unanswerable"]["no_answer_accuracy"], 4)
    return report
