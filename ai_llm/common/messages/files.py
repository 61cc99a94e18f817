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
    "status_not_indexed": {"ko": "문서에 추가 전", "en": "not in the documents"},
    # What a person reads in a file's record while it is indexed, or when indexing did not succeed: what
    # happened, and what they can do. The causes' own texts (an exception, the RAG agent's English reason) go
    # to the log only.
    "index_waiting": {
        "ko": "문서 검색에 잠시 연결할 수 없어 기다리는 중입니다. 연결되면 자동으로 색인하니 따로 하실 일은 없습니다.",
        "en": "Document search cannot be reached for now; the file is indexed automatically once it is back. "
              "Nothing to do.",
    },
    "index_gave_up": {
        "ko": "색인을 {n}번 시도했지만 문서 검색이 끝내지 못했습니다. 잠시 후 파일 목록의 '다시 색인'을 눌러 "
              "주세요. 계속되면 관리자에게 알려 주세요.",
        "en": "Indexing was tried {n} times and document search could not finish it. Press 'Re-index' in the "
              "file list later; if it keeps failing, tell your administrator.",
    },
    "index_failed": {
        "ko": "색인 중 예기치 않은 오류가 났습니다. 파일 목록의 '다시 색인'을 눌러 다시 시도해 주세요. "
              "계속되면 관리자에게 알려 주세요.",
        "en": "An unexpected error stopped the indexing. Press 'Re-index' in the file list to try again; if it "
              "keeps failing, tell your administrator.",
    },
    "index_no_text": {
        "ko": "이 파일에서 읽을 수 있는 글자를 찾지 못해 검색에 쓸 수 없습니다. 글자가 들어 있는 파일이나 더 선명한 "
              "스캔본을 올려 주세요.",
        "en": "No readable text was found in this file, so it cannot be searched. Upload a file with text in it, "
              "or a clearer scan.",
    },
    "index_password": {
        "ko": "암호가 걸린 파일이라 읽을 수 없습니다. 암호를 푼 파일을 다시 올려 주세요.",
        "en": "The file is password-protected and cannot be read. Upload it again without the password.",
    },
    "index_damaged": {
        "ko": "파일이 손상되었거나 형식이 맞지 않아 읽을 수 없습니다. 원래 프로그램에서 다시 저장한 뒤 올려 주세요.",
        "en": "The file is damaged or not in the format its type says, so it cannot be read. Save it again in "
              "the program that made it and upload it.",
    },
    "index_too_large": {
        "ko": "파일이 색인할 수 있는 크기보다 큽니다. 파일을 나누어 올려 주세요.",
        "en": "The file is larger than indexing allows. Split it and upload the parts.",
    },
    "index_ocr_unavailable": {
        "ko": "이 서버에서 글자 인식(OCR)을 쓸 수 없어 스캔 문서를 읽지 못했습니다. 관리자에게 문의하거나 글자가 "
              "들어 있는 파일을 올려 주세요.",
        "en": "Text recognition (OCR) is not available on this server, so the scan could not be read. Ask your "
              "administrator, or upload a file with text in it.",
    },
    "index_unreadable": {
        "ko": "문서 검색이 이 파일을 읽지 못했습니다. 파일을 확인해 다시 올리거나 '다시 색인'을 눌러 주세요.",
        "en": "Document search could not read this file. Check the file and upload it again, or press "
              "'Re-index'.",
    },
    "index_same_content": {
        "ko": "같은 내용이 이미 색인되어 있어 다시 색인하지 않았습니다. 검색에는 그대로 쓰입니다.",
        "en": "The same content is already indexed, so it was not indexed again; it is searched as it is.",
    },
    "index_skipped": {
        "ko": "문서 검색이 이 파일을 색인하지 않았습니다. 필요하면 '다시 색인'을 눌러 주세요.",
        "en": "Document search did not index this file. Press 'Re-index' if you need it.",
    },
}
