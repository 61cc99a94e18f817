"""The internal-RAG agent: a LangGraph graph over the pipeline's stages.

```
contextualize_question → intent_router ─┬→ vector_search ─┬→ generate → END
                                        │                 └→ clarify → END   (context-dependent, no history, nothing found)
                                        ├→ index_document → END
                                        ├→ manage_document → END   (delete_document / update_document skills)
                                        └→ clarify → END
```

A question goes through four stages, each a module of its own: question understanding (`question.py`:
`contextualize_question`), retrieval (`retrieval.py`) and reading (`reader/stage.py`), both in
`vector_search`, and the answer (`answer.py`: `generate`). This module keeps the graph, its state and the
nodes of the other intents (indexing, document management, clarification).

Replies carry text and a structured part (`status`, `sources`, `max_score`, `queries` / `results`); the
status is decided by retrieval scores, never by phrases.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, TypedDict

from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph

from ai_llm.common.a2a.events import (
    STATUS_ERROR,
    STATUS_NEEDS_CLARIFICATION,
    STATUS_OK,
    AgentReply,
    announce_if_slow,
)
from ai_llm.common.a2a.server import AgentRequest, Progress
from ai_llm.common.embeddings import Embeddings
from ai_llm.common.identity import Viewer, viewer_of_metadata
from ai_llm.common.llm import LLM, OfflineUnsupported
from ai_llm.common.messages import message
from ai_llm.common.settings import Settings
from ai_llm.common.text.analysis import analyze
from ai_llm.internal_rag_agent.answer import Answerer, answerable
from ai_llm.internal_rag_agent.answer_extraction import Evidence
from ai_llm.internal_rag_agent.cross_language import CrossLingualJudge
from ai_llm.internal_rag_agent.indexing_service import DocumentInput, IndexingService
from ai_llm.internal_rag_agent.question import few_content_words, understand_question
from ai_llm.internal_rag_agent.rag_search_service import RagSearchService, RankedChunk, SearchOutcome
from ai_llm.internal_rag_agent.reader.model import load_model
from ai_llm.internal_rag_agent.reader.stage import EvidenceReader
from ai_llm.internal_rag_agent.retrieval import Retriever
from ai_llm.internal_rag_agent.vector_store import VectorStore

AGENT_NAME = "internal_rag"


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
        self.retriever = Retriever(store, embeddings, self.search_service, self.cross_judge)
        self.reader = EvidenceReader(self.retriever, self.cross_judge, settings)
        self.answerer = Answerer(llm, settings)
        self.graph = self._build()

    def warm_up(self) -> None:
        """Load what a first question would otherwise wait for: Kiwi's dictionary, the multilingual sentence
        encoder of cross-language reading, the reader model. Blocking (call it in a thread); the server runs it
        before it answers, so a process (a pod) that reports ready answers its first question in the usual time."""
        analyze("출장비는 귀국 후 며칠 안에 청구하나요? How many days after the return are claims filed?")
        self.cross_judge.vectors(["출장비 청구", "travel claims"])
        if self.settings.rag_reader:
            load_model()

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
        """Question understanding (`question.understand_question`): the bare question, and for a follow-up the
        earlier turn as context (with an LLM, the follow-up rewritten into a standalone question)."""
        understood = await understand_question(self.llm, state.get("text", ""), state.get("history"))
        return {"question": understood.question, "context_dependent": understood.context_dependent,
                "rewritten": understood.rewritten, "history": understood.history, "context": understood.context}

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
        """Retrieval (the query variants, then `retrieval.Retriever.search`), then reading
        (`reader.stage.EvidenceReader.evidence`: the evidence in the chunks found)."""
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
        outcome, document = await self.retriever.search(question, queries, state.get("context") or [],
                                                        state.get("viewer"))
        evidence = await self.reader.evidence(question, outcome, state.get("viewer"),
                                              "report" if state["data"].get("breadth") == "report" else "answer")
        return {"outcome": outcome, "evidence": evidence, "offline": offline, "document": document}

    def _after_search(self, state: RagState) -> str:
        found = answerable(state["evidence"], self.settings)
        if state.get("context_dependent") and not state.get("history") and (
                not found or few_content_words(state.get("question", ""))):
            # It points back at a conversation there is none of: found or not, nothing says what "it" is.
            return "clarify"
        return "generate"

    async def generate(self, state: RagState, config: RunnableConfig) -> RagState:
        """The answer (`answer.Answerer.answer`): quoted evidence, or with a model its grounded answer streamed
        to the A2A progress (`Progress.stream_answer`) as it is written, then the evidence and the sources."""
        stream = (config.get("configurable") or {}).get("progress")
        answer = await self.answerer.answer(state["question"], state["language"], state["outcome"],
                                            state["evidence"], context=state.get("context"),
                                            offline=bool(state.get("offline")), progress=_progress(config),
                                            stream=getattr(stream, "stream_answer", None))
        return {"reply": AgentReply(text=answer.text, data=answer.data, agent=AGENT_NAME), "cited": answer.cited}

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
