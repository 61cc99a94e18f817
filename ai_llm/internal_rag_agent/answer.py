"""The answer, the pipeline's last stage: the reply's text and data from the evidence, with or without a model.

The evidence decides whether the documents answer (`answerable`); offline the evidence sentences are quoted
whole, each with its file and location (`extractive_answer`); with a model, its grounded answer over the best
passages (`Answerer.judge`) leads when every number it states is in them. Sources (`group_sources`) and quotes
as data (`quote_records`) follow the reply's contract (docs/contracts.md).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field

from ai_llm.common.a2a.events import STATUS_NO_RESULT, STATUS_OK, announce_if_slow
from ai_llm.common.degraded import note_degraded
from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.messages import message
from ai_llm.common.settings import Settings
from ai_llm.internal_rag_agent.answer_extraction import Evidence, Quote
from ai_llm.internal_rag_agent.formats.structure import location_label
from ai_llm.internal_rag_agent.grounding import unsupported_numbers
from ai_llm.internal_rag_agent.rag_search_service import RankedChunk, SearchOutcome
from ai_llm.internal_rag_agent.vector_store import ChunkHit

log = logging.getLogger(__name__)


def page_label(pages: Sequence[int], printed: Mapping[int, str] | None = None) -> str:
    """`p.13–15`, `p.3, 7–8`; with `printed` (page → the label the page prints, `/PageLabels`), those labels:
    `p.7–8`, `p.iv` for pages 10–11 and 4."""
    ordered = sorted(set(pages))
    if not ordered:
        return ""
    printed = printed or {}

    def name(page: int) -> str:
        return printed.get(page) or str(page)

    ranges: list[str] = []
    start = prev = ordered[0]
    for page in [*ordered[1:], None]:
        if page is not None and page == prev + 1:
            prev = page
            continue
        ranges.append(f"{name(start)}–{name(prev)}" if prev != start else name(start))
        if page is not None:
            start = prev = page
    return "p." + ", ".join(ranges)


def hit_location(hit: ChunkHit) -> dict[str, Any] | None:
    """Where a chunk is (`formats.structure` location); a chunk indexed before locations has its page."""
    if hit.location:
        return hit.location
    return {"kind": "page", "page": hit.pages[0]} if hit.pages else None


def hit_label(hit: ChunkHit, language: str = "ko") -> str:
    """`p.3`, `슬라이드 4`, `예산!2–41`, `제1장 > 제2조(목적)`: the chunk's location as a person reads it."""
    location = hit_location(hit)
    if location is None or location.get("kind") == "page":
        label = page_label(hit.pages, _printed_pages(hit.pages, location))
        annex = (location or {}).get("annex")
        return f"{label} {annex}" if annex else label
    return location_label(location, language)


def quote_location(quote: Quote, lines: int = 1) -> dict[str, Any] | None:
    """Where a quote is: its chunk's location; a quoted sheet row adds its own number and label
    (`{"kind": "sheet", "sheet": "예산", "rows": "2-21", "row_number": "6", "row": "연구개발팀"}`; `row_number`
    "6-7" for a block of two rows), which its label reads (`예산!6 (연구개발팀)`)."""
    location = hit_location(quote.chunk.hit)
    line_rows = (location or {}).get("line_rows")
    if location is None or not line_rows:
        return location
    where = {k: v for k, v in location.items() if k != "line_rows"}
    named = [row for row in line_rows[quote.position:quote.position + lines] if row]
    if not named or quote.position >= len(line_rows) or not line_rows[quote.position]:
        return where
    first, last = int(named[0][0]), int(named[-1][0])
    where["row_number"] = f"{first}-{last}" if last != first else f"{first}"
    if len(named) == 1 and named[0][1]:
        where["row"] = str(named[0][1])
    return where


def quote_label(quote: Quote, language: str = "ko", lines: int = 1) -> str:
    """`예산!6 (연구개발팀)` for a quoted sheet row; the chunk's label (`hit_label`) for the rest."""
    location = quote_location(quote, lines)
    if location is not None and location.get("kind") == "sheet":
        return location_label(location, language)
    return hit_label(quote.chunk.hit, language)


