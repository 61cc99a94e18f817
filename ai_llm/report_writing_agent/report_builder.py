"""Builds a structured report (title, summary, sections, conclusion, references) from earlier steps'
results.

Every reference comes from the inputs' sources; the prose comes from the inputs only: with an LLM it
writes from the numbered inputs (and a citation it invents is dropped), offline it quotes the inputs'
own sentences (`LocalEngine.extract_answer` / `rank_sentences`). Inputs longer than the context
budget are condensed to their most relevant sentences first.
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from ai_llm.common.llm import LLMError, LocalEngine, OpenAIChat
from ai_llm.common.text import content_words, split_sentences

log = logging.getLogger(__name__)

#: Characters of input text the LLM sees at most (≈ 8k tokens), shared between the inputs.
CONTEXT_BUDGET_CHARS = 24_000
#: Characters of one section's body in an offline report.
SECTION_BUDGET_CHARS = 2_400
_SOURCE_HEADER = re.compile(r"^\s*\**\s*(출처|참고\s*자료|sources?|references?)\s*:?\s*\**\s*:?\s*$", re.I | re.M)
_REPORT_WORDS = re.compile(
    r"(보고서|리포트|레포트|작성|정리|써\s*줘|써줘|만들어\s*줘|만들어|해\s*줘|해줘|주세요|바탕으로|결과|위의?|이전|내용|"
    r"\bwrite\b|\breport\b|\bmake\b|\bcreate\b|\bdraft\b|\bsummar\w*|\bbased\b|\bresults?\b|\babove\b|\bon\b|"
    r"\babout\b|\bplease\b|\ba\b|\bthe\b|\bof\b)", re.I)
AGENT_LABELS = {
    "ko": {"internal_rag": "내부 문서 검색 결과", "web_research": "웹 조사 결과", "file_management": "파일 정보",
           "orchestrator": "종합 결과"},
    "en": {"internal_rag": "Internal documents", "web_research": "Web research", "file_management": "Files",
           "orchestrator": "Combined results"},
}
PHRASES = {
    "ko": {"report": "보고서", "summary": "요약", "conclusion": "결론", "references": "참고 자료",
           "date": "작성일", "nothing": "보고할 내용이 없습니다. 이전 단계에서 전달된 결과가 없습니다.",
           "basis": "{steps}개 단계의 결과와 {refs}개 출처를 바탕으로 정리했습니다.", "page_file": "파일 위치"},
    "en": {"report": "Report", "summary": "Summary", "conclusion": "Conclusion", "references": "References",
           "date": "Date", "nothing": "There is nothing to report: the earlier steps returned no results.",
           "basis": "Compiled from {steps} step result(s) and {refs} source(s).", "page_file": "File"},
}


@dataclass
class Reference:
    """One numbered reference, taken from an input's `sources`."""

    number: int
    type: str  # file | web
    label: str  # file name or page title
    url: str  # file_url or web URL
    pages: list[int] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def page_label(self) -> str:
        if not self.pages:
            return ""
        pages = sorted(set(self.pages))
        return f"p.{pages[0]}" if len(pages) == 1 else f"p.{pages[0]}–{pages[-1]}"

    def to_source(self) -> dict[str, Any]:
        out = dict(self.source)
        if self.type == "file":
            out.update(pages=sorted(set(self.pages)), page_label=self.page_label)
        return out


@dataclass
class Section:
    heading: str
    body: str
    references: list[int] = field(default_factory=list)


@dataclass
class Report:
    """A report ready to render."""

    title: str
    summary: str
    sections: list[Section]
    conclusion: str
    references: list[Reference]
    language: str = "ko"
    created_at: datetime = field(default_factory=datetime.now)
    empty: bool = False
    written_by: str = "offline"  # offline | llm


@dataclass
class ReportInput:
    """One earlier step's result: who produced it, its text (source section removed) and references."""

    agent: str
    text: str
    references: list[int]


class SectionDraft(BaseModel):
    heading: str
    body: str = Field(description="prose from the inputs only, citing them as [n]")
    references: list[int] = Field(default_factory=list)


