"""Builds a structured report (title, summary, sections, conclusion, references) from earlier steps'
results.

The title names the topic: the instruction's own subject when it has one ("손 위생에 대한 보고서"), else
the question the results answered (`previous_results[].question`, or a step's `data.question`), never
the request words ("이 답변을 보고서로 저장해줘"). Every reference comes from the inputs' sources and
is cited by file name and page or by page title and URL (server paths are dropped). The prose comes
from the inputs only: offline the summary is the answer's key (quoted) sentences and each section
quotes its sentences with their file and page; with an LLM the model fills the same structure, and a
quote it cannot show in the inputs or a citation it invents is dropped. Inputs longer than the context
budget are condensed to their most relevant sentences first.
"""

from __future__ import annotations

import functools
import json
import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import PurePosixPath
from typing import Any

from pydantic import BaseModel, Field

from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.messages import LANGUAGES, message
from ai_llm.common.text import TITLE_STOPWORDS, content_words, split_sentences
from ai_llm.common.text.analysis import (
    KOREAN_NOMINAL_CONTENT_TAGS,
    KOREAN_NOUN_PHRASE_TAGS,
    KOREAN_QUERY_STOPWORDS,
    kiwi,
)
from ai_llm.common.text.rules import extract_answer, rank_sentences

log = logging.getLogger(__name__)

#: Characters of input text the LLM sees at most (≈ 8k tokens), shared between the inputs.
CONTEXT_BUDGET_CHARS = 24_000
#: Characters of one section's body in an offline report.
SECTION_BUDGET_CHARS = 2_400
#: Key sentences in the summary at most.
SUMMARY_SENTENCES = 3
#: Words of a title at most.
TITLE_WORDS = 8
_SOURCE_HEADER = re.compile(r"^\s*\**\s*(출처|참고\s*자료|참고\s*문헌|sources?|references?)\s*:?\s*\**\s*:?\s*$",
                            re.I | re.M)
_REPORT_WORDS = re.compile(
    r"(보고서|리포트|레포트|작성|정리|저장|답변|대답|써\s*줘|써줘|만들어\s*줘|만들어|해\s*줘|해줘|주세요|바탕으로|결과|"
    r"(?<![\uac00-\ud7a3])위의?(?![\uac00-\ud7a3])|이전|방금|내용|\bwrite\b|\breport\b|\bmake\b|\bcreate\b|\bdraft\b|\bsummar\w*|\bbased\b|"
    r"\bresults?\b|\babove\b|\bon\b|\babout\b|\bplease\b|\ba\b|\bthe\b|\bof\b|\bsave\b|\bstore\b|"
    r"\bkeep\b|\banswers?\b|\breply\b|\bthis\b|\bthat\b|\bit\b|\bas\b|\binto\b|\bprevious\b|\blast\b)",
    re.I)
_DEICTIC = {"이", "그", "저", "이거", "이것", "그거", "그것", "지금", "을", "를", "에", "대한", "대해", "관한", "로", "으로"}
_QUOTE_LINE = re.compile(r"^\s*>\s?(.*)$")
#: "— name, p.3" or "— name, 슬라이드 2" / "— name, 예산!2–21" / "— name, 제2장 > 제2조(일비)" (a location
#: that is not a page is kept by the source's label, not by the quote).
_ATTRIBUTION = re.compile(r"^[—–-]{1,2}\s*(?P<name>.+?)(?:,\s*(?:(?:p{1,2}\.\s*|페이지\s*)(?P<page>\d+)"
                          r"(?:\s*[–-]\s*\d+)?|(?:슬라이드|slide)\s*\d+|[^,>]+![\d–-]+|[^,]*제\s*\d+\s*조[^,]*"
                          r"|[^,]+(?:\s>\s[^,]+)+))?\s*$")