def _printed_pages(pages: Sequence[int], location: Mapping[str, Any] | None) -> dict[int, str]:
    """The printed label of the chunk's page (a chunk lies on one page), where its PDF defines one."""
    label = (location or {}).get("label")
    return {pages[0]: str(label)} if label and pages else {}


def group_sources(quotes: Sequence[Quote], language: str = "ko") -> list[dict[str, Any]]:
    """File sources (contract shape), one per document, in the order first quoted, with the quoted pages
    (PDFs and scans) or locations (slides, sheet rows, sections); `page_label` reads them all."""
    by_ref: dict[str, dict[str, Any]] = {}
    labels: dict[str, list[str]] = {}
    printed: dict[str, dict[int, str]] = {}  # page → its printed label, per file
    for quote in quotes:
        hit = quote.chunk.hit
        entry = by_ref.setdefault(hit.storage_ref, {
            "type": "file", "file_name": hit.file_name, "file_id": hit.file_id, "storage_ref": hit.storage_ref,
            "pages": [], "page_label": "", "locations": [], "file_url": _public_url(hit.file_url), "score": 0.0})
        location = hit_location(hit)
        if location is None or location.get("kind") == "page":
            # `pages` stay the page indices (the viewer opens them, the evaluation scores them); the text a
            # person reads names the pages by their printed labels.
            entry["pages"] = sorted(set(entry["pages"]) | set(hit.pages))
            printed.setdefault(hit.storage_ref, {}).update(_printed_pages(hit.pages, location))
            annex = (location or {}).get("annex")
            if annex and annex not in labels.setdefault(hit.storage_ref, []):
                labels[hit.storage_ref].append(str(annex))
        else:
            # The data keep the chunk's place (`rows` of its section); the text names the quoted row.
            plain = {k: v for k, v in location.items() if k != "line_rows"}
            if plain not in entry["locations"]:
                entry["locations"].append(plain)
            label = quote_label(quote, language)
            if label and label not in labels.setdefault(hit.storage_ref, []):
                labels[hit.storage_ref].append(label)
        entry["score"] = round(max(entry["score"], quote.chunk.relevance), 4)
    for ref, entry in by_ref.items():
        entry["page_label"] = "; ".join(filter(None, [page_label(entry["pages"], printed.get(ref)),
                                                      *labels.get(ref, [])]))
    return list(by_ref.values())


def quote_records(quotes: Sequence[Quote], language: str = "ko") -> list[dict[str, Any]]:
    """The quoted text as data (`quotes` of the reply): each block with its file and location."""
    out: list[dict[str, Any]] = []
    for text, quote, size in _sized_blocks(quotes):
        hit = quote.chunk.hit
        out.append({"text": text, "file_id": hit.file_id, "file_name": hit.file_name or hit.storage_ref,
                    "storage_ref": hit.storage_ref, "location": quote_location(quote, size),
                    "label": quote_label(quote, language, size), "url": _public_url(hit.file_url)})
    return out


def _public_url(url: str | None) -> str | None:
    """A file's link when a person can open it (the backend's download route); never a server path."""
    return url if url and not url.startswith("file:") else None


def source_section(sources: Sequence[dict[str, Any]], language: str) -> str:
    lines = [message("rag.sources", language)]
    for s in sources:
        label = f" ({s['page_label']})" if s["page_label"] else ""
        lines.append(f"- **{s['file_name'] or s['storage_ref']}**{label}")
        if s.get("file_url"):  # the download link (never a server path: see `_public_url`)
            lines.append(f"  {message('rag.location', language)}: {s['file_url']}")
    return "\n".join(lines)


def quote_blocks(quotes: Sequence[Quote]) -> list[tuple[str, Quote]]:
    """Quoted text in reading order: adjacent sentences of one chunk join into one block."""
    return [(text, first) for text, first, _ in _sized_blocks(quotes)]


