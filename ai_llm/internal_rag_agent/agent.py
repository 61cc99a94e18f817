"""The internal-RAG agent's logic: a LangGraph graph.

```
contextualize_question → intent_router ─┬→ vector_search ─┬→ generate → END
                                        │                 └→ clarify → END   (context-dependent, no history, nothing found)
                                        ├→ index_document → END
                                        ├→ manage_document → END   (delete_document / update_document skills)
                                        └→ clarify → END
```

Replies carry text and a structured part (`status`, `sources`, `max_score`, `queries` / `results`); the
status is decided by retrieval scores, never by phrases.
"""

from __future__ import annotations

import asyncio
import logging
import re
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, TypedDict

import numpy as np
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field

from ai_llm.common.a2a.events import (
    STATUS_ERROR,
    STATUS_NEEDS_CLARIFICATION,
    STATUS_NO_RESULT,
    STATUS_OK,
    AgentReply,
    announce_if_slow,
)
from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import (
    EmbeddingError,
    Embeddings,
    embed_queries_and_passages,
    rescale_similarity,
)
from ai_llm.common.identity import Viewer, viewer_of_metadata
from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.messages import message
from ai_llm.common.settings import Settings
from ai_llm.common.text import is_korean, normalize
from ai_llm.common.text.analysis import QueryTerms, TermStats
from ai_llm.internal_rag_agent.answer_extraction import (
    CHUNKS_CONSIDERED,
    Evidence,
    Quote,
    candidate_sentences,
    content_lines,
    find_evidence,
    other_language,
)
from ai_llm.internal_rag_agent.cross_language import CrossLingualJudge, translated_query
from ai_llm.internal_rag_agent.formats.structure import location_label
from ai_llm.internal_rag_agent.grounding import unsupported_numbers
from ai_llm.internal_rag_agent.indexing_service import DocumentInput, IndexingService
from ai_llm.internal_rag_agent.rag_search_service import RagSearchService, RankedChunk, SearchOutcome
from ai_llm.internal_rag_agent.vector_store import ChunkHit, VectorStore, unpack_line_vectors

log = logging.getLogger(__name__)

AGENT_NAME = "internal_rag"

#: Chunks in the other language than the question's added for the cross-lingual model when the words did not
#: answer (`RagAgent._other_language_chunks`), taken from this many nearest the question's vector.
CROSS_LANGUAGE_CHUNKS = 3
CROSS_LANGUAGE_FETCH = 60

# --- contextualisation --------------------------------------------------------------------------------
_ARTIFACT = re.compile(r"\[이전\s*대화\](?P<history>.*?)\[현재\s*질문\]", re.S)
_PREVIOUS_RESULTS = re.compile(r"\n\s*이전 결과:.*\Z", re.S)
_KO_REFERENCE = re.compile(r"그것|그거|그게|이것|이거|저것|위에서|위의|방금|아까|앞서|앞에서|해당\s*(문서|내용|파일)|그\s*(문서|내용|파일|부분)|(^|\s)(그|저|이|그런)\s+\S")
_EN_REFERENCE = re.compile(
    r"\b(above|previous(ly)?|earlier|aforementioned|you (just )?(said|mentioned))\b"
    r"|\b(about|of|in|explain|summari[sz]e|from|on)\s+(it|that|this|them|those)\s*[?.!]?\s*$"
    r"|^(and|also|what about|how about)\b|\b(it|that|this|them|those)\s*[?.!]?\s*$",
    re.IGNORECASE)
_HISTORY_LINE = re.compile(r"^\s*(user|사용자|agent|assistant|에이전트|AI)\s*[:：]\s*(.*)$", re.I)


def strip_artifacts(text: str) -> tuple[str, list[dict[str, str]]]:
    """Remove `[이전 대화] … [현재 질문]` wrappers and an appended `이전 결과:` block.

    Returns the bare question and any history turns found inside the wrapper.
    """
    history: list[dict[str, str]] = []
    match = _ARTIFACT.search(text)
    if match:
        for line in match.group("history").splitlines():
            m = _HISTORY_LINE.match(line)
            if m:
                role = "user" if m.group(1).lower() in ("user", "사용자") else "agent"
                history.append({"role": role, "text": m.group(2).strip()})
        text = text[match.end():]
    text = _PREVIOUS_RESULTS.sub("", text)
    return normalize(text), history


