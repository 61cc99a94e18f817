"""Messages of the report-writing agent: status lines, the report's headings and fixed sentences, and the
section headings named after the agent whose result a section holds (`agent_<agent name>`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "writing": {"ko": "📝 보고서를 작성하는 중…", "en": "📝 Writing the report…"},
    "saving": {"ko": "💾 보고서 파일을 저장하는 중…", "en": "💾 Saving the report files…"},
    "download": {"ko": "다운로드", "en": "Download"},
    "save_failed": {"ko": "보고서 파일을 저장하지 못했습니다", "en": "Could not save the report files"},
    "save_failed_detail": {
        "ko": "파일 저장소가 응답하지 않거나 저장을 거절했습니다. 아래 보고서 내용을 복사해 두고 잠시 후 다시 요청해 "
              "주세요.",
        "en": "The file store did not answer or refused the files. Copy the report below and ask again shortly.",
    },
    "report": {"ko": "보고서", "en": "Report"},
    "summary": {"ko": "요약", "en": "Summary"},
    "conclusion": {"ko": "결론", "en": "Conclusion"},
    "references": {"ko": "참고 문헌", "en": "References"},
    "date": {"ko": "작성일", "en": "Date"},
    "question": {"ko": "질문", "en": "Question"},
    "nothing": {"ko": "보고할 내용이 없습니다. 이전 단계에서 전달된 결과가 없습니다.",
                "en": "There is nothing to report: the earlier steps returned no results."},
    "basis": {"ko": "이 보고서의 내용은 {sources}에서 인용했습니다.",
              "en": "Everything in this report is quoted from {sources}."},
    "basis_more": {"ko": "{named} 외 {more}개 출처", "en": "{named} and {more} more source(s)"},
    "basis_unsourced": {"ko": "이 보고서의 내용은 이전 단계의 결과를 옮긴 것이며, 출처가 표시되지 않았습니다.",
                        "en": "This report restates the earlier steps' results; they named no sources."},
    "agent_internal_rag": {"ko": "내부 문서 검색 결과", "en": "Internal documents"},
    "agent_web_research": {"ko": "웹 조사 결과", "en": "Web research"},
    "agent_file_management": {"ko": "파일 정보", "en": "Files"},
    "agent_orchestrator": {"ko": "종합 결과", "en": "Combined results"},
}