_TAG_PREFIX = re.compile(r"^[^\w\s\[]{0,3}\s*\[[^\]\n]{1,40}\]\s*")  # "📄 [사내 문서 기반]"
_SOURCE_ITEM = re.compile(r"^(?:[-*]|\d+\.)\s*(?:\*\*[^*]+\*\*|\[[^\]]+\]\([^)]+\))\s*(?:\([^)]*\))?\s*$")
_LINK = re.compile(r"\[([^\]]+)\]\((?:https?://|/)[^)]*\)")
_CITATION = re.compile(r"\s*\[(\d+)\]")
_INTRO_LINE = re.compile(r"^.{0,60}[:：]$")
_SAFE_URL = re.compile(r"^(https?://|/api/)", re.I)
_SERVER_PATH = re.compile(r"^(/|~|file:|[A-Za-z]:[\\/])")
#: Agents whose sections have a heading in the catalog (`report.agent_<name>`); another is headed by its name.
_LABELLED_AGENTS = frozenset({"internal_rag", "web_research", "file_management", "orchestrator"})


def safe_url(url: str) -> str:
    """`url` when a reader can open it (http(s) or the hub's `/api/` download route), else "" (server paths)."""
    return url if _SAFE_URL.match(url or "") else ""


@dataclass
class Reference:
    """One numbered reference, taken from an input's `sources`."""

    number: int
    type: str  # file | web
    label: str  # file name or page title
    url: str  # web URL, or the hub's download route of a file ("" when the source had only a server path)
    pages: list[int] = field(default_factory=list)
    source: dict[str, Any] = field(default_factory=dict)

    @property
    def page_label(self) -> str:
        """`p.3`, `p.3–7`, or the source's own label for locations that are not pages (slides, rows, articles)."""
        if not self.pages:
            return str(self.source.get("page_label") or "") if self.type == "file" else ""
        pages = sorted(set(self.pages))
        return f"p.{pages[0]}" if len(pages) == 1 else f"p.{pages[0]}–{pages[-1]}"

    def cite(self, page: int | None = None) -> str:
        """How a quote names its source: `guide.pdf, p.33` or `Title (https://…)`."""
        if self.type == "web":
            return f"{self.label} ({self.url})" if self.url and self.url != self.label else self.label
        where = f"p.{page}" if page else self.page_label
        return f"{self.label}, {where}" if where else self.label

    def to_source(self) -> dict[str, Any]:
        out = dict(self.source)
        if self.type == "file":
            out.update(pages=sorted(set(self.pages)), page_label=self.page_label)
            if not safe_url(str(out.get("file_url") or "")):
                out.pop("file_url", None)
            if _SERVER_PATH.match(str(out.get("storage_ref") or "")):  # a path on the indexing machine
                out.pop("storage_ref", None)
        return out


@dataclass
class Quote:
    """One sentence of an input, quoted with its source (a reference number and, for a file, the page)."""

    text: str
    reference: int | None = None
    page: int | None = None


@dataclass
class Section:
    heading: str
    body: str
    references: list[int] = field(default_factory=list)
    quotes: list[Quote] = field(default_factory=list)


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
    question: str = ""  # what the inputs answered, when known

    def reference(self, number: int | None) -> Reference | None:
        return next((r for r in self.references if r.number == number), None)


@dataclass
class ReportInput:
    """One earlier step's result: who produced it, its prose (boilerplate and source section removed), the
    sentences it quotes with their sources, and its references."""

    agent: str
    text: str
    references: list[int]
    quotes: list[Quote] = field(default_factory=list)
    kinds: set[str] = field(default_factory=set)  # file / web: what its sources are


class QuoteDraft(BaseModel):
    text: str = Field(description="one sentence copied verbatim from the inputs")
    reference: int = Field(description="the [n] number of its source")
    page: int | None = Field(default=None, description="the page of a file source, as given in the inputs")