def _few_content_words(question: str) -> bool:
    """A question of at most three content words ("그럼 최대 속도는?"): in a conversation it leans on it."""
    from ai_llm.common.text.analysis import KOREAN_QUERY_STOPWORDS, QUERY_STOPWORDS, analyze

    words = {t for t in analyze(question) if t not in KOREAN_QUERY_STOPWORDS and t not in QUERY_STOPWORDS}
    return len(words) <= 3


def is_context_dependent(question: str) -> bool:
    """True when the question points at something said before (그것, 방금, above, it …)."""
    return bool(_KO_REFERENCE.search(question) or _EN_REFERENCE.search(question))


def page_label(pages: Sequence[int]) -> str:
    """`p.13–15`, `p.3, 7–8`."""
    ordered = sorted(set(pages))
    if not ordered:
        return ""
    ranges: list[str] = []
    start = prev = ordered[0]
    for page in [*ordered[1:], None]:
        if page is not None and page == prev + 1:
            prev = page
            continue
        ranges.append(f"{start}–{prev}" if prev != start else f"{start}")
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
        return page_label(hit.pages)
    return location_label(location, language)


def group_sources(quotes: Sequence[Quote], language: str = "ko") -> list[dict[str, Any]]:
    """File sources (contract shape), one per document, in the order first quoted, with the quoted pages
    (PDFs and scans) or locations (slides, sheet rows, sections); `page_label` reads them all."""
    by_ref: dict[str, dict[str, Any]] = {}
    labels: dict[str, list[str]] = {}
    for quote in quotes:
        hit = quote.chunk.hit
        entry = by_ref.setdefault(hit.storage_ref, {
            "type": "file", "file_name": hit.file_name, "file_id": hit.file_id, "storage_ref": hit.storage_ref,
            "pages": [], "page_label": "", "locations": [], "file_url": _public_url(hit.file_url), "score": 0.0})
        location = hit_location(hit)
        if location is None or location.get("kind") == "page":
            entry["pages"] = sorted(set(entry["pages"]) | set(hit.pages))
        elif location not in entry["locations"]:
            entry["locations"].append(location)
            label = location_label(location, language)
            if label and label not in labels.setdefault(hit.storage_ref, []):
                labels[hit.storage_ref].append(label)
        entry["score"] = round(max(entry["score"], quote.chunk.relevance), 4)
    for ref, entry in by_ref.items():
        entry["page_label"] = "; ".join(filter(None, [page_label(entry["pages"]), *labels.get(ref, [])]))
    return list(by_ref.values())


def quote_records(quotes: Sequence[Quote], language: str = "ko") -> list[dict[str, Any]]:
    """The quoted text as data (`quotes` of the reply): each block with its file and location."""
    out: list[dict[str, Any]] = []
    for text, quote in quote_blocks(quotes):
        hit = quote.chunk.hit
        out.append({"text": text, "file_id": hit.file_id, "file_name": hit.file_name or hit.storage_ref,
                    "storage_ref": hit.storage_ref, "location": hit_location(hit),
                    "label": hit_label(hit, language), "url": _public_url(hit.file_url)})
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
    blocks: list[tuple[str, Quote]] = []
    last: Quote | None = None
    for quote in quotes:
        if last is not None and last.chunk.key == quote.chunk.key and quote.position == last.position + 1:
            text, first = blocks[-1]
            blocks[-1] = (f"{text} {quote.text}", first)
        else:
            blocks.append((quote.text, quote))
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


class StandaloneQuestion(BaseModel):
    """Structured output asked from an online LLM for a follow-up."""

    question: str = Field(description="the follow-up as one stand-alone question, in its language")


#: Token budget of the follow-up rewrite (one question).
STANDALONE_MAX_TOKENS = 120


class GroundedAnswer(BaseModel):
    """Structured judgement asked from an online LLM over numbered passages."""

    answerable: bool = Field(description="true only if the passages state what the question asks")
    answer: str = Field("", description="the answer from the passages, citing them as [n]; empty if not answerable")
    cited: list[int] = Field(default_factory=list, description="numbers of the passages the answer uses")


