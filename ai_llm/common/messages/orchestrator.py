"""Messages of the orchestrator: its status lines, the notices and replies it composes, the agents' names
and what they can do (the DIRECT reply), and the headings of a merged HYBRID answer."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    # -- the flow (agent.py) ------------------------------------------------------------------
    "planning": {"ko": "🧭 요청을 분석하고 실행 계획을 세우는 중…", "en": "🧭 Analysing the request and planning…"},
    "planned": {"ko": "📋 실행 계획: {plan}", "en": "📋 Plan: {plan}"},
    "fallback": {"ko": "📄 사내 문서에서 찾지 못했습니다. 웹에서 검색합니다...",
                 "en": "📄 Not found in internal documents. Searching the web..."},
    "fallback_failed": {"ko": "📄 사내 문서 검색에 실패했습니다({reason}). 웹에서 검색합니다...",
                        "en": "📄 The internal document search failed ({reason}). Searching the web..."},
    "web_fallback": {"ko": "🌐 웹에서 찾지 못했습니다. 사내 문서에서 찾습니다...",
                     "en": "🌐 Nothing was found on the web. Searching your documents..."},
    "web_fallback_failed": {"ko": "🌐 웹 검색을 사용할 수 없습니다({reason}). 사내 문서에서 찾습니다...",
                            "en": "🌐 Web search is unavailable ({reason}). Searching your documents..."},
    "web_fallback_answer": {"ko": "🌐 웹에서 답을 얻지 못해 사내 문서에서 찾은 내용입니다.",
                            "en": "🌐 The web gave no answer; this comes from your documents."},
    "rag_prefix": {"ko": "📄 [사내 문서 기반]", "en": "📄 [Based on internal documents]"},
    "web_prefix": {"ko": "🌐 [웹 검색 기반]", "en": "🌐 [Based on web search]"},
    "not_found": {"ko": "관련 정보를 찾을 수 없습니다.", "en": "No relevant information found."},
    "web_down": {"ko": "사내 문서에서 찾지 못했고, 웹 검색도 사용할 수 없습니다 ({reason}).",
                 "en": "Nothing was found in the internal documents, and web search is unavailable ({reason})."},
    "restate": {"ko": "질문을 정확히 이해하지 못했습니다. 무엇을 찾으시는지 조금 더 구체적으로 다시 말씀해 주시겠어요?",
                "en": "I could not tell exactly what you are looking for. Could you restate the question more "
                      "specifically?"},
    "synthesis": {"ko": "🧩 여러 에이전트의 결과를 종합하는 중…", "en": "🧩 Combining the agents' results…"},
    "missing_head": {"ko": "⚠️ 일부 결과를 가져오지 못했습니다:", "en": "⚠️ Some results are missing:"},
    "missing_line": {"ko": "- {label}({agent}): {reason}", "en": "- {label} ({agent}): {reason}"},
    "nothing": {"ko": "요청을 처리할 수 있는 에이전트의 응답을 받지 못했습니다.",
                "en": "No agent able to handle this request answered."},
    "empty": {"ko": "질문이나 요청 내용을 입력해 주세요.", "en": "Please type a question or request."},
    "too_long": {"ko": "요청이 너무 깁니다 ({n:,}자). {limit:,}자 이내로 줄여서 다시 보내 주세요.",
                 "en": "The request is too long ({n:,} characters). Please shorten it to {limit:,} characters."},
    "direct": {"ko": ("안녕하세요! 저는 팀의 업무를 돕는 에이전트 허브입니다. 다음과 같은 일을 할 수 있습니다:\n"
                      "{capabilities}\n예: \"사내 보안 지침에서 비밀번호 규정 찾아줘\", \"오늘 원달러 환율 알려줘\", "
                      "\"우리 규정을 최신 법령과 비교해줘\", \"이 답변을 보고서로 저장해줘\""),
               "en": ("Hello! I am the team's agent hub. I can:\n{capabilities}\nFor example: \"find the password "
                      "rules in our security guideline\", \"today's USD/KRW exchange rate\", \"compare our policy "
                      "with the latest law\", \"save this answer as a report\".")},
    "unavailable_note": {"ko": "(현재 연결되지 않음)", "en": "(currently unreachable)"},
    "previous": {"ko": "직전 답변의 핵심 문장입니다 (오프라인 모드에서는 원문을 인용합니다):",
                 "en": "The key sentences of the previous answer (offline mode quotes the original):"},
    # Why a step is missing, by step status (`reason_<status>`).
    "reason_timeout": {"ko": "응답 시간 초과", "en": "timed out"},
    "reason_unavailable": {"ko": "에이전트에 연결할 수 없음", "en": "agent unreachable"},
    "reason_error": {"ko": "오류", "en": "error"},
    "reason_skipped": {"ko": "앞 단계 결과가 없어 실행하지 않음", "en": "not run: its inputs are missing"},
    # What each agent can do, by agent name (`capability_<agent>`): the DIRECT reply and prompt list them.
    "capability_internal_rag": {"ko": "사내 문서(PDF 등)를 검색해 페이지 출처와 함께 답변",
                                "en": "search internal documents (PDF …) and cite pages"},
    "capability_web_research": {"ko": "웹에서 최신 정보를 찾아 출처와 함께 답변",
                                "en": "research the live web with cited sources"},
    "capability_file_management": {"ko": "업로드한 파일 목록·열람·이름 변경·삭제",
                                   "en": "list, read, rename and delete uploaded files"},
    "capability_report_writing": {"ko": "검색 결과로 보고서(DOCX) 작성", "en": "write reports (DOCX) from search results"},
    # -- plan steps (executor.py): a person-readable agent name (`agent_<agent>`) and step status lines -----------
    "agent_internal_rag": {"ko": "사내 문서 검색", "en": "internal document search"},
    "agent_web_research": {"ko": "웹 검색", "en": "web research"},
    "agent_file_management": {"ko": "파일 관리", "en": "file management"},
    "agent_report_writing": {"ko": "보고서 작성", "en": "report writing"},
    "step_start": {"ko": "▶️ {label}({agent}) 에이전트에 요청 중…", "en": "▶️ Asking {label} ({agent})…"},
    "step_failed": {"ko": "⚠️ {label}({agent}) 실패: {status}", "en": "⚠️ {label} ({agent}) failed: {status}"},
    "step_done": {"ko": "✅ {label}({agent}) 완료 ({seconds:.1f}초, {status})",
                  "en": "✅ {label} ({agent}) finished in {seconds:.1f}s ({status})"},
    # -- the offline HYBRID merge (synthesis.py) -----------------------------------------------------------
    "merge_heading": {"ko": "여러 에이전트의 결과를 모았습니다.", "en": "Results gathered from several agents."},
    "merge_empty": {"ko": "(결과 없음)", "en": "(no result)"},
    "sources": {"ko": "**출처:**", "en": "**Sources:**"},
}
