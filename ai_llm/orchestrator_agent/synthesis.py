"""HYBRID-only re-synthesis of several agents' answers, and source de-duplication.

Only a HYBRID plan is re-synthesized: with an LLM (`SYNTHESIS_MODEL`, `gpt-4o` by default) under an
instruction to use only the given results and keep every source; offline (or when the model fails) as a
structured merge with one section per source agent. Every other intent passes the agent's answer through
untouched, so nothing is added that no agent said.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

from ai_llm.common.llm import LLM, LLMError, OfflineUnsupported
from ai_llm.common.messages import message
from ai_llm.orchestrator_agent.executor import StepResult, agent_label

log = logging.getLogger(__name__)

SYNTHESIS_PROMPT = {
    "ko": ("당신은 여러 에이전트의 결과를 하나의 답변으로 합치는 편집자입니다. 아래 [결과] 블록에 있는 내용만 "
           "사용하고, 결과에 없는 사실을 추가하지 마세요. 사내 문서 결과와 웹 결과를 구분해 비교하고, 각 주장 옆에 "
           "출처(파일명과 페이지, 또는 웹 제목/URL)를 표시하세요. 결과에 있는 출처를 하나도 빠뜨리지 말고 마지막에 "
           "'**출처:**' 목록으로 모두 나열하세요. 빠진 결과가 있으면 무엇이 빠졌는지 밝히세요. 한국어로 답하세요."),
    "en": ("You merge several agents' results into one answer. Use only the content of the [result] blocks below "
           "and add no fact they do not contain. Keep internal-document findings and web findings apart and "
           "compare them; cite the source (file and pages, or web title/URL) next to each claim. Keep every "
           "source given and list them all at the end under '**Sources:**'. If a result is missing, say which. "
           "Answer in English."),
}


def source_key(source: dict[str, Any]) -> tuple[Any, ...]:
    """Identity of a source: a web page by URL; a file by id (or storage ref / name) and its pages."""
    if source.get("type") == "web" or (source.get("url") and not source.get("file_name")):
        return ("web", str(source.get("url") or source.get("title") or "").rstrip("/"))
    file_key = source.get("file_id") or source.get("storage_ref") or source.get("file_name") or source.get("file_url")
    return ("file", file_key, tuple(source.get("pages") or ()))


def dedupe_sources(sources: Iterable[dict[str, Any]]) -> list[dict[str, Any]]:
    """Sources of every step, first occurrence order, duplicates merged (the best score kept).

    All fields the UI needs (`file_id`, `pages`, `page_label`, `file_url`; `url`, `title`) are preserved.
    """
    out: dict[tuple[Any, ...], dict[str, Any]] = {}
    for source in sources:
        if not isinstance(source, dict):
            continue
        key = source_key(source)
        if key in out:
            kept = out[key]
            for name, value in source.items():
                kept.setdefault(name, value)
            if (source.get("score") or 0) > (kept.get("score") or 0):
                kept["score"] = source["score"]
        else:
            out[key] = dict(source)
    return list(out.values())


def step_sources(results: Sequence[StepResult]) -> list[dict[str, Any]]:
    """De-duplicated sources of all steps, each tagged with the agent that found it."""
    tagged = []
    for result in results:
        for source in result.sources:
            if isinstance(source, dict):
                tagged.append({**source, "agent": source.get("agent") or result.agent})
    return dedupe_sources(tagged)


def format_source(source: dict[str, Any]) -> str:
    if source_key(source)[0] == "web":
        title = source.get("title") or source.get("url")
        return f"- [{title}]({source.get('url')})"
    name = source.get("file_name") or source.get("storage_ref") or source.get("file_id") or "?"
    label = source.get("page_label") or (f"p.{','.join(str(p) for p in source['pages'])}"
                                         if source.get("pages") else "")
    return f"- **{name}**" + (f" ({label})" if label else "")


def _section_title(result: StepResult, language: str) -> str:
    icon = {"internal_rag": "📄", "web_research": "🌐", "file_management": "🗂️", "report_writing": "📝"}
    return f"### {icon.get(result.agent, '🔹')} {agent_label(result.agent, language)} ({result.agent})"


def structured_merge(results: Sequence[StepResult], sources: Sequence[dict[str, Any]], language: str) -> str:
    """The offline synthesis: one section per source agent (its answer as is), then every source once."""
    parts = [message("orchestrator.merge_heading", language)]
    for result in results:
        if result.failed:
            continue
        body = result.text.strip() or message("orchestrator.merge_empty", language)
        parts.append(f"{_section_title(result, language)}\n{body}")
    if sources:
        parts.append(message("orchestrator.sources", language) + "\n"
                     + "\n".join(format_source(s) for s in sources))
    return "\n\n".join(parts)


async def synthesize(llm: LLM, question: str, results: Sequence[StepResult], sources: Sequence[dict[str, Any]],
                     language: str, model: str | None = None) -> tuple[str, str]:
    """Merge a HYBRID plan's results. Returns (text, method) with method `llm`, `merge` or `merge-fallback`."""
    usable = [r for r in results if not r.failed]
    if not usable:
        return structured_merge(results, sources, language), "merge"
    blocks = []
    for result in usable:
        src = "\n".join(format_source(s) for s in result.sources)
        blocks.append(f"[result {result.index}: {result.agent} — status {result.status}]\n{result.text.strip()}"
                      + (f"\nsources:\n{src}" if src else "") + f"\n[/result {result.index}]")
    missing = [f"{r.agent}: {r.status}" for r in results if r.failed]
    user = (f"Question: {question}\n\n" + "\n\n".join(blocks)
            + (f"\n\nMissing results: {'; '.join(missing)}" if missing else ""))
    messages = [{"role": "system", "content": SYNTHESIS_PROMPT.get(language, SYNTHESIS_PROMPT["ko"])},
                {"role": "user", "content": user}]
    try:
        text = await llm.chat(messages, model=model, purpose="synthesis")
    except OfflineUnsupported:  # offline mode: the structured merge is the synthesis, not a fallback
        return structured_merge(results, sources, language), "merge"
    except LLMError as exc:
        log.warning("synthesis failed, structured merge used: %s", exc)
        return structured_merge(results, sources, language), "merge-fallback"
    if not text.strip():
        return structured_merge(results, sources, language), "merge-fallback"
    # The model is told to keep every source; make sure none was dropped anyway.
    dropped = [s for s in sources if not _mentioned(text, s)]
    if dropped:
        text = text.rstrip() + "\n\n" + "\n".join(format_source(s) for s in dropped)
    return text, "llm"


def _mentioned(text: str, source: dict[str, Any]) -> bool:
    if source_key(source)[0] == "web":
        return bool(source.get("url")) and str(source["url"]) in text
    name = source.get("file_name") or source.get("storage_ref")
    return bool(name) and str(name) in text