class SectionDraft(BaseModel):
    heading: str
    body: str = Field(description="prose from the inputs only, citing them as [n]")
    references: list[int] = Field(default_factory=list)
    quotes: list[QuoteDraft] = Field(default_factory=list)


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
    """The report's subject named in the instruction: the instruction without request words ("" when it
    only asks to save or write something, e.g. "이 답변을 보고서로 저장해줘")."""
    first = re.split(r"\n\s*이전 결과\s*:", instruction, maxsplit=1)[0]

    def drop(match: re.Match[str]) -> str:  # a request word, unless it is part of a hyphenated one ("on-call")
        hyphenated = first[match.start() - 1:match.start()] == "-" or first[match.end():match.end() + 1] == "-"
        return match.group(0) if hyphenated else " "

    cleaned = _REPORT_WORDS.sub(drop, first)
    words = [w for w in re.split(r"\s+", cleaned) if w and w not in _DEICTIC]
    words = [re.sub(r"(에\s*대한|에\s*대해|에\s*관한|을|를|로|으로|에)$", "", w) for w in words]
    words = [w for w in words if w and w not in _DEICTIC]
    topic = " ".join(words).strip(" .,:;!?")
    if re.search(r"[\uac00-\ud7a3]", topic):
        # Korean: a word with no noun in it is what is left of a verb ("정리해서" → "해서", "정리한" → "한").
        topic = " ".join(w for w in topic.split() if not re.search(r"[\uac00-\ud7a3]", w) or _korean_topic(w))
    return topic if content_words(topic) else ""


def _korean_topic(question: str) -> list[str]:
    """The nominal part of each word of a Korean question (`다회용 바이알을 개봉한 후` → 다회용 바이알 개봉 후)."""
    tokens = kiwi().tokenize(question)
    words: list[str] = []
    for match in re.finditer(r"\S+", question):
        start, end = match.start(), match.end()
        inside = [t for t in tokens if start <= t.start < end]
        cores = [t for t in inside if str(t.tag).startswith(KOREAN_NOMINAL_CONTENT_TAGS) and t.form not in KOREAN_QUERY_STOPWORDS]
        if not cores:
            continue
        stop = max(t.start + t.len for t in inside if str(t.tag).startswith(KOREAN_NOUN_PHRASE_TAGS))
        word = question[start:stop].strip(" .,:;!?\"'()[]")
        if word:
            words.append(word)
    return words


def topic_from_question(question: str) -> str:
    """A title's words from a question: its key terms in reading order, question and request words left out."""
    question = " ".join(_LINK.sub(r"\1", question or "").split())
    if not question:
        return ""
    if re.search(r"[\uac00-\ud7a3]", question):
        words = _korean_topic(question)
    else:
        words = [w for w in re.findall(r"[A-Za-z0-9][A-Za-z0-9.\-/]*[A-Za-z0-9]|[A-Za-z0-9]", question)
                 if w.lower() not in TITLE_STOPWORDS]
    topic = " ".join(words[:TITLE_WORDS])
    return topic[:1].upper() + topic[1:]


def make_title(topic: str, language: str) -> str:
    report = message("report.report", language)
    if language == "ko":
        return f"{topic} {report}".strip()
    return f"{report}: {topic}" if topic else report


def question_of(previous: list[dict[str, Any]]) -> str:
    """The question the earlier results answered: `question` of a result (the orchestrator's "save this
    answer") or of its data (the RAG agent's reply)."""
    for result in previous:
        data = result.get("data") if isinstance(result.get("data"), dict) else {}
        for value in (result.get("question"), (data or {}).get("question")):
            if isinstance(value, str) and value.strip():
                return value.strip()
    return ""


@functools.cache
def _merge_headings() -> frozenset[str]:
    """The orchestrator's heading above merged results, in every language (not part of any answer)."""
    return frozenset(message("orchestrator.merge_heading", language) for language in LANGUAGES)


def _file_label(source: dict[str, Any]) -> str:
    name = str(source.get("file_name") or "")
    if name:
        return name
    ref = str(source.get("storage_ref") or "")
    return PurePosixPath(ref.split("://", 1)[-1]).name if ref else ""


def _clean_line(line: str) -> str:
    line = _TAG_PREFIX.sub("", line.strip())
    line = _LINK.sub(r"\1", line)
    return line.replace("**", "").strip()