def extractive_answer(evidence: Evidence, language: str, intro: bool = True) -> str:
    """The offline answer: the evidence sentences quoted whole, each with its file and page (after a model's
    answer, `intro=False`: the quotes alone, the passages it was written from)."""
    lines = [message("rag.extract_intro", language), ""] if intro else []
    for text, quote in quote_blocks(evidence.quotes):
        lines.append(f"> {text}")
        label = hit_label(quote.chunk.hit, language)
        lines.append(f"> — {quote.chunk.hit.file_name or quote.chunk.hit.storage_ref}" + (f", {label}" if label else ""))
        lines.append("")
    return "\n".join(lines).rstrip()


# --- graph state ----------------------------------------------------------------------------------------
class RagState(TypedDict, total=False):
    """State flowing through the graph."""

    text: str
    data: dict[str, Any]
    history: list[dict[str, str]]
    viewer: Viewer  # whose documents this request may read (verified identity, `ai_llm/common/identity.py`)
    language: str
    question: str
    context_dependent: bool
    rewritten: bool
    context: list[str]
    document: str | None  # a follow-up's conversation document (storage ref): its chunks rank first
    offline: bool  # the query-variant call met `OfflineUnsupported`: no model answers this request
    intent: str
    outcome: SearchOutcome
    evidence: Evidence
    reply: AgentReply
    cited: list[RankedChunk]  # the chunks the reply quotes or cites (its passages)


ProgressFn = Callable[..., Awaitable[None]]


def _progress(config: RunnableConfig) -> ProgressFn:
    fn = (config.get("configurable") or {}).get("progress")
    if fn is None:
        async def silent(*_: Any, **__: Any) -> None:
            return None
        return silent
    return fn  # type: ignore[no-any-return]


INDEX_WORDS = re.compile(r"색인|인덱싱|인덱스|임베딩|\bindex(ing)?\b|\bingest\b", re.I)