class ReportDraft(BaseModel):
    """What the LLM writes; references are never taken from it, only citation numbers."""

    title: str
    summary: str
    sections: list[SectionDraft]
    conclusion: str


def strip_source_section(text: str) -> str:
    """The answer without its trailing `**출처:**` / `Sources:` block (references are rebuilt)."""
    match = _SOURCE_HEADER.search(text or "")
    return (text[:match.start()] if match else text or "").strip()


def topic_of(instruction: str) -> str:
    """The report's subject: the instruction without request words."""
    first = re.split(r"\n\s*이전 결과\s*:", instruction, maxsplit=1)[0]
    cleaned = _REPORT_WORDS.sub(" ", first)
    words = [w for w in re.split(r"\s+", cleaned) if w and w not in {"을", "를", "에", "대한", "대해", "관한", "로", "으로"}]
    words = [re.sub(r"(에\s*대한|에\s*대해|에\s*관한|을|를|로|으로|에)$", "", w) for w in words]
    return " ".join(w for w in words if w).strip(" .,:;!?")


def collect_references(previous: list[dict[str, Any]]) -> tuple[list[ReportInput], list[Reference]]:
    """Inputs with their reference numbers; a file cited by several steps is one reference (pages merged)."""
    refs: list[Reference] = []
    by_key: dict[str, Reference] = {}
    inputs: list[ReportInput] = []
    for result in previous:
        data = result.get("data") or {}
        numbers: list[int] = []
        for source in data.get("sources") or []:
            if not isinstance(source, dict):
                continue
            kind = "web" if source.get("type") == "web" or (source.get("url") and not source.get("file_name")) else "file"
            if kind == "web":
                url = str(source.get("url") or "")
                if not url:
                    continue
                key, label = f"web:{url}", str(source.get("title") or url)
            else:
                label = str(source.get("file_name") or source.get("storage_ref") or "")
                if not label:
                    continue
                key = f"file:{source.get('file_id') or source.get('storage_ref') or label}"
                url = str(source.get("file_url") or "")
            ref = by_key.get(key)
            if ref is None:
                ref = Reference(len(refs) + 1, kind, label, url, [], dict(source))
                by_key[key] = ref
                refs.append(ref)
            ref.pages.extend(int(p) for p in source.get("pages") or [] if str(p).isdigit())
            if ref.number not in numbers:
                numbers.append(ref.number)
        text = strip_source_section(str(result.get("text") or ""))
        if text or numbers:
            inputs.append(ReportInput(str(result.get("agent") or "step"), text, numbers))
    return inputs, refs


def condense(text: str, question: str, budget: int, engine: LocalEngine) -> str:
    """`text` if it fits `budget`, else its sentences most relevant to `question`, in original order."""
    if len(text) <= budget:
        return text
    sentences = split_sentences(text)
    ranked = engine.rank_sentences(question, [text]) if question.strip() else []
    chosen: set[str] = set()
    size = 0
    for _, sentence in ranked:
        if size + len(sentence) + 1 > budget:
            continue
        chosen.add(sentence)
        size += len(sentence) + 1
    if size < budget // 2:  # too few matched the question: fill with the text's opening sentences
        for sentence in sentences:
            if sentence not in chosen and size + len(sentence) + 1 <= budget:
                chosen.add(sentence)
                size += len(sentence) + 1
    kept = [s for s in sentences if s in chosen]
    return " ".join(kept)[:budget]


def _cite(numbers: list[int]) -> str:
    return "".join(f"[{n}]" for n in numbers)