def _sized_blocks(quotes: Sequence[Quote]) -> list[tuple[str, Quote, int]]:
    """`quote_blocks` with the number of sentences in each block."""
    blocks: list[tuple[str, Quote, int]] = []
    last: Quote | None = None
    for quote in quotes:
        if last is not None and last.chunk.key == quote.chunk.key and quote.position == last.position + 1:
            text, first, size = blocks[-1]
            blocks[-1] = (f"{text} {quote.text}", first, size + 1)
        else:
            blocks.append((quote.text, quote, 1))
        last = quote
    return blocks


#: Passages an online model reads (the evidence's chunks first, then the best others), and how much of each:
#: the part around the evidence sentence. A 1.5B model on two cores reads about 25–50 tokens a second, so
#: three passages of 600 characters (about 1,000 tokens of Korean) are its prompt's bulk.
JUDGE_PASSAGES = 3
PASSAGE_CHARS = 600
JUDGE_MAX_TOKENS = 400


def judge_passages(evidence: Evidence, chunks: Sequence[RankedChunk],
                   limit: int = JUDGE_PASSAGES) -> list[tuple[RankedChunk, str]]:
    """The passages shown to the model: each evidence chunk (in quote order), then the best other chunks, each
    cut to `PASSAGE_CHARS` around its first quoted sentence."""
    first_quote: dict[str, str] = {}
    for quote in evidence.quotes:
        first_quote.setdefault(quote.chunk.key, quote.text)
    ordered = list({q.chunk.key: q.chunk for q in evidence.quotes}.values())
    ordered += [c for c in chunks if c.key not in first_quote]
    shown = []
    for chunk in ordered[:limit]:
        content = chunk.hit.content
        at = content.find(first_quote.get(chunk.key, "")[:80]) if chunk.key in first_quote else 0
        start = max(0, min(max(at, 0) - PASSAGE_CHARS // 3, len(content) - PASSAGE_CHARS))
        shown.append((chunk, content[start:start + PASSAGE_CHARS]))
    return shown


def merged_quotes(evidence: Sequence[Quote], cited: Sequence[Quote]) -> list[Quote]:
    """The evidence's quotes, then the model's cited passages it does not already quote from."""
    seen = {q.chunk.key for q in evidence}
    return [*evidence, *[q for q in cited if q.chunk.key not in seen]]


class GroundedAnswer(BaseModel):
    """Structured judgement asked from an online LLM over numbered passages."""

    answerable: bool = Field(description="true only if the passages state what the question asks")
    answer: str = Field("", description="the answer from the passages, citing them as [n]; empty if not answerable")
    cited: list[int] = Field(default_factory=list, description="numbers of the passages the answer uses")


def extractive_answer(evidence: Evidence, language: str, intro: bool = True) -> str:
    """The offline answer: the evidence sentences quoted whole, in the order chosen (with the reader, the one that
    states the answer first), each place cited once, after its last quote (after a model's answer,
    `intro=False`: the quotes alone, the passages it was written from)."""
    lines = [message("rag.extract_intro", language), ""] if intro else []
    blocks = _sized_blocks(evidence.quotes)
    for i, (text, quote, size) in enumerate(blocks):
        label = quote_label(quote, language, size)
        citation = f"> — {quote.chunk.hit.file_name or quote.chunk.hit.storage_ref}" + (f", {label}" if label else "")
        lines.append(f"> {text}")
        following = blocks[i + 1] if i + 1 < len(blocks) else None
        if following is not None and following[1].chunk.hit.storage_ref == quote.chunk.hit.storage_ref \
                and quote_label(following[1], language, following[2]) == label:
            lines.append(">")  # the next quote is from the same place: cited once, after it
            continue
        lines.append(citation)
        lines.append("")
    return "\n".join(lines).rstrip()



def answerable(evidence: Evidence, settings: Settings) -> bool:
    """Whether the evidence answers, by the settings' thresholds (`Evidence.answerable`)."""
    return evidence.answerable(settings.rag_min_evidence, settings.rag_min_question_coverage,
                               settings.rag_min_cross_similarity, settings.rag_min_question_similarity)


@dataclass(frozen=True)
class Answer:
    """The reply's text and structured part, and the chunks it quotes or cites (its passages)."""

    text: str
    data: dict[str, Any]
    cited: list[RankedChunk]


class Answerer:
    """The answer stage.

    Args:
        llm: the LLM port (offline, every call raises `OfflineUnsupported` and the evidence is quoted).
        settings: hub settings (`rag_min_*` thresholds).
    """

    def __init__(self, llm: LLM, settings: Settings) -> None:
        self.llm = llm
        self.settings = settings

    async def answer(self, question: str, language: str, outcome: SearchOutcome, evidence: Evidence, *,
                     context: list[str] | None, offline: bool, progress: Callable[..., Awaitable[None]],
                     stream: Callable[[str], Awaitable[None]] | None) -> Answer:
        """Answer only from the evidence, each sentence with its file and page, then the source section.

        The evidence decides whether the documents answer (`Evidence.answerable`): a model may add to an
        answer, and takes one away (or gives one) only where the reader's score falls in its uncertain band
        (`Evidence.uncertain`), where the model's own judgement decides. With a model (the query-variant call did not meet
        `OfflineUnsupported`: `offline` is false), an answerable question's best passages go to it; its
        structured reply (`GroundedAnswer`) is streamed to `stream` as it is written and becomes the answer when
        it is answerable and every number it states is in the passages it was shown
        (`grounding.unsupported_numbers`). The sources are the evidence's, then those the model cited.
        Otherwise, and offline, the evidence is quoted. `data.model_answerable` records the model's own
        judgement; `progress` announces the model's answer when it takes a while.
        """
        data: dict[str, Any] = {"queries": outcome.queries, "max_score": round(evidence.best_coverage, 4),
                                "question_coverage": round(evidence.question_coverage, 4),
                                "cross_similarity": round(evidence.cross_similarity, 4),
                                "question_similarity": round(evidence.similarity, 4),
                                "question": question}
        if context:
            data["context"] = context  # the earlier turn a follow-up was searched with
        if evidence.reader_best is not None:
            data["reader_score"] = evidence.reader_best
        found = answerable(evidence, self.settings)
        # In the reader's uncertain band a connected model's own judgement decides, both ways (ADR 0005).
        uncertain = not offline and bool(outcome.chunks) and evidence.uncertain and not evidence.unknown
        if uncertain:
            data["reader_uncertain"] = True
        if not found and not uncertain:
            return self._no_result(evidence, language, data)
        if not offline and outcome.chunks:
            async def generating() -> None:
                await progress(message("rag.generating", language, n=len(shown)), stage="generating", progress=0.8)

            shown = judge_passages(evidence, outcome.chunks)
            judged = await announce_if_slow(self.judge(question, shown, language, stream), generating)
            if judged is not None:
                answer, cited = judged
                data.update(judged_by="llm", model_answerable=answer is not None)
                if answer is None and uncertain:  # the model reads no answer where the reader was unsure
                    return self._no_result(evidence, language, data)
                if answer is not None:
                    missing = unsupported_numbers(answer, [f"{c.hit.file_name} {hit_label(c.hit, language)} "
                                                           f"{text}" for c, text in shown])
                    if not missing:
                        quotes = merged_quotes(evidence.quotes, cited)
                        sources = group_sources(quotes, language)
                        # The quotes a person opens are the evidence's sentences (a cited passage is a source).
                        data.update(status=STATUS_OK, sources=sources,
                                    quotes=quote_records(evidence.quotes, language), answer_by="llm")
                        # The model's answer, then the evidence it stands on, quoted as offline: a model adds
                        # to what the person can check, it never replaces it.
                        text = (f"{answer}\n\n{extractive_answer(evidence, language, intro=False)}\n\n"
                                f"{source_section(sources, language)}")
                        return Answer(text, data, [q.chunk for q in quotes])
                    data["unsupported_numbers"] = missing  # the draft stated numbers from elsewhere: not used
        if not found:  # uncertain, and the model's answer could not be used: the reader's "no" stands
            return self._no_result(evidence, language, data)
        answer = extractive_answer(evidence, language)  # quoted at once: no status line for it
        sources = group_sources(evidence.quotes, language)
        data.update(status=STATUS_OK, sources=sources, quotes=quote_records(evidence.quotes, language),
                    answer_by="evidence")
        text = f"{answer}\n\n{source_section(sources, language)}"
        return Answer(text, data, [q.chunk for q in evidence.quotes])

    @staticmethod
    def _no_result(evidence: Evidence, language: str, data: dict[str, Any]) -> Answer:
        """"Not in your documents": the identifiers no document holds, or the closest document, named and
        never quoted as if it answered."""
        data.update(status=STATUS_NO_RESULT, sources=[])
        text = message("rag.no_result", language)
        if evidence.unknown:  # the question names a version, key or CVE no document holds: say which
            data["unknown"] = evidence.unknown
            text += " " + message("rag.no_result_unknown", language, names=", ".join(evidence.unknown))
        elif evidence.quotes:
            hit = evidence.quotes[0].chunk.hit
            label = quote_label(evidence.quotes[0], language)
            data["closest"] = {"file_name": hit.file_name or hit.storage_ref, "file_id": hit.file_id,
                               "storage_ref": hit.storage_ref, "label": label}
            text += " " + message("rag.no_result_closest", language, file=f"'{hit.file_name or hit.storage_ref}'",
                                  label=f" ({label})" if label else "")
        return Answer(text, data, [])

    async def judge(self, question: str, shown: Sequence[tuple[RankedChunk, str]], language: str,
                    stream: Callable[[str], Awaitable[None]] | None = None
                    ) -> tuple[str | None, list[Quote]] | None:
        """The model's grounded answer over numbered passages: (the answer, or None when it says the passages
        do not answer; the cited passages), or None offline or when the call failed (the evidence answers then).
        `stream` receives the answer written so far as the reply grows."""
        passages = "\n\n".join(f"[{i + 1}] ({c.hit.file_name} {hit_label(c.hit, language)}) {text}"
                                 for i, (c, text) in enumerate(shown))
        answer_language = "Korean" if language == "ko" else "English"
        messages = [
            {"role": "system", "content": "Decide whether the numbered passages answer the question. "
             "answerable is true only when they state what is asked (the value, name, date, reason or "
             f"procedure itself), not merely the topic. When answerable, answer in {answer_language}, "
             "concisely, only from the passages, copying numbers and units exactly as the passages write them, "
             "citing them as [n], and list the numbers of the passages used in `cited`. Do not add outside facts."},
            {"role": "user", "content": f"Passages:\n{passages}\n\nQuestion: {question}"}]
        judged: GroundedAnswer | None = None
        try:
            async for item in self.llm.stream_parse(messages, GroundedAnswer, purpose="rag_generate",
                                                    max_tokens=JUDGE_MAX_TOKENS):
                if isinstance(item, GroundedAnswer):
                    judged = item
                    if stream is not None and item.answerable:
                        await stream(item.answer)  # the whole answer (a last piece the partials did not show)
                elif stream is not None and item.get("answerable") is True and isinstance(item.get("answer"), str):
                    await stream(item["answer"])
        except OfflineUnsupported:
            return None
        except LLMError as exc:  # a failed call must not lose the answer: the offline evidence decides
            log.warning("LLM answer failed, answering from the offline evidence: %r", exc)
            note_degraded("llm_answer", exc)
            return None
        if judged is None:
            return None
        if not judged.answerable or not judged.answer.strip():
            return None, []
        cited = [shown[n - 1][0] for n in dict.fromkeys(judged.cited) if 1 <= n <= len(shown)]
        return judged.answer.strip(), [Quote(text, c, 0, c.relevance, 0.0) for c, text in shown if c in cited]
