"""Messages of the internal-RAG agent: status lines while it searches or indexes, and its replies."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "rewriting": {"ko": "🔎 질문을 분석해 검색어를 만드는 중…", "en": "🔎 Rewriting the question into search queries…"},
    "searching": {"ko": "📚 사내 문서를 {n}개 검색어로 검색 중…", "en": "📚 Searching internal documents with {n} queries…"},
    "generating": {"ko": "✍️ 찾은 문단 {n}개로 답변을 작성 중…", "en": "✍️ Writing the answer from {n} passages…"},
    "parsing": {"ko": "📄 '{file_name}' 문서를 읽는 중…", "en": "📄 Reading '{file_name}'…"},
    "ocr": {"ko": "🔍 '{file_name}': 글자 인식(OCR) {page}/{pages}쪽…",
            "en": "🔍 '{file_name}': recognising text (OCR), page {page} of {pages}…"},
    "embedding": {"ko": "🧮 '{file_name}': 조각 {chunks}개 임베딩 중…", "en": "🧮 '{file_name}': embedding {chunks} chunks…"},
    "saving": {"ko": "💾 '{file_name}': 조각 {chunks}개 저장 중…", "en": "💾 '{file_name}': saving {chunks} chunks…"},
    "no_result": {"ko": "사내 문서에서 관련 내용을 찾지 못했습니다.",
                  "en": "I could not find anything relevant in the internal documents."},
    "no_result_closest": {"ko": "가장 가까운 문서는 {file}{label}이지만, 질문에 답하는 문장은 찾지 못했습니다.",
                          "en": "The closest document is {file}{label}, but no sentence in it answers the question."},
    "no_result_unknown": {"ko": "질문의 다음 항목은 어느 사내 문서에도 나오지 않습니다: {names}",
                          "en": "These names in the question appear in no internal document: {names}"},
    "clarify": {"ko": "어떤 내용을 가리키는지 알 수 없습니다. 대상(문서나 주제)을 넣어 질문을 다시 말씀해 주세요.",
                "en": "I can't tell what this refers to. Please restate the question with the document or topic."},
    "clarify_index": {"ko": "색인할 파일이 없습니다. 파일을 업로드하거나 파일 정보를 함께 보내 주세요.",
                      "en": "No file to index was given. Upload a file or send its details."},
    "sources": {"ko": "**출처:**", "en": "**Sources:**"},
    "location": {"ko": "파일 위치", "en": "Location"},
    "extract_intro": {"ko": "문서에서 찾은 답변입니다:", "en": "What the documents say:"},
    "index_done": {"ko": "색인 결과: 성공 {success}건, 건너뜀 {skipped}건, 실패 {error}건",
                   "en": "Indexing: {success} indexed, {skipped} skipped, {error} failed"},
    "deleted": {"ko": "'{ref}' 문서의 색인 조각 {n}개를 삭제했습니다.", "en": "Deleted {n} indexed chunks of '{ref}'."},
    "updated": {"ko": "'{ref}' 문서의 색인 정보 {n}건을 갱신했습니다.", "en": "Updated {n} indexed chunks of '{ref}'."},
    "manage_refused": {"ko": "문서 삭제와 변경은 파일 관리에서 할 수 있습니다.",
                       "en": "Documents are deleted and changed through file management."},
    "missing_ref": {"ko": "`storage_ref` 값이 필요합니다.", "en": "storage_ref is required."},
}
