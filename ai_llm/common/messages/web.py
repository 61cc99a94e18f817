"""User-facing texts of the web-research agent (status lines, reply headings, errors)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "no_result": {"ko": "관련 정보를 찾을 수 없습니다", "en": "No relevant information found"},
    "no_result_detail": {
        "ko": "검색 결과 중 질문과 충분히 관련된 페이지가 없습니다 (최고 관련도 {score:.2f}, 기준 {threshold:.2f}).",
        "en": "No search result matched the question closely enough (best relevance {score:.2f}, "
              "threshold {threshold:.2f}).",
    },
    "not_covered": {"ko": "찾은 페이지 어디에도 질문의 핵심어가 충분히 나오지 않습니다 (없는 단어: {words}).",
                    "en": "The pages found do not mention most of what was asked (missing: {words})."},
    "not_stated": {"ko": "읽은 페이지의 어느 문장도 질문에 답하지 않습니다 (가장 가까운 문장: {source}).",
                   "en": "No sentence of the pages read answers the question (the closest: {source})."},
    "searching_web": {"ko": "🔍 웹에서 정보를 검색 중… ({query})", "en": "🔍 Searching the web… ({query})"},
    "searching_news": {"ko": "🔍 웹에서 최신 정보를 검색 중… ({query})",
                       "en": "🔍 Searching the web for the latest news… ({query})"},
    "reading": {"ko": "📄 페이지를 읽는 중… ({title})", "en": "📄 Reading page… ({title})"},
    "reading_pages": {"ko": "📄 페이지 {count}개를 읽는 중… ({titles})", "en": "📄 Reading {count} pages… ({titles})"},
    "answering": {"ko": "✍️ 답변을 정리하는 중…", "en": "✍️ Writing the answer…"},
    "sources": {"ko": "출처", "en": "Sources"},
    "according": {"ko": "{source}에 따르면", "en": "According to {source}"},
    "details": {"ko": "세부 내용", "en": "Details"},
    "tools_down": {"ko": "검색 도구에 연결할 수 없습니다 ({reason})", "en": "The search tools cannot be reached ({reason})"},
    "search_down": {"ko": "웹 검색을 사용할 수 없습니다 ({reason})", "en": "Web search is unavailable ({reason})"},
    # Why a search could not run, by kind (`outage_<kind>`, `answering.outage_kind`); the raw error goes
    # to the log and the reply's data, never to the person.
    "outage_unreachable": {"ko": "연결 안 됨", "en": "not connected"},
    "outage_timeout": {"ko": "응답 시간 초과", "en": "timed out"},
    "outage_rate_limited": {"ko": "검색 한도 초과", "en": "search limit reached"},
    "outage_not_configured": {"ko": "검색 제공자가 설정되지 않음", "en": "no search provider configured"},
    "outage_error": {"ko": "검색 제공자 오류", "en": "search provider error"},
    "empty": {"ko": "질문이 비어 있습니다. 검색할 내용을 입력해 주세요.",
              "en": "The question is empty. Please type what to search for."},
    # fact verification (`verify_fact`)
    "verify_searching": {"ko": "🔎 수치 검증 검색 중… ({query})", "en": "🔎 Searching to verify the figure… ({query})"},
    "verify_confirmed": {"ko": "{count}개 독립 출처에서 확인됨", "en": "confirmed by {count} independent sources"},
    "verify_failed": {"ko": "검증 실패", "en": "not verified"},
    "verify_table_header": {"ko": "| 출처 | 등급 | 값 | 날짜 | 원문 |", "en": "| source | tier | value | date | quote |"},
}