def parse_answer(text: str, local: list[Reference], everyone: list[Reference]) -> tuple[str, list[Quote]]:
    """An answer's prose (headings, intro lines, source lists left out) and its quoted sentences.

    `> sentence` lines followed by `> — file.pdf, p.33` are quotes of that file and page; a prose sentence
    citing one `[n]` of the step's own sources is a quote of that source. `local` are the step's
    references in its own order (its `[n]`), `everyone` all of the report's.
    """
    prose: list[str] = []
    quotes: list[Quote] = []
    pending: list[str] = []

    def by_name(name: str) -> Reference | None:
        name = name.strip().strip("*")
        found = next((r for r in [*local, *everyone] if r.label == name), None)
        if found is None and ", " in name:  # "— guide.docx, Overview": a one-level heading after the name
            found = next((r for r in [*local, *everyone] if r.label == name.split(", ")[0]), None)
        return found

    def flush(ref: Reference | None, page: int | None) -> None:
        if pending:
            quotes.append(Quote(" ".join(pending), ref.number if ref else None, page))
            pending.clear()

    for raw in strip_source_section(text).split("\n"):
        quoted = _QUOTE_LINE.match(raw)
        if quoted:
            content = quoted.group(1).strip()
            attribution = _ATTRIBUTION.match(content)
            if attribution and pending:
                page = attribution.group("page")
                flush(by_name(attribution.group("name")), int(page) if page else None)
            elif content:
                pending.append(_clean_line(content))
            continue
        flush(None, None)
        line = raw.strip()
        if (not line or line.startswith(("#", "⚠️", "파일 위치", "File:")) or _SOURCE_ITEM.match(line)
                or line in _merge_headings()):
            continue
        line = _clean_line(re.sub(r"^(?:[-*•]|\d+\.)\s+", "", line))
        if not line or _INTRO_LINE.match(line) or (line.endswith("**") and len(line) < 40):
            continue
        cited = [int(n) for n in _CITATION.findall(line)]
        if len(set(cited)) == 1 and 1 <= cited[0] <= len(local):
            ref = local[cited[0] - 1]
            sentence = _CITATION.sub("", line).strip()
            # "According to <title>: sentence" — the attribution names the source already.
            sentence = re.sub(rf"^[^:]{{0,80}}{re.escape(ref.label[:40])}[^:]{{0,40}}:\s*", "", sentence)
            quotes.append(Quote(sentence, ref.number, None))
            continue
        prose.append(_CITATION.sub("", line).strip())
    flush(None, None)
    seen: set[str] = set()
    unique = []
    for quote in quotes:
        key = " ".join(quote.text.split()).lower()
        if key and key not in seen:
            seen.add(key)
            unique.append(quote)
    body = "\n".join(p for p in prose if " ".join(p.split()).lower() not in seen)
    return body, unique


def collect_references(previous: list[dict[str, Any]]) -> tuple[list[ReportInput], list[Reference]]:
    """Inputs with their reference numbers; a file cited by several steps is one reference (pages merged)."""
    refs: list[Reference] = []
    by_key: dict[str, Reference] = {}
    steps: list[tuple[dict[str, Any], list[Reference]]] = []
    for result in previous:
        data = result.get("data") or {}
        local: list[Reference] = []
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
                label = _file_label(source)
                if not label:
                    continue
                key = f"file:{source.get('file_id') or source.get('storage_ref') or label}"
                url = safe_url(str(source.get("file_url") or ""))
            ref = by_key.get(key)
            if ref is None:
                ref = Reference(len(refs) + 1, kind, label, url, [], dict(source))
                by_key[key] = ref
                refs.append(ref)
            ref.pages.extend(int(p) for p in source.get("pages") or [] if str(p).isdigit())
            if ref not in local:
                local.append(ref)
        steps.append((result, local))
    inputs: list[ReportInput] = []
    for result, local in steps:
        text, quotes = parse_answer(str(result.get("text") or ""), local, refs)
        numbers = [r.number for r in local]
        if text or quotes or numbers:
            inputs.append(ReportInput(str(result.get("agent") or "step"), text, numbers, quotes,
                                      {r.type for r in local}))
    return inputs, refs


