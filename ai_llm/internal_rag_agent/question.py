"""Question understanding, the pipeline's first stage: the bare question out of the text a person sent.

Wrappers (`[이전 대화] … [현재 질문]`, an appended `이전 결과:` block) are stripped; a follow-up ("그럼 최대
속도는?", "Can you explain that?") is recognised and, with an LLM, rewritten into a standalone question, while
the earlier turn becomes the search's context (`understand_question`). Retrieval (`retrieval.py`) comes next.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass

from pydantic import BaseModel, Field

from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.text import normalize

log = logging.getLogger(__name__)

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


def few_content_words(question: str) -> bool:
    """A question of at most three content words ("그럼 최대 속도는?"): in a conversation it leans on it."""
    from ai_llm.common.text.analysis import KOREAN_QUERY_STOPWORDS, QUERY_STOPWORDS, analyze

    words = {t for t in analyze(question) if t not in KOREAN_QUERY_STOPWORDS and t not in QUERY_STOPWORDS}
    return len(words) <= 3


def is_context_dependent(question: str) -> bool:
    """True when the question points at something said before (그것, 방금, above, it …)."""
    return bool(_KO_REFERENCE.search(question) or _EN_REFERENCE.search(question))


class StandaloneQuestion(BaseModel):
    """Structured output asked from an online LLM for a follow-up."""

    question: str = Field(description="the follow-up as one stand-alone question, in its language")


#: Token budget of the follow-up rewrite (one question).
STANDALONE_MAX_TOKENS = 120


@dataclass(frozen=True)
class Understood:
    """The question as the later stages search and answer it (the graph state's question fields)."""

    question: str
    context_dependent: bool
    rewritten: bool
    history: list[dict[str, str]]
    context: list[str]  # the earlier turn a follow-up is searched with (its question, then its answer)


async def understand_question(llm: LLM, text: str, history: list[dict[str, str]] | None) -> Understood:
    """Strip wrappers; a follow-up ("그럼 최대 속도는?") is searched with the earlier turn as context.

    With an LLM the follow-up is rewritten into a standalone question; offline the question stays as
    asked and the previous question and answer join the search as weaker terms (their document's words).
    """
    question, wrapped_history = strip_artifacts(text)
    history = history or wrapped_history
    dependent = is_context_dependent(question) or (bool(history) and few_content_words(question))
    rewritten = False
    context: list[str] = []
    if dependent and history and question:
        previous = [h.get("text", "") for h in history if h.get("role") == "user" and h.get("text")]
        answers = [h.get("text", "") for h in history if h.get("role") != "user" and h.get("text")]
        if previous:
            context = [strip_artifacts(previous[-1])[0], *[a[:400] for a in answers[-1:]]]
            standalone = await standalone_question(llm, question, history)
            if standalone:
                question, rewritten = standalone, True
    return Understood(question, dependent, rewritten, history, context)


async def standalone_question(llm: LLM, question: str, history: list[dict[str, str]]) -> str | None:
    """An LLM rewrite of a follow-up into a standalone question (None offline, when it fails, or when the
    rewrite keeps none of the follow-up's own words: the follow-up is then searched with its context)."""
    turns = "\n".join(f"{h.get('role')}: {h.get('text', '')[:500]}" for h in history[-6:])
    try:
        rewrite = await llm.parse([
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
