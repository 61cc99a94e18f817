// Minimal i18n: a Korean (default) and English dictionary plus a reactive locale.
import { ref } from 'vue'

export const LOCALE_KEY = 'agenthub.language'
export const SUPPORTED_LOCALES = ['ko', 'en']

export const messages = {
  ko: {
    'app.title': 'Agent Hub',
    'app.subtitle': '사내 멀티 에이전트 허브',
    'chat.quotes': '근거 문장',
    'conversations.title': '대화 목록',
    'conversations.search': '대화 검색',
    'conversations.empty': '대화가 없습니다.',
    'conversations.failed': '대화 목록을 불러오지 못했습니다.',
    'conversations.untitled': '(제목 없음)',
    'conversations.rename': '이름 바꾸기',
    'conversations.delete': '삭제',
    'files.visibility': '공개 범위',
    'files.visibility.private': '나만',
    'files.visibility.everyone': '모두',
    'files.visibility.team': '팀: {team}',
    'chat.openQuote': '문서에서 보기',
    'viewer.download': '내려받기',
    'viewer.close': '닫기',
    'viewer.loading': '문서를 여는 중…',
    'viewer.failed': '문서를 열 수 없습니다.',
    'viewer.recognised': '인식된 글자 (OCR)',
    'nav.chat': '채팅',
    'nav.files': '파일',
    'nav.dashboard': '검색 대시보드',
    'nav.audit': '감사 기록',
    'audit.title': '답변 감사 기록',
    'audit.username': '사용자 이름으로 거르기',
    'audit.loadFailed': '감사 기록을 불러오지 못했습니다.',
    'audit.empty': '아직 기록된 답변이 없습니다.',
    'audit.answers': '답변',
    'audit.searchSpend': '검색 비용',
    'audit.tokens': 'LLM 토큰',
    'audit.service': '서비스 토큰',
    'audit.col.user': '사용자',
    'audit.col.question': '질문',
    'audit.col.intent': '의도',
    'audit.col.documents': '읽은 문서와 페이지',
    'audit.col.cost': '비용',
    'nav.toggleFiles': '파일 패널 열기/닫기',
    'lang.label': '언어',
    'lang.ko': '한국어',
    'lang.en': 'English',

    'health.title': '에이전트 상태',
    'health.ok': '정상',
    'health.down': '응답 없음',
    'health.restarting': '재시작 중',
    'health.restarts': '재시작 {n}회',
    'health.unknown': '확인 중',
    'health.database': '데이터베이스',
    'health.llm': 'LLM',
    'health.offline': '오프라인 모드',
    'health.unreachable': '허브에 연결할 수 없습니다',

    'agent.orchestrator': '오케스트레이터',
    'agent.internal_rag': '사내 문서 검색',
    'agent.web_research': '웹 리서치',
    'agent.file_management': '파일 관리',
    'agent.report_writing': '보고서 작성',

    'intent.INTERNAL_SEARCH': '📄 사내 문서',
    'intent.WEB_SEARCH': '🌐 웹',
    'intent.FILE_OPERATION': '📁 파일',
    'intent.HYBRID': '🔀 HYBRID',
    'intent.DIRECT': '💬 일반',

    'chat.placeholder': '무엇이든 물어보세요…',
    'chat.hint': 'Enter 전송 · Shift+Enter 줄바꿈',
    'chat.inputLabel': '메시지 입력',
    'chat.send': '전송',
    'chat.cancel': '중지',
    'chat.newChat': '새 대화',
    'chat.emptyTitle': '무엇을 도와드릴까요?',
    'chat.emptyBody': '사내 문서 검색, 웹 리서치, 파일 관리, 보고서 작성을 한 곳에서 요청하세요.',
    'chat.example1': '2024년 사내 보안 정책에서 비밀번호 규정을 알려줘',
    'chat.example2': '최근 생성형 AI 규제 동향을 웹에서 찾아 요약해줘',
    'chat.example3': '업로드한 파일 목록을 보여줘',
    'chat.you': '나',
    'chat.assistant': 'Agent Hub',
    'chat.copy': '답변 복사',
    'chat.copied': '복사됨',
    'chat.copyFailed': '복사 실패',
    'chat.sources': '출처',
    'chat.steps': '처리 과정',
    'chat.usage.searches': '검색 {n}회',
    'chat.usage.paid': '검색 제공자 {n}회 {cost}',
    'chat.usage.llm': 'LLM {n}회 · 토큰 {tokens}',
    'chat.usage.estimated': '(추정)',
    'chat.usage.label': '이 답변의 비용',
    'chat.cancelled': '요청을 중지했습니다.',
    'chat.errorPrefix': '오류가 발생했습니다',
    'chat.networkError': '허브와 통신하지 못했습니다. 잠시 후 다시 시도해 주세요.',
    'chat.historyError': '이전 대화를 불러오지 못했습니다.',
    'chat.working': '처리 중…',
    'chat.progressTitle': '진행 상황',
    'chat.stepDone': '완료',
    'chat.stepFailed': '실패',

    'files.title': '파일',
    'files.dropHere': '파일을 여기로 끌어다 놓거나',
    'files.pick': '파일 선택',
    'files.hint': 'PDF, Word, Excel, 텍스트 등 사내 문서를 올리면 검색할 수 있도록 색인합니다.',
    'files.empty': '아직 업로드한 파일이 없습니다.',
    'files.uploading': '업로드 중',
    'files.uploaded': '업로드 완료',
    'files.uploadFailed': '업로드 실패',
    'files.tooLarge': '파일이 너무 큽니다.',
    'files.delete': '삭제',
    'files.deleteTitle': '파일 삭제',
    'files.deleteConfirm': '“{name}” 파일을 삭제할까요? 색인된 내용도 함께 삭제됩니다.',
    'files.deleteFailed': '파일을 삭제하지 못했습니다.',
    'files.loadFailed': '파일 목록을 불러오지 못했습니다.',
    'files.refresh': '새로고침',
    'files.chunks': '{n}개 청크',
    'files.status.indexing': '색인 중',
    'files.status.indexed': '색인 완료',
    'files.status.skipped': '건너뜀',
    'files.status.error': '오류',
    'files.open': '열기',
    'files.dismiss': '닫기',

    'dialog.cancel': '취소',
    'dialog.confirm': '확인',

    'dash.title': '검색 대시보드',
    'dash.refresh': '새로고침',
    'dash.loading': '불러오는 중…',
    'dash.loadFailed': '검색 통계를 불러오지 못했습니다.',
    'dash.empty': '아직 검색 기록이 없습니다.',
    'dash.totalRequests': '총 요청',
    'dash.totalSpend': '총 비용',
    'dash.hitRate': '캐시 적중률',
    'dash.spendChart': '시간대별 비용 (USD)',
    'dash.hitChart': '시간대별 캐시 적중률',
    'dash.latencyChart': '시간대별 지연 시간 p50 (ms)',
    'dash.providers': '제공자별 요약',
    'dash.recent': '최근 검색',
    'dash.col.provider': '제공자',
    'dash.col.requests': '요청',
    'dash.col.spend': '비용',
    'dash.col.hitRate': '적중률',
    'dash.col.p50': 'p50',
    'dash.col.p95': 'p95',
    'dash.col.time': '시각',
    'dash.col.agent': '에이전트',
    'dash.col.query': '검색어',
    'dash.col.cache': '캐시',
    'dash.col.latency': '지연',
    'dash.col.cost': '비용',
    'dash.col.results': '결과',
    'dash.cache.exact': '정확 일치',
    'dash.cache.semantic': '의미 유사',
    'dash.cache.miss': '미적중',
    'dash.noData': '데이터 없음',

    'login.title': '로그인이 필요합니다',
    'login.body': '계정으로 로그인하거나, 허브 관리자에게 받은 접근 토큰을 입력하세요.',
    'login.username': '사용자 이름',
    'login.password': '비밀번호',
    'login.invalidAccount': '사용자 이름 또는 비밀번호가 올바르지 않습니다.',
    'login.tooMany': '로그인 시도가 너무 많습니다. 잠시 후 다시 시도해 주세요.',
    'login.useToken': '허브 토큰으로 로그인',
    'login.useAccount': '계정으로 로그인',
    'login.token': '허브 토큰',
    'login.submit': '로그인',
    'login.invalid': '토큰이 올바르지 않습니다.',
    'login.failed': '로그인하지 못했습니다. 잠시 후 다시 시도해 주세요.',
  },
  en: {
    'chat.quotes': 'Quoted passages',
    'conversations.title': 'Conversations',
    'conversations.search': 'Search conversations',
    'conversations.empty': 'No conversations yet.',
    'conversations.failed': 'The conversations could not be loaded.',
    'conversations.untitled': '(untitled)',
    'conversations.rename': 'Rename',
    'conversations.delete': 'Delete',
    'files.visibility': 'Visible to',
    'files.visibility.private': 'Only me',
    'files.visibility.everyone': 'Everyone',
    'files.visibility.team': 'Team: {team}',
    'chat.openQuote': 'Show in the document',
    'viewer.download': 'Download',
    'viewer.close': 'Close',
    'viewer.loading': 'Opening the document…',
    'viewer.failed': 'The document cannot be opened.',
    'viewer.recognised': 'Recognised text (OCR)',
    'app.title': 'Agent Hub',
    'app.subtitle': 'Multi-agent hub',
    'nav.chat': 'Chat',
    'nav.files': 'Files',
    'nav.dashboard': 'Search dashboard',
    'nav.audit': 'Audit',
    'audit.title': 'Answer audit',
    'audit.username': 'Filter by username',
    'audit.loadFailed': 'Could not load the audit.',
    'audit.empty': 'No answers recorded yet.',
    'audit.answers': 'Answers',
    'audit.searchSpend': 'Search spend',
    'audit.tokens': 'LLM tokens',
    'audit.service': 'service token',
    'audit.col.user': 'User',
    'audit.col.question': 'Question',
    'audit.col.intent': 'Intent',
    'audit.col.documents': 'Documents and pages read',
    'audit.col.cost': 'Cost',
    'nav.toggleFiles': 'Toggle file panel',
    'lang.label': 'Language',
    'lang.ko': '한국어',
    'lang.en': 'English',

    'health.title': 'Agent status',
    'health.ok': 'OK',
    'health.down': 'Unreachable',
    'health.restarting': 'Restarting',
    'health.restarts': 'restarts: {n}',
    'health.unknown': 'Checking',
    'health.database': 'Database',
    'health.llm': 'LLM',
    'health.offline': 'offline mode',
    'health.unreachable': 'Cannot reach the hub',

    'agent.orchestrator': 'Orchestrator',
    'agent.internal_rag': 'Internal docs',
    'agent.web_research': 'Web research',
    'agent.file_management': 'File management',
    'agent.report_writing': 'Report writing',

    'intent.INTERNAL_SEARCH': '📄 Internal docs',
    'intent.WEB_SEARCH': '🌐 Web',
    'intent.FILE_OPERATION': '📁 Files',
    'intent.HYBRID': '🔀 Hybrid',
    'intent.DIRECT': '💬 General',

    'chat.placeholder': 'Ask anything…',
    'chat.hint': 'Enter to send · Shift+Enter for a new line',
    'chat.inputLabel': 'Message',
    'chat.send': 'Send',
    'chat.cancel': 'Stop',
    'chat.newChat': 'New chat',
    'chat.emptyTitle': 'How can I help?',
    'chat.emptyBody': 'Search internal documents, research the web, manage files and write reports in one place.',
    'chat.example1': 'What does our 2024 security policy say about passwords?',
    'chat.example2': 'Summarise recent generative AI regulation news from the web',
    'chat.example3': 'Show me the uploaded files',
    'chat.you': 'You',
    'chat.assistant': 'Agent Hub',
    'chat.copy': 'Copy answer',
    'chat.copied': 'Copied',
    'chat.copyFailed': 'Copy failed',
    'chat.sources': 'Sources',
    'chat.steps': 'Steps',
    'chat.usage.searches': '{n} searches',
    'chat.usage.paid': '{n} at a provider, {cost}',
    'chat.usage.llm': 'LLM {n} calls · {tokens} tokens',
    'chat.usage.estimated': '(estimated)',
    'chat.usage.label': 'What this answer cost',
    'chat.cancelled': 'Request stopped.',
    'chat.errorPrefix': 'Something went wrong',
    'chat.networkError': 'Could not reach the hub. Please try again shortly.',
    'chat.historyError': 'Could not load the previous conversation.',
    'chat.working': 'Working…',
    'chat.progressTitle': 'Progress',
    'chat.stepDone': 'done',
    'chat.stepFailed': 'failed',

    'files.title': 'Files',
    'files.dropHere': 'Drop files here or',
    'files.pick': 'choose files',
    'files.hint': 'Uploaded documents (PDF, Word, Excel, text…) are indexed for search.',
    'files.empty': 'No files uploaded yet.',
    'files.uploading': 'Uploading',
    'files.uploaded': 'Uploaded',
    'files.uploadFailed': 'Upload failed',
    'files.tooLarge': 'The file is too large.',
    'files.delete': 'Delete',
    'files.deleteTitle': 'Delete file',
    'files.deleteConfirm': 'Delete “{name}”? Its indexed content will be removed too.',
    'files.deleteFailed': 'Could not delete the file.',
    'files.loadFailed': 'Could not load the file list.',
    'files.refresh': 'Refresh',
    'files.chunks': '{n} chunks',
    'files.status.indexing': 'Indexing',
    'files.status.indexed': 'Indexed',
    'files.status.skipped': 'Skipped',
    'files.status.error': 'Error',
    'files.open': 'Open',
    'files.dismiss': 'Dismiss',

    'dialog.cancel': 'Cancel',
    'dialog.confirm': 'Confirm',

    'dash.title': 'Search dashboard',
    'dash.refresh': 'Refresh',
    'dash.loading': 'Loading…',
    'dash.loadFailed': 'Could not load search telemetry.',
    'dash.empty': 'No searches yet.',
    'dash.totalRequests': 'Requests',
    'dash.totalSpend': 'Spend',
    'dash.hitRate': 'Cache hit rate',
    'dash.spendChart': 'Spend over time (USD)',
    'dash.hitChart': 'Cache hit rate over time',
    'dash.latencyChart': 'Latency p50 over time (ms)',
    'dash.providers': 'Providers',
    'dash.recent': 'Recent queries',
    'dash.col.provider': 'Provider',
    'dash.col.requests': 'Requests',
    'dash.col.spend': 'Spend',
    'dash.col.hitRate': 'Hit rate',
    'dash.col.p50': 'p50',
    'dash.col.p95': 'p95',
    'dash.col.time': 'Time',
    'dash.col.agent': 'Agent',
    'dash.col.query': 'Query',
    'dash.col.cache': 'Cache',
    'dash.col.latency': 'Latency',
    'dash.col.cost': 'Cost',
    'dash.col.results': 'Results',
    'dash.cache.exact': 'exact',
    'dash.cache.semantic': 'semantic',
    'dash.cache.miss': 'miss',
    'dash.noData': 'No data',

    'login.title': 'Sign in required',
    'login.body': 'Sign in with your account, or enter the access token you received from the hub administrator.',
    'login.username': 'Username',
    'login.password': 'Password',
    'login.invalidAccount': 'Wrong username or password.',
    'login.tooMany': 'Too many sign-in attempts. Please try again shortly.',
    'login.useToken': 'Sign in with the hub token',
    'login.useAccount': 'Sign in with an account',
    'login.token': 'Hub token',
    'login.submit': 'Sign in',
    'login.invalid': 'The token is not valid.',
    'login.failed': 'Sign-in failed. Please try again shortly.',
  },
}