class ReportBuilder:
    """Turns an instruction and earlier results into a `Report`.

    Args:
        llm: the hub's LLM port (`OpenAIChat` online, `LocalEngine` offline).
        context_budget: characters of input the LLM sees at most.
    """

    def __init__(self, llm: OpenAIChat | LocalEngine | Any, context_budget: int = CONTEXT_BUDGET_CHARS) -> None:
        self.llm = llm
        self.context_budget = context_budget
        self.engine = llm if isinstance(llm, LocalEngine) else LocalEngine(None)

    async def build(self, instruction: str, previous: list[dict[str, Any]], language: str = "ko") -> Report:
        phrases = PHRASES.get(language, PHRASES["ko"])
        topic = topic_of(instruction)
        title = f"{topic} {phrases['report']}".strip() if language == "ko" else \
            (f"{phrases['report']}: {topic}" if topic else phrases["report"])
        inputs, refs = collect_references(previous)
        if not any(i.text for i in inputs):
            return Report(title, phrases["nothing"], [], phrases["nothing"], refs, language, empty=True)
        if getattr(self.llm, "online", False):
            try:
                return await self._build_with_llm(title, topic or instruction, inputs, refs, language)
            except LLMError as exc:  # the model failed: the offline report is still true to the inputs
                log.warning("report LLM failed, writing offline: %s", exc)
        return self._build_offline(title, topic or instruction, inputs, refs, language)

    def _build_offline(self, title: str, topic: str, inputs: list[ReportInput], refs: list[Reference],
                       language: str) -> Report:
        phrases = PHRASES.get(language, PHRASES["ko"])
        labels = AGENT_LABELS.get(language, AGENT_LABELS["ko"])
        sections = []
        seen: dict[str, int] = {}
        for item in inputs:
            if not item.text:
                continue
            heading = labels.get(item.agent, item.agent)
            seen[heading] = seen.get(heading, 0) + 1
            if seen[heading] > 1:
                heading = f"{heading} ({seen[heading]})"
            body = condense(item.text, topic, SECTION_BUDGET_CHARS, self.engine)
            sections.append(Section(heading, f"{body} {_cite(item.references)}".strip(), item.references))
        texts = [i.text for i in inputs if i.text]
        summary = self.engine.extract_answer(topic, texts, max_sentences=3) if content_words(topic) else ""
        if not summary:
            firsts = [split_sentences(t)[0] for t in texts if split_sentences(t)]
            summary = " ".join(firsts[:3])
        conclusion = phrases["basis"].format(steps=len(inputs), refs=len(refs))
        return Report(title, summary, sections, conclusion, refs, language)

    def _prompt(self, title: str, topic: str, inputs: list[ReportInput], refs: list[Reference],
                language: str) -> list[dict[str, str]]:
        share = max(500, self.context_budget // max(1, len(inputs)))
        blocks = []
        for i, item in enumerate(inputs, start=1):
            text = condense(item.text, topic, share, self.engine)
            blocks.append(f"### Input {i} (from {item.agent}; cite as {_cite(item.references) or 'no source'})\n{text}")
        ref_lines = [f"[{r.number}] {r.label} {r.page_label} {r.url}".strip() for r in refs]
        lang = "Korean" if language == "ko" else "English"
        system = (f"You write a structured report in {lang} strictly from the inputs given. Use no outside "
                  "knowledge and invent no facts, numbers or sources. Cite inputs with their [n] numbers only. "
                  "Return the title, a short summary, sections (heading, body, references as numbers) and a "
                  "conclusion.")
        user = (f"Request: {topic}\nSuggested title: {title}\n\nSources:\n" + "\n".join(ref_lines)
                + "\n\nInputs:\n" + "\n\n".join(blocks))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def _build_with_llm(self, title: str, topic: str, inputs: list[ReportInput], refs: list[Reference],
                              language: str) -> Report:
        messages = self._prompt(title, topic, inputs, refs, language)
        draft = await self.llm.parse(messages, ReportDraft, purpose="write_report")
        valid = {r.number for r in refs}

        def clean(text: str) -> str:  # drop citations of sources that do not exist
            return re.sub(r"\[(\d+)\]", lambda m: m.group(0) if int(m.group(1)) in valid else "", text).strip()

        sections = [Section(s.heading.strip(), clean(s.body), [n for n in s.references if n in valid])
                    for s in draft.sections if s.body.strip()]
        return Report(draft.title.strip() or title, clean(draft.summary), sections, clean(draft.conclusion), refs,
                      language, written_by="llm")


def prompt_size(messages: list[dict[str, str]]) -> int:
    return len(json.dumps(messages, ensure_ascii=False))