class RagAgent:
    """Internal-document RAG: indexing and page-cited answers.

    Args:
        store: vector store adapter.
        embeddings: embedding port.
        llm: the LLM port (offline, every call raises `OfflineUnsupported` and the rules and evidence decide).
        settings: hub settings (rag_* fields, MAX_UPLOAD_MB, UI_LANGUAGE).
    """

    def __init__(self, store: VectorStore, embeddings: Embeddings, llm: LLM, settings: Settings) -> None:
        self.store = store
        self.embeddings = embeddings
        self.llm = llm
        self.settings = settings
        self.search_service = RagSearchService(store, embeddings, llm, settings)
        self.indexing = IndexingService(store, embeddings, settings)
        self.cross_judge = CrossLingualJudge()
        self.graph = self._build()

    def _build(self) -> Any:
        graph = StateGraph(RagState)
        graph.add_node("contextualize_question", self.contextualize_question)
        graph.add_node("intent_router", self.intent_router)
        graph.add_node("vector_search", self.vector_search)
        graph.add_node("generate", self.generate)
        graph.add_node("index_document", self.index_document)
        graph.add_node("manage_document", self.manage_document)
        graph.add_node("clarify", self.clarify)
        graph.add_edge(START, "contextualize_question")
        graph.add_edge("contextualize_question", "intent_router")
        graph.add_conditional_edges("intent_router", lambda s: s["intent"], {
            "search": "vector_search", "index": "index_document", "delete": "manage_document",
            "update": "manage_document", "clarify": "clarify", "clarify_index": "clarify"})
        graph.add_conditional_edges("vector_search", self._after_search, {"generate": "generate", "clarify": "clarify"})
        for node in ("generate", "index_document", "manage_document", "clarify"):
            graph.add_edge(node, END)
        return graph.compile()

    # -- entry point -------------------------------------------------------------------------------
    async def run(self, request: AgentRequest, progress: Progress | ProgressFn | None = None) -> AgentReply:
        """Run the graph for one A2A request."""
        return (await self.run_state(request, progress))["reply"]

    async def run_state(self, request: AgentRequest, progress: Progress | ProgressFn | None = None) -> RagState:
        """Run the graph; the final state (reply, search outcome) — the evaluation reads the cited chunks."""
        language = str(request.data.get("language") or self.settings.ui_language)
        history = request.data.get("history") or request.history
        viewer = viewer_of_metadata(self.settings.hub_token, AGENT_NAME, request.metadata)
        state: RagState = {"text": request.text, "data": dict(request.data), "language": language,
                           "history": [h for h in history if isinstance(h, dict)], "viewer": viewer}
        final: RagState = await self.graph.ainvoke(state, config={"configurable": {"progress": progress}})
        return final

    # -- nodes ---------------------------------------------------------------------------------------
    async def contextualize_question(self, state: RagState, config: RunnableConfig) -> RagState:
        """Strip wrappers; a follow-up ("그럼 최대 속도는?") is searched with the earlier turn as context.

        With an LLM the follow-up is rewritten into a standalone question; offline the question stays as
        asked and the previous question and answer join the search as weaker terms (their document's words).
        """
        question, wrapped_history = strip_artifacts(state.get("text", ""))
        history = state.get("history") or wrapped_history
        dependent = is_context_dependent(question) or (bool(history) and _few_content_words(question))
        rewritten = False
        context: list[str] = []
        if dependent and history and question:
            previous = [h.get("text", "") for h in history if h.get("role") == "user" and h.get("text")]
            answers = [h.get("text", "") for h in history if h.get("role") != "user" and h.get("text")]
            if previous:
                context = [strip_artifacts(previous[-1])[0], *[a[:400] for a in answers[-1:]]]
                standalone = await self._standalone(question, history)
                if standalone:
                    question, rewritten = standalone, True
        return {"question": question, "context_dependent": dependent, "rewritten": rewritten,
                "history": history, "context": context}

    async def _standalone(self, question: str, history: list[dict[str, str]]) -> str | None:
        """An LLM rewrite of a follow-up into a standalone question (None offline, when it fails, or when the
        rewrite keeps none of the follow-up's own words: the follow-up is then searched with its context)."""
        turns = "\n".join(f"{h.get('role')}: {h.get('text', '')[:500]}" for h in history[-6:])
        try:
            rewrite = await self.llm.parse([
                {"role": "system", "content": "Rewrite the user's last question into one stand-alone question "
                 "using the conversation: keep its language and all of its own words, and add the subject the "
                 "conversation gives it."},
                {"role": "user", "content": f"Conversation:\n{turns}\n\nQuestion: {question}"}],
                StandaloneQuestion, purpose="rag_contextualize", max_tokens=STANDALONE_MAX_TOKENS)
        except OfflineUnsupported:
            return None
        except LLMError as exc:
            log.warning("contextualize via LLM failed, searching with the history as context: %s", exc)
            return None
        text = normalize(rewrite.question)
        own = {w.lower() for w in re.findall(r"\w{2,}", question)}
        if not text or (own and not own & {w.lower() for w in re.findall(r"\w{2,}", text)}):
            return None
        return text

    async def intent_router(self, state: RagState) -> RagState:
        """`search` vs `index` (plus the file agent's delete/update skills)."""
        data = state.get("data") or {}
        skill = str(data.get("skill") or "")
        if skill == "delete_document":
            return {"intent": "delete"}
        if skill == "update_document":
            return {"intent": "update"}
        if skill == "index_document" or data.get("documents"):
            return {"intent": "index" if data.get("documents") else "clarify_index"}
        question = state.get("question", "")
        if not skill and INDEX_WORDS.search(question) and len(question) < 60 and "?" not in question:
            return {"intent": "clarify_index"}
        if not question:
            return {"intent": "clarify"}
        return {"intent": "search"}

    async def vector_search(self, state: RagState, config: RunnableConfig) -> RagState:
        progress = _progress(config)
        language = state["language"]
        question = state["question"]
        async def rewriting() -> None:
            await progress(message("rag.rewriting", language), stage="rewriting", progress=0.1,
                           data={"question": question, "rewritten": state.get("rewritten", False)})

        try:  # announced only when it takes a while: offline there is no model, and nothing is rewritten
            queries = await announce_if_slow(self.search_service.make_queries(question), rewriting)
            offline = False
        except OfflineUnsupported:  # offline the question alone is embedded; its terms carry the search
            queries, offline = [], True
        await progress(message("rag.searching", language, n=1 + len(queries)), stage="searching", progress=0.4,
                       data={"queries": [question, *queries]})
        context = state.get("context") or []
        document = None
        if context:  # a follow-up stays on the document its conversation was about
            earlier = await self.search_service.search(context[0], top_k=1, viewer=state.get("viewer"))
            document = earlier.chunks[0].hit.storage_ref if earlier.chunks else None
        outcome = await self.search_service.search(question, queries=queries, context=context, document=document,
                                                   viewer=state.get("viewer"))
        assert outcome.query_terms is not None and outcome.stats is not None
        similarity = await self._sentence_similarity(question, outcome)
        evidence = await asyncio.to_thread(find_evidence, question, outcome.query_terms, outcome.stats,
                                           outcome.chunks, 3, similarity)
        if not evidence.unknown and not evidence.lexical(self.settings.rag_min_evidence,
                                                         self.settings.rag_min_question_coverage,
                                                         self.settings.rag_min_question_similarity):
            # The words do not answer: sentences in the other language may, by the cross-lingual model — those
            # of the chunks found and of the other language's chunks nearest the question's vector, which the
            # words of a question in one language cannot rank (`_other_language_chunks`) — and the question's
            # words count in those sentences through the renderings the same model gives them (`_translated`).
            chunks = [*outcome.chunks[:CHUNKS_CONSIDERED],
                      *await self._other_language_chunks(question, outcome, state.get("viewer"))]
            across = other_language(question, list(dict.fromkeys(candidate_sentences(chunks, len(chunks)))))
            if across:
                try:
                    cross = await asyncio.to_thread(self.cross_judge.similarity, question, across)
                except Exception as exc:  # a missing model: the words alone decide, and the reply says so
                    note_degraded("cross_language", exc)
                else:
                    query, stats = await self._translated(question, outcome, across, state.get("viewer"))
                    evidence = await asyncio.to_thread(find_evidence, question, query, stats,
                                                       chunks, 3, similarity, cross, len(chunks))
        return {"outcome": outcome, "evidence": evidence, "offline": offline, "document": document}

    async def _other_language_chunks(self, question: str, outcome: SearchOutcome,
                                     viewer: Viewer | None) -> list[RankedChunk]:
        """The `CROSS_LANGUAGE_CHUNKS` chunks in the other language than the question's nearest its vector, that
        the search did not rank among the chunks quoted from. E5's cosine across languages sits below its
        cosine within one (benchmarks/README.md, "Across languages"), so they rarely reach the fused ranking;
        within the other language, the answering chunk ranks high. Each gets the last considered chunk's
        relevance; only the cross-lingual model's judgement of its sentences can make it the answer."""
        if outcome.question_vector is None or CROSS_LANGUAGE_CHUNKS <= 0:
            return []
        try:
            lists = await self.store.vector_search_many([outcome.question_vector], CROSS_LANGUAGE_FETCH,
                                                        viewer=viewer)
        except Exception as exc:  # the store answered the search a moment ago: a failure here only narrows it
            note_degraded("cross_language", exc)
            return []
        korean = is_korean(question)
        considered = outcome.chunks[:CHUNKS_CONSIDERED]
        have = {c.key for c in considered}
        floor = min((c.relevance for c in considered), default=0.0)
        picked: list[RankedChunk] = []
        for hit in lists[0] if lists else []:
            if hit.key in have or is_korean(hit.content) == korean:
                continue
            picked.append(RankedChunk(hit, vector_score=hit.score, relevance=floor))
            if len(picked) == CROSS_LANGUAGE_CHUNKS:
                break
        return picked

    async def _translated(self, question: str, outcome: SearchOutcome, across: Sequence[str],
                          viewer: Viewer | None) -> tuple[QueryTerms, TermStats]:
        """The question's terms with the other-language words the cross-lingual model takes for their
        translations (`translated_query`), and the corpus statistics that cover them."""
        query, stats = outcome.query_terms, outcome.stats
        assert query is not None and stats is not None
        try:
            translated, added = await asyncio.to_thread(translated_query, self.cross_judge, question, query, across)
            if not added:
                return query, stats
            extra = await self.store.term_stats(added, viewer=viewer)
        except Exception as exc:  # the words the tables give still count
            note_degraded("cross_language", exc)
            return query, stats
        return translated, TermStats(stats.n, {**extra.df, **stats.df}, stats.avgdl)

    async def _sentence_similarity(self, question: str, outcome: SearchOutcome) -> dict[str, float]:
        """The question's similarity to each candidate sentence (cosine rescaled for the model to [0, 1]), for
        questions the embedding model can read.

        The sentences' vectors come from the store (`line_vectors`, computed at indexing); only lines without
        one (chunks indexed before they were stored, the Supabase adapter) go to the embedding server, with the
        question when the search did not embed it."""
        if not self.search_service.vectors_count_for(question):
            return {}
        chunks = outcome.chunks[:CHUNKS_CONSIDERED]
        sentences = list(dict.fromkeys(candidate_sentences(chunks)))
        if not sentences:
            return {}
        known: dict[str, np.ndarray] = {}
        try:
            stored = await self.store.line_vectors([(c.hit.storage_ref, c.hit.chunk_index) for c in chunks])
        except Exception as exc:  # a store without them answers as before, by embedding
            log.warning("stored line vectors unavailable, embedding the sentences: %s", exc)
            stored = {}
        for chunk in chunks:
            data = stored.get((chunk.hit.storage_ref, chunk.hit.chunk_index))
            lines = content_lines(chunk.hit.content)
            matrix = unpack_line_vectors(data, len(lines)) if data else None
            if matrix is not None:
                known.update(zip(lines, matrix, strict=True))
        missing = [s for s in sentences if s not in known]
        # The search's own question vector, when it has one: with every line stored, no call at all.
        asked = [] if outcome.question_vector is not None else [question]
        asked_vectors: list[list[float]] = []
        vectors: list[list[float]] = []
        if asked or missing:
            try:
                asked_vectors, vectors = await embed_queries_and_passages(self.embeddings, asked, missing)
            except EmbeddingError as exc:
                note_degraded("embeddings", exc)
                return {}
        q = np.asarray(outcome.question_vector if outcome.question_vector is not None else asked_vectors[0],
                       dtype=np.float32)
        known.update((s, np.asarray(v, dtype=np.float32)) for s, v in zip(missing, vectors, strict=True))
        usable = [s for s in sentences if known[s].shape[0] == q.shape[0]]
        if not usable:
            return {}
        matrix = np.stack([known[s] for s in usable])
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(q) or 1.0)
        scores = matrix @ q / np.where(norms > 0, norms, 1.0)
        model = self.embeddings.model
        return {s: rescale_similarity(model, float(v)) for s, v in zip(usable, scores, strict=True)}

    def _answerable(self, evidence: Evidence) -> bool:
        return evidence.answerable(self.settings.rag_min_evidence, self.settings.rag_min_question_coverage,
                                   self.settings.rag_min_cross_similarity, self.settings.rag_min_question_similarity)

    def _after_search(self, state: RagState) -> str:
        found = self._answerable(state["evidence"])
        if not found and state.get("context_dependent") and not state.get("history"):
            return "clarify"
        return "generate"

    async def generate(self, state: RagState, config: RunnableConfig) -> RagState:
        """Answer only from the evidence, each sentence with its file and page, then the source section.

        The evidence decides whether the documents answer (`Evidence.answerable`), with or without a model: a
        model may add to an answer, never take one away. With a model (the query-variant call did not meet
        `OfflineUnsupported`), an answerable question's best passages go to it; its structured reply
        (`GroundedAnswer`) is streamed as it is written and becomes the answer when it is answerable and
        every number it states is in the passages it was shown (`grounding.unsupported_numbers`). The sources
        are the evidence's, then those the model cited. Otherwise, and offline, the evidence is quoted.
        `data.model_answerable` records the model's own judgement.
        """
        outcome = state["outcome"]
        evidence = state["evidence"]
        language = state["language"]
        data: dict[str, Any] = {"queries": outcome.queries, "max_score": round(evidence.best_coverage, 4),
                                "question_coverage": round(evidence.question_coverage, 4),
                                "cross_similarity": round(evidence.cross_similarity, 4),
                                "question_similarity": round(evidence.similarity, 4),
                                "question": state["question"]}
        if state.get("context"):
            data["context"] = state["context"]  # the earlier turn a follow-up was searched with
        if not self._answerable(evidence):
            data.update(status=STATUS_NO_RESULT, sources=[])
            text = message("rag.no_result", language)
            if evidence.unknown:  # the question names a version, key or CVE no document holds: say which
                data["unknown"] = evidence.unknown
                text += " " + message("rag.no_result_unknown", language, names=", ".join(evidence.unknown))
            return {"reply": AgentReply(text=text, data=data, agent=AGENT_NAME), "cited": []}
        if not state.get("offline") and outcome.chunks:
            async def generating() -> None:
                await _progress(config)(message("rag.generating", language, n=len(shown)),
                                        stage="generating", progress=0.8)

            shown = judge_passages(evidence, outcome.chunks)
            stream = (config.get("configurable") or {}).get("progress")
            judged = await announce_if_slow(
                self._judge(state["question"], shown, language, getattr(stream, "stream_answer", None)), generating)
            if judged is not None:
                answer, cited = judged
                data.update(judged_by="llm", model_answerable=answer is not None)
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
                        return {"reply": AgentReply(text=text, data=data, agent=AGENT_NAME),
                                "cited": [q.chunk for q in quotes]}
                    data["unsupported_numbers"] = missing  # the draft stated numbers from elsewhere: not used
        answer = extractive_answer(evidence, language)  # quoted at once: no status line for it
        sources = group_sources(evidence.quotes, language)
        data.update(status=STATUS_OK, sources=sources, quotes=quote_records(evidence.quotes, language),
                    answer_by="evidence")
        text = f"{answer}\n\n{source_section(sources, language)}"
        return {"reply": AgentReply(text=text, data=data, agent=AGENT_NAME),
                "cited": [q.chunk for q in evidence.quotes]}

    async def _judge(self, question: str, shown: Sequence[tuple[RankedChunk, str]], language: str,
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

    async def index_document(self, state: RagState, config: RunnableConfig) -> RagState:
        progress = _progress(config)
        language = state["language"]
        raw_docs = (state.get("data") or {}).get("documents") or []
        docs = [DocumentInput.from_dict(d) for d in raw_docs if isinstance(d, dict)]

        async def on_progress(stage: str, info: dict[str, Any]) -> None:
            await progress(message(f"rag.{stage}", language, **{"chunks": 0, **info}), stage=stage, data=info)

        results = await self.indexing.index_many(docs, on_progress)
        counts = {s: sum(1 for r in results if r.status == s) for s in ("success", "skipped", "error")}
        status = STATUS_ERROR if results and counts["error"] == len(results) else STATUS_OK
        lines = [message("rag.index_done", language, **counts)]
        for r in results:
            detail = f"{r.chunks} chunks" if r.status == "success" else (r.reason or "")
            lines.append(f"- {r.file_name}: {r.status} ({detail})")
            lines.extend(f"  - {notice}" for notice in r.notices)
        return {"reply": AgentReply(text="\n".join(lines), agent=AGENT_NAME,
                                    data={"status": status, "results": [r.to_dict() for r in results]})}

    async def manage_document(self, state: RagState) -> RagState:
        data = state.get("data") or {}
        language = state["language"]
        ref = str(data.get("storage_ref") or "")
        if not ref:
            return {"reply": AgentReply(text=message("rag.missing_ref", language), agent=AGENT_NAME,
                                        data={"status": STATUS_ERROR, "error": "storage_ref is required"})}
        viewer = state.get("viewer")
        if viewer is not None and viewer.user_id is not None:
            # A person manages documents through the file store, which checks ownership; the index's own
            # delete/update skills are the file store's (service credential), never a person's.
            return {"reply": AgentReply(text=message("rag.manage_refused", language), agent=AGENT_NAME,
                                        data={"status": STATUS_ERROR, "error": "forbidden"})}
        if state["intent"] == "delete":
            n = await self.indexing.delete(ref)
            return {"reply": AgentReply(text=message("rag.deleted", language, ref=ref, n=n), agent=AGENT_NAME,
                                        data={"status": STATUS_OK, "deleted_chunks": n})}
        if data.get("visibility"):
            await self.store.set_visibility(ref, str(data["visibility"]))
        n = await self.indexing.update(ref, data.get("file_name"), data.get("file_url"))
        return {"reply": AgentReply(text=message("rag.updated", language, ref=ref, n=n), agent=AGENT_NAME,
                                    data={"status": STATUS_OK, "updated_chunks": n})}

    async def clarify(self, state: RagState) -> RagState:
        language = state["language"]
        key = "clarify_index" if state.get("intent") == "clarify_index" else "clarify"
        outcome = state.get("outcome")
        data: dict[str, Any] = {"status": STATUS_NEEDS_CLARIFICATION, "sources": [],
                                "max_score": outcome.max_score if outcome else 0.0,
                                "queries": outcome.queries if outcome else []}
        return {"reply": AgentReply(text=message(f"rag.{key}", language), data=data, agent=AGENT_NAME)}
