"""The backend's user-facing texts: the error events of a chat (`backend/api/routers/chat.py`) and the
refusal of the account, team and audit routes while accounts are off (`backend/api/routers/auth.py`).

The chat's first status is the orchestrator's own planning line (`orchestrator.planning`)."""

from __future__ import annotations

MESSAGES: dict[str, dict[str, str]] = {
    "unavailable": {"ko": "오케스트레이터에 연결할 수 없습니다. 허브가 실행 중인지 확인해 주세요.",
                    "en": "The orchestrator is unreachable. Check that the hub is running."},
    "timeout": {"ko": "응답 시간이 초과되었습니다. 잠시 후 다시 시도해 주세요.",
                "en": "The hub did not answer in time. Please try again shortly."},
    "unauthorized": {"ko": "에이전트가 요청을 거부했습니다 (`HUB_TOKEN` 설정을 확인해 주세요).",
                     "en": "An agent refused the call (check the HUB_TOKEN setting)."},
    "failed": {"ko": "요청을 처리하지 못했습니다: {detail}", "en": "The request could not be completed: {detail}"},
    "not_found": {"ko": "대화를 찾을 수 없습니다.", "en": "The conversation was not found."},
    "call_failed": {"ko": "오케스트레이터 호출이 실패했습니다", "en": "the orchestrator call failed"},
    "internal": {"ko": "백엔드에서 오류가 발생했습니다.", "en": "The backend hit an error."},
    "accounts_off": {"ko": "이 허브는 계정 기능이 꺼져 있습니다 (로컬 모드). 사용자, 팀, 감사 기록을 쓰려면 `HUB_TOKEN`과 "
                           "`HUB_ADMIN_PASSWORD`를 설정하세요.",
                     "en": "Accounts are off on this hub (local mode). Set HUB_TOKEN and HUB_ADMIN_PASSWORD to use "
                           "users, teams and the audit."},
}