def condense(text: str, question: str, budget: int) -> str:
    """`text` if it fits `budget`, else its sentences most relevant to `question`, in original order."""
    if len(text) <= budget:
        return text
    sentences = split_sentences(text)
    ranked = rank_sentences(question, [text]) if question.strip() else []
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


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


def _heading(item: ReportInput, language: str) -> str:
    if item.agent == "orchestrator" and len(item.kinds) == 1:  # a saved answer: named by what it is based on
        return message("report.agent_internal_rag" if "file" in item.kinds else "report.agent_web_research", language)
    return message(f"report.agent_{item.agent}", language) if item.agent in _LABELLED_AGENTS else item.agent


class ReportBuilder:
    """Turns an instruction and earlier results into a `Report`.

    Args:
        llm: the hub's LLM port; it writes the prose (offline, or when it fails, the report quotes the inputs).
        context_budget: characters of input the LLM sees at most.
    """

    def __init__(self, llm: LLM, context_budget: int = CONTEXT_BUDGET_CHARS) -> None:
        self.llm = llm
        self.context_budget = context_budget

    async def build(self, instruction: str, previous: list[dict[str, Any]], language: str = "ko") -> Report:
        question = question_of(previous)
        topic = topic_of(instruction) or topic_from_question(question)
        title = make_title(topic, language)
        inputs, refs = collect_references(previous)
        if not any(i.text or i.quotes for i in inputs):
            nothing = message("report.nothing", language)
            return Report(title, nothing, [], nothing, refs, language, empty=True, question=question)
        focus = question or topic or instruction
        try:
            return await self._build_with_llm(title, focus, question, inputs, refs, language)
        except OfflineUnsupported:  # offline mode: the report quotes the inputs
            pass
        except LLMError as exc:  # the model failed: the offline report is still true to the inputs
            log.warning("report LLM failed, writing offline: %s", exc)
        return self._build_offline(title, focus, question, inputs, refs, language)

    def _key_quotes(self, focus: str, quotes: list[Quote]) -> list[Quote]:
        """The quotes that best answer `focus`, at most `SUMMARY_SENTENCES`, in reading order."""
        if len(quotes) <= SUMMARY_SENTENCES:
            return quotes
        ranked = [s for _, s in rank_sentences(focus, [q.text for q in quotes])]
        keep = {_norm(s) for s in ranked[:SUMMARY_SENTENCES]} or {_norm(q.text) for q in quotes[:SUMMARY_SENTENCES]}
        chosen = [q for q in quotes if _norm(q.text) in keep]
        return chosen[:SUMMARY_SENTENCES] or quotes[:SUMMARY_SENTENCES]

    def _build_offline(self, title: str, focus: str, question: str, inputs: list[ReportInput],
                       refs: list[Reference], language: str) -> Report:
        sections = []
        seen: dict[str, int] = {}
        for item in inputs:
            if not item.text and not item.quotes:
                continue
            heading = _heading(item, language)
            seen[heading] = seen.get(heading, 0) + 1
            if seen[heading] > 1:
                heading = f"{heading} ({seen[heading]})"
            body = condense(item.text, focus, SECTION_BUDGET_CHARS) if item.text else ""
            if body:
                body = f"{body} {_cite(item.references)}".strip()
            sections.append(Section(heading, body, item.references, list(item.quotes)))
        # The summary is the answer's key sentences: what the inputs quote, else their best sentences.
        quoted = [q for item in inputs for q in item.quotes if q.page is not None] or \
            [q for item in inputs for q in item.quotes]
        if quoted:
            summary = " ".join(f"{q.text} [{q.reference}]" if q.reference else q.text
                               for q in self._key_quotes(focus, quoted))
        else:
            texts = [i.text for i in inputs if i.text]
            summary = extract_answer(focus, texts, max_sentences=SUMMARY_SENTENCES) if content_words(focus) else ""
            if not summary:
                firsts = [split_sentences(t)[0] for t in texts if split_sentences(t)]
                summary = " ".join(firsts[:SUMMARY_SENTENCES])
        return Report(title, summary, sections, basis(refs, language), refs, language, question=question)

    def _prompt(self, title: str, focus: str, question: str, inputs: list[ReportInput], refs: list[Reference],
                language: str) -> list[dict[str, str]]:
        share = max(500, self.context_budget // max(1, len(inputs)))
        blocks = []
        for i, item in enumerate(inputs, start=1):
            quoted = [f"> {q.text} [{q.reference}]" + (f" (p.{q.page})" if q.page else "")
                      for q in item.quotes if q.reference]
            text = condense(item.text, focus, share) if item.text else ""
            body = "\n".join([*quoted, text]).strip()
            blocks.append(f"### Input {i} (from {item.agent}; cite as {_cite(item.references) or 'no source'})\n{body}")
        ref_lines = [f"[{r.number}] {r.label} {r.page_label} {r.url if r.type == 'web' else ''}".strip()
                     for r in refs]
        lang = "Korean" if language == "ko" else "English"
        system = (f"You write a structured report in {lang} strictly from the inputs given. Use no outside "
                  "knowledge and invent no facts, numbers or sources. Cite inputs with their [n] numbers only. "
                  "The title names the topic of the question the inputs answer (never the request to write or "
                  "save a report). The summary is the inputs' key sentences that answer the question, cited. "
                  "Each section has a heading, a short body and quotes: sentences copied verbatim from the "
                  "inputs, each with its source number and, for a document, its page. End with a conclusion.")
        user = (f"Question answered: {question or focus}\nSuggested title: {title}\n\nSources:\n"
                + "\n".join(ref_lines) + "\n\nInputs:\n" + "\n\n".join(blocks))
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    async def _build_with_llm(self, title: str, focus: str, question: str, inputs: list[ReportInput],
                              refs: list[Reference], language: str) -> Report:
        messages = self._prompt(title, focus, question, inputs, refs, language)
        draft = await self.llm.parse(messages, ReportDraft, purpose="write_report")
        by_number = {r.number: r for r in refs}
        source_text = _norm(" ".join([*(i.text for i in inputs), *(q.text for i in inputs for q in i.quotes)]))

        def clean(text: str) -> str:  # drop citations of sources that do not exist
            return re.sub(r"\[(\d+)\]", lambda m: m.group(0) if int(m.group(1)) in by_number else "", text).strip()

        def checked(quotes: list[QuoteDraft]) -> list[Quote]:
            out = []
            for q in quotes:  # a quote must be in the inputs and cite a real source (and one of its pages)
                ref = by_number.get(q.reference)
                if ref is None or not q.text.strip() or _norm(q.text) not in source_text:
                    continue
                out.append(Quote(q.text.strip(), ref.number, q.page if q.page in ref.pages else None))
            return out

        sections = [Section(s.heading.strip(), clean(s.body), [n for n in s.references if n in by_number],
                            checked(s.quotes))
                    for s in draft.sections if s.body.strip() or s.quotes]
        return Report(draft.title.strip() or title, clean(draft.summary), sections, clean(draft.conclusion), refs, language,
                      written_by="llm", question=question)


def prompt_size(messages: list[dict[str, str]]) -> int:
    return len(json.dumps(messages, ensure_ascii=False))


#: Sources a report's closing line names before it counts the rest.
BASIS_NAMED = 3


def basis(refs: Sequence[Reference], language: str) -> str:
    """The offline report's closing line: which sources its content is quoted from (the first `BASIS_NAMED` by
    name and place, the rest counted), or that the steps it restates named none."""
    if not refs:
        return message("report.basis_unsourced", language)
    names = [f"{ref.label} ({ref.page_label})" if ref.page_label else ref.label for ref in refs[:BASIS_NAMED]]
    named = ", ".join(names)
    if len(refs) > BASIS_NAMED:
        named = message("report.basis_more", language, named=named, more=len(refs) - BASIS_NAMED)
    return message("report.basis", language, sources=named)
