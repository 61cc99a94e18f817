"""The offline research path (no language model): a deterministic pipeline.

Optimise the query (key phrases, each named thing, the keyword rewrite) → search them in parallel (news or
web, per the search plan) → relevance filter and reciprocal-rank fusion → answer from the snippets, or
deep-read the best pages (plus one follow-up hop to pages about entities the first pages name) → extractive
answer quoted from the sources.
"""

from __future__ import annotations

import asyncio

from ai_llm.common.a2a.events import AgentReply, announce_if_slow
from ai_llm.common.degraded import note_degraded
from ai_llm.common.embeddings import Embeddings
from ai_llm.common.messages import message
from ai_llm.common.text import normalize
from ai_llm.common.text.rules import rewrite_query
from ai_llm.web_research_agent.answering import (
    compose,
    follow_up_entities,
    fuse,
    key_phrases,
    no_result,
    snippets_suffice,
    title_match,
)
from ai_llm.web_research_agent.deep_read import read_pages, read_sentences
from ai_llm.web_research_agent.search_tools.results import SearchHit
from ai_llm.web_research_agent.state import QueryPlan, ResearchLimits, ResearchRequest
from ai_llm.web_research_agent.tools import ResearchTools, plan_query

SEARCH_RANK_WEIGHT = 0.3  # share of the search rank in the first-hop ordering


def _plain_word(word: str) -> bool:
    """One word written the way any word starts a sentence: a capital, then lower-case letters only (not
    "NVIDIA", "iPhone", "I2C" or "Ben-Hur")."""
    return word[:1].isupper() and word[1:].isalpha() and word[1:].islower()


def optimise_queries(question: str, max_queries: int = 4) -> list[str]:
    """Search queries for a question, best first.

    1. all its key phrases together (what search engines match best);
    2. each key phrase on its own when there are several (comparison questions name two things);
    3. the keyword rewrite (particles, question words and stop words removed), for questions naming nothing.
    """
    rewrite = rewrite_query(question)
    phrases = list(dict.fromkeys(key_phrases(question)))
    queries: list[str] = []
    if phrases:
        queries.append(" ".join(phrases))
    # A lone capitalised word that opens the question is as likely a verb ("Compare", "Convert", "Look") as a
    # name: it stays in the query of all phrases, but gets no search of its own (a paid search for "Compare").
    opening = question.lstrip(" \"'“‘(").split(" ", 1)[0].strip(" ,.?!:;")
    names = [p for p in phrases if not p.isdigit() and not (p == opening and _plain_word(p))]
    if len(names) > 1:
        queries.extend(names[:2])
    if rewrite:
        queries.append(rewrite)
    unique = list(dict.fromkeys(q for q in queries if q.strip()))
    return unique[:max_queries] or [normalize(question)]


