"""Messages of the file-management agent: status lines, replies, and the labels of a file's index status
(`status_<index_status>`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "listing": {"ko": "📂 파일 목록을 확인하는 중…", "en": "📂 Checking the file list…"},
    "uploading": {"ko": "📤 파일을 저장하는 중…", "en": "📤 Storing the file…"},
    "deleting": {"ko": "🗑️ 파일을 삭제하는 중…", "en": "🗑️ Deleting…"},
    "renaming": {"ko": "✏️ 파일 이름을 바꾸는 중…", "en": "✏️ Renaming…"},
    "reading": {"ko": "📖 파일을 읽는 중…", "en": "📖 Reading the file…"},
    "reindexing": {"ko": "🔄 다시 색인하는 중…", "en": "🔄 Re-indexing…"},
    "none": {"ko": "조건에 맞는 파일이 없습니다.", "en": "No file matches."},
    "empty": {"ko": "저장된 파일이 없습니다.", "en": "No files are stored."},
    "list_head": {"ko": "파일 {n}개:", "en": "{n} file(s):"},
    "list_columns": {"ko": "| 이름 | 크기(바이트) | 올린 시각 | 색인 |", "en": "| name | bytes | uploaded | index |"},
    "confirm": {
        "ko": "다음 파일 {n}개를 삭제할까요? 진행하려면 '네', 취소하려면 '아니요'라고 답해 주세요.",
        "en": "Delete these {n} files? Answer 'yes' to proceed or 'no' to cancel.",
    },
    "deleted": {"ko": "삭제했습니다: {names} (색인 조각 {chunks}개 제거)",
                "en": "Deleted: {names} ({chunks} index chunks removed)"},
    "cancelled": {"ko": "삭제를 취소했습니다.", "en": "Deletion cancelled."},
    "renamed": {"ko": "이름을 바꿨습니다: {old} → {new}", "en": "Renamed: {old} → {new}"},
    "uploaded": {"ko": "저장했습니다: {name} ({size}바이트). 색인 중입니다.",
                 "en": "Stored {name} ({size} bytes); indexing."},
    "which": {"ko": "어느 파일인지 알려 주세요: {names}", "en": "Which file do you mean? {names}"},
    "unknown": {
        "ko": "파일 작업을 이해하지 못했습니다. 예: '파일 목록 보여줘', '출장비 규정 삭제해줘', "
              "'보고서.md 이름을 요약.md로 바꿔줘'.",
        "en": "I did not understand the file operation. "
              "Examples: 'list files', 'delete the CDC guide', 'rename report.md to summary.md'.",
    },
    "need_name": {"ko": "바꿀 새 이름을 알려 주세요 (예: 'A.pdf 이름을 B.pdf로 바꿔줘').",
                  "en": "Tell me the new name (e.g. 'rename A.pdf to B.pdf')."},
    "need_upload": {"ko": "업로드할 파일을 함께 보내 주세요 (요청 데이터의 `name`, `content_b64`).",
                    "en": "Send the file with the request (data: name, content_b64)."},
    "reindexed": {"ko": "다시 색인을 시작했습니다: {names}", "en": "Re-indexing started: {names}"},
    "status_indexing": {"ko": "색인 중", "en": "indexing"},
    "status_indexed": {"ko": "색인 완료", "en": "indexed"},
    "status_skipped": {"ko": "건너뜀(동일 내용)", "en": "skipped (same content)"},
    "status_error": {"ko": "오류", "en": "error"},
    "index_waiting": {"ko": "문서 검색 에이전트에 연결할 수 없어 다시 시도합니다.",
                      "en": "The document search agent cannot be reached; indexing will be retried."},
    "index_gave_up": {
        "ko": "문서 검색 에이전트가 이 파일을 여러 번 처리하지 못했습니다. 잠시 후 다시 색인을 요청해 주세요.",
        "en": "The document search agent failed on this file several times. Ask to re-index it later.",
    },
    "index_failed": {"ko": "색인하지 못했습니다. 잠시 후 다시 색인을 요청해 주세요.",
                     "en": "Indexing failed. Ask to re-index it later."},
}