function readStoredLocale() {
  try {
    const stored = globalThis.localStorage?.getItem(LOCALE_KEY)
    if (SUPPORTED_LOCALES.includes(stored)) return stored
  } catch {
    // localStorage may be unavailable (privacy mode); fall back to Korean.
  }
  return 'ko'
}

export const locale = ref(readStoredLocale())

export function setLocale(next) {
  if (!SUPPORTED_LOCALES.includes(next)) return
  locale.value = next
  try {
    globalThis.localStorage?.setItem(LOCALE_KEY, next)
  } catch {
    // ignore storage failures
  }
  if (globalThis.document) document.documentElement.lang = next
}

/** Re-read the persisted locale (used at startup and in tests). */
export function initLocale() {
  locale.value = readStoredLocale()
  if (globalThis.document) document.documentElement.lang = locale.value
  return locale.value
}

/**
 * Translate `key` in the current locale, replacing `{name}` placeholders.
 * Falls back to Korean, then to the key itself.
 */
export function t(key, params) {
  const table = messages[locale.value] || messages.ko
  let text = table[key] ?? messages.ko[key] ?? key
  if (params) {
    text = text.replace(/\{(\w+)\}/g, (m, name) => (name in params ? String(params[name]) : m))
  }
  return text
}

/** Localized label for an agent id, falling back to the id itself. */
export function agentLabel(agent) {
  const key = `agent.${agent}`
  const label = t(key)
  return label === key ? agent : label
}

/** Localized badge text for an intent, or '' for unknown/missing intents. */
export function intentLabel(intent) {
  if (!intent) return ''
  const key = `intent.${intent}`
  const label = t(key)
  return label === key ? intent : label
}

export function intlLocale() {
  return locale.value === 'en' ? 'en-US' : 'ko-KR'
}