class OfflinePipeline:
    """One offline research run over `tools`.

    Args:
        request: the question, depth, language, news override and progress callback.
        tools: the run's relevance-filtered toolset (its state records the run).
        embeddings: rank the chunks of the pages read (`None`: token coverage only).
        limits: pages read and cited, reading budget, follow-up hops.
        reader: the reader's question encoder: ranks the sentences of the passages read (`read_sentences`),
            which the answer quotes best first.
        reader_floor: the reader's cosine under which its best sentence does not answer (`no_result`).
    """

    def __init__(self, request: ResearchRequest, tools: ResearchTools, embeddings: Embeddings | None,
                 limits: ResearchLimits, reader: Embeddings | None = None, reader_floor: float | None = None
                 ) -> None:
        self.request = request
        self.tools = tools
        self.embeddings = embeddings
        self.limits = limits
        self.reader = reader
        self.reader_floor = reader_floor

    async def run(self) -> AgentReply:
        """Search, filter, read if needed, and answer."""
        request, tools = self.request, self.tools
        question, depth = request.question, request.depth
        plan = plan_query(question, request.language)
        if request.news is not None:
            plan.news = request.news
            plan.time_range = plan.time_range or ("week" if request.news else None)
        queries = optimise_queries(question)
        if depth == "snippets":
            queries = queries[:1]  # the cheap mode: one search, answer from its snippets
        hits = fuse(await tools.search_round(queries, plan))
        if not hits:
            return no_result(tools.state, request.language, depth, tools.threshold)
        effective = depth
        if depth == "auto":
            effective = ("snippets" if snippets_suffice(question, hits) or not tools.toolset.has_fetch
                         else "pages")
        reader_scores: dict[str, float] = {}
        if effective == "snippets":
            passages = [(h, h.snippet) for h in hits]
        else:
            passages, reader_scores = await self._deep_read(hits, plan)
            if not passages:  # every page failed: fall back to the snippets rather than fail
                passages = [(h, h.snippet) for h in hits]
        async def answering() -> None:
            await request.progress(message("web.answering", request.language), stage="answer")

        # Off the loop: the coverage check analyses every passage (stemming, Kiwi for Korean). Announced only
        # when it takes a while (an extractive answer usually does not).
        return await announce_if_slow(asyncio.to_thread(compose, question, passages, tools.state, request.language,
                                                        effective, tools.threshold, reader_scores or None,
                                                        self.reader_floor),
                                      answering)

    async def _deep_read(self, hits: list[SearchHit], plan: QueryPlan
                         ) -> tuple[list[tuple[SearchHit, str]], dict[str, float]]:
        question, tools, state, limits = self.request.question, self.tools, self.tools.state, self.limits

        read = await read_pages(hits, question, tools.toolset.fetch_pages, self.embeddings,
                                max_pages=limits.max_pages, budget_s=limits.read_budget_s,
                                top_k=limits.max_pages * 2, on_read=tools.report_reading)
        state.pages_read.extend(read.pages_read)
        state.skipped_pages.update(read.skipped)
        # Blend the chunk's similarity with its page's search rank: both are evidence of relevance.
        position = {h.url: i for i, h in enumerate(hits)}
        chunks = sorted(read.chunks, key=lambda c: c.score + SEARCH_RANK_WEIGHT / (1 + position.get(c.url, 99)),
                        reverse=True)
        # One follow-up hop: entities the best pages name but the question does not (multi-hop questions).
        for _ in range(limits.hops):
            follow = follow_up_entities(question, chunks[:2], exclude_titles=[c.title for c in chunks])
            entities = follow[:3]
            found_lists = await tools.search_round(entities, plan, max_results=3)
            new_hits: list[SearchHit] = []
            for entity, found in zip(entities, found_lists, strict=True):
                taken = {h.url for h in new_hits}
                # The page *about* the entity (its title names it), not a page that merely mentions it.
                unread = [h for h in found if h.url not in state.pages_read and h.url not in taken
                          and title_match(entity, h.title) >= 0.5]
                unread.sort(key=lambda h: title_match(entity, h.title), reverse=True)
                new_hits.extend(unread[:1])
            if not new_hits:
                break
            more = await read_pages(new_hits, question, tools.toolset.fetch_pages, self.embeddings,
                                    max_pages=len(new_hits), budget_s=limits.read_budget_s, top_k=4,
                                    on_read=tools.report_reading)
            state.pages_read.extend(more.pages_read)
            state.skipped_pages.update(more.skipped)
            # A follow-up page is kept as the second link of the chain, next to the page that named it.
            chunks = chunks[:2] + more.chunks[:2] + chunks[2:] + more.chunks[2:]
        by_url = {h.url: h for h in state.seen.values()}
        out: list[tuple[SearchHit, str]] = []
        for chunk in chunks[: limits.max_sources]:
            hit = by_url.get(chunk.url) or SearchHit(chunk.title, chunk.url, chunk.text[:200], score=chunk.score)
            out.append((hit, chunk.text))
        reader_scores: dict[str, float] = {}
        if self.reader is not None and self.embeddings is not None and out:
            try:
                reader_scores = await read_sentences(question, [text for _, text in out], self.embeddings,
                                                     self.reader)
            except Exception as exc:  # the encoder unavailable: the words rank the sentences
                note_degraded("reader", exc)
        return out, reader_scores
