import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import ChatView from '../../src/components/ChatView.vue'
import { setLocale } from '../../src/i18n.js'
import { CONVERSATION_KEY } from '../../src/api/chat.js'
import { controlledStream, jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

/** Mock /api/chat with a stream per request that the test drives. */
function setupChat(extraRoutes = {}) {
  const streams = []
  const fetchMock = mockFetch({
    'POST /api/chat': (url, init) => {
      const s = controlledStream(init.signal)
      s.body = JSON.parse(init.body)
      s.signal = init.signal
      streams.push(s)
      return new Response(s.stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
    },
    ...extraRoutes,
  })
  return { streams, fetchMock }
}

async function typeAndSend(wrapper, text) {
  const input = wrapper.get(tid('chat-input'))
  await input.setValue(text)
  await input.trigger('keydown', { key: 'Enter' })
  await settle()
}

const ANSWER = {
  text: '## 결과\n\n비밀번호는 **12자 이상**이어야 합니다.',
  intent: 'INTERNAL_SEARCH',
  conversation_id: 'conv-1',
  sources: [
    { type: 'file', file_id: 'f1', file_name: '보안정책.pdf', pages: [13, 14, 15], page_label: 'p.13–15', url: '/api/files/f1/download' },
    { type: 'web', url: 'https://example.com/news', title: '관련 기사' },
  ],
  steps: [{ agent: 'internal_rag', status: 'completed', elapsed_ms: 900 }],
}

describe('ChatView', () => {
  beforeEach(() => {
    localStorage.clear()
    setLocale('ko')
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('shows live progress per agent, then the answer with badge and sources', async () => {
    const { streams, fetchMock } = setupChat()
    const wrapper = mount(ChatView, { attachTo: document.body })
    await typeAndSend(wrapper, '비밀번호 규정 알려줘')

    expect(fetchMock).toHaveBeenCalledTimes(1)
    const s = streams[0]
    expect(s.body).toEqual({ message: '비밀번호 규정 알려줘', conversation_id: null, language: 'ko' })
    expect(wrapper.find(tid('user-message')).text()).toBe('비밀번호 규정 알려줘')
    expect(wrapper.find(tid('cancel-button')).exists()).toBe(true)
    expect(wrapper.find(tid('send-button')).exists()).toBe(false)

    s.event('status', { agent: 'orchestrator', stage: 'routing', message: '요청을 분석 중…', progress: null })
    await settle()
    let lines = wrapper.findAll(tid('progress-line'))
    expect(lines).toHaveLength(1)
    expect(lines[0].text()).toContain('오케스트레이터')
    expect(lines[0].text()).toContain('요청을 분석 중…')
    expect(lines[0].find(tid('progress-bar')).exists()).toBe(false)

    s.event('status', { agent: 'internal_rag', stage: 'search', message: '사내 문서 검색 중', progress: 0.4 })
    await settle()
    lines = wrapper.findAll(tid('progress-line'))
    expect(lines).toHaveLength(2)
    const bar = lines[1].get(tid('progress-bar'))
    expect(bar.attributes('aria-valuenow')).toBe('40')
    expect(bar.find('.fill').attributes('style')).toContain('width: 40%')

    // The fallback notice replaces that agent's line as soon as it arrives.
    s.event('status', { agent: 'internal_rag', stage: 'fallback', message: '📄 사내 문서에서 찾지 못했습니다. 웹에서 검색합니다...', progress: null })
    await settle()
    lines = wrapper.findAll(tid('progress-line'))
    expect(lines).toHaveLength(2)
    expect(lines[1].text()).toContain('사내 문서에서 찾지 못했습니다')
    expect(lines[1].find(tid('progress-bar')).exists()).toBe(false)
    expect(wrapper.find(tid('answer-message')).exists()).toBe(false)

    s.event('answer', ANSWER)
    s.event('done', {})
    s.close()
    await settle()

    expect(wrapper.findAll(tid('progress-line'))).toHaveLength(0)
    const answer = wrapper.get(tid('answer-message'))
    expect(answer.get('h2').text()).toBe('결과')
    expect(answer.get('strong').text()).toBe('12자 이상')
    expect(answer.get(tid('intent-badge')).text()).toBe('📄 사내 문서')
    const links = answer.findAll(tid('source-link'))
    expect(links).toHaveLength(2)
    expect(links[0].attributes('href')).toBe('/api/files/f1/download#page=13')
    expect(links[0].attributes('target')).toBe('_blank')
    expect(links[0].text()).toBe('보안정책.pdf')
    expect(answer.get(tid('source-pages')).text()).toBe('p.13–15')
    expect(links[1].attributes('href')).toBe('https://example.com/news')
    expect(links[1].text()).toBe('관련 기사')
    expect(wrapper.find(tid('send-button')).exists()).toBe(true)
    expect(localStorage.getItem(CONVERSATION_KEY)).toBe('conv-1')
    wrapper.unmount()
  })

  it('renders status and answer events that arrive in one chunk, progress first', async () => {
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    const seen = []
    await typeAndSend(wrapper, 'q')
    // Record every progress line Vue renders while the chunk is processed.
    const observer = new MutationObserver(() => {
      wrapper.findAll(tid('progress-message')).forEach((el) => seen.push(el.text()))
    })
    observer.observe(wrapper.element, { subtree: true, childList: true, characterData: true })
    streams[0].push(
      'event: status\ndata: {"agent":"orchestrator","stage":"s","message":"빠른 상태","progress":null}\n\n' +
        `event: answer\ndata: ${JSON.stringify(ANSWER)}\n\nevent: done\ndata: {}\n\n`,
    )
    await settle()
    observer.disconnect()
    expect(seen).toContain('빠른 상태')
    expect(wrapper.find(tid('answer-message')).exists()).toBe(true)
  })

  it('cancel aborts the request and shows a cancelled notice', async () => {
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, '긴 작업')
    streams[0].event('status', { agent: 'web_research', stage: 's', message: '웹 검색 중', progress: 0.1 })
    await settle()
    expect(streams[0].signal.aborted).toBe(false)

    await wrapper.get(tid('cancel-button')).trigger('click')
    await settle()
    expect(streams[0].signal.aborted).toBe(true)
    expect(wrapper.find(tid('cancelled-message')).text()).toBe('요청을 중지했습니다.')
    expect(wrapper.findAll(tid('progress-line'))).toHaveLength(0)
    expect(wrapper.find(tid('cancel-button')).exists()).toBe(false)
    expect(wrapper.find(tid('answer-message')).exists()).toBe(false)
  })

  it('Shift+Enter and IME composition do not send; Enter does', async () => {
    const { fetchMock } = setupChat()
    const wrapper = mount(ChatView)
    const input = wrapper.get(tid('chat-input'))
    await input.setValue('줄바꿈')
    await input.trigger('keydown', { key: 'Enter', shiftKey: true })
    await input.trigger('keydown', { key: 'Enter', isComposing: true })
    await input.trigger('keydown', { key: 'Enter', keyCode: 229 })
    await settle()
    expect(fetchMock).not.toHaveBeenCalled()
    await input.trigger('keydown', { key: 'Enter' })
    await settle()
    expect(fetchMock).toHaveBeenCalledTimes(1)
  })

  it('does not send empty messages', async () => {
    const { fetchMock } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, '   ')
    expect(fetchMock).not.toHaveBeenCalled()
    expect(wrapper.get(tid('send-button')).attributes('disabled')).toBeDefined()
  })

  it('shows error events and keeps the conversation id for follow-ups', async () => {
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, '첫 질문')
    streams[0].event('answer', { ...ANSWER, conversation_id: 'conv-9' })
    streams[0].event('done', {})
    streams[0].close()
    await settle()

    await typeAndSend(wrapper, '두 번째')
    expect(streams[1].body.conversation_id).toBe('conv-9')
    streams[1].event('error', { message: '에이전트 응답 시간 초과' })
    streams[1].event('done', {})
    streams[1].close()
    await settle()
    expect(wrapper.get(tid('error-message')).text()).toContain('에이전트 응답 시간 초과')
  })

  it('keeps the conversation id that comes with an error event', async () => {
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, '첫 질문')
    streams[0].event('error', { message: '시간 초과', conversation_id: 'conv-err' })
    streams[0].event('done', {})
    streams[0].close()
    await settle()
    expect(localStorage.getItem(CONVERSATION_KEY)).toBe('conv-err')
    await typeAndSend(wrapper, '다시')
    expect(streams[1].body.conversation_id).toBe('conv-err')
  })

  it('reports an HTTP error from /api/chat', async () => {
    mockFetch({ 'POST /api/chat': () => jsonResponse({ detail: '메시지가 너무 깁니다' }, 422) })
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, 'x')
    expect(wrapper.get(tid('error-message')).text()).toContain('메시지가 너무 깁니다')
    expect(wrapper.find(tid('send-button')).exists()).toBe(true)
  })

  it('sanitises answer markdown (no onerror survives)', async () => {
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, '<img src=x onerror=alert(1)>')
    // The user's own text is shown literally, not parsed as HTML.
    expect(wrapper.get(tid('user-message')).find('img').exists()).toBe(false)
    streams[0].event('answer', { ...ANSWER, text: '질문: <img src=x onerror=alert(1)> <script>alert(2)</script>' })
    streams[0].close()
    await settle()
    const body = wrapper.get(tid('answer-body'))
    expect(body.find('img').exists()).toBe(true)
    expect(body.find('img').attributes('onerror')).toBeUndefined()
    expect(body.find('script').exists()).toBe(false)
  })

  it('restores history from GET /api/chats/{id}; new chat clears it', async () => {
    localStorage.setItem(CONVERSATION_KEY, 'conv-7')
    const { streams } = setupChat({
      '/api/chats/conv-7': () =>
        jsonResponse({
          id: 'conv-7',
          messages: [
            { role: 'user', text: '이전 질문', intent: null, sources: [], created_at: '2025-01-01T00:00:00Z' },
            { role: 'assistant', text: '이전 **답변**', intent: 'WEB_SEARCH', sources: [{ type: 'web', url: 'https://e.com', title: 'E' }], created_at: '2025-01-01T00:00:01Z' },
          ],
        }),
    })
    const wrapper = mount(ChatView)
    await settle()
    expect(wrapper.get(tid('user-message')).text()).toBe('이전 질문')
    expect(wrapper.get(tid('answer-message')).get('strong').text()).toBe('답변')
    expect(wrapper.get(tid('intent-badge')).text()).toBe('🌐 웹')

    await wrapper.get(tid('new-chat-button')).trigger('click')
    expect(localStorage.getItem(CONVERSATION_KEY)).toBeNull()
    expect(wrapper.findAll(tid('user-message'))).toHaveLength(0)
    await typeAndSend(wrapper, '새 질문')
    expect(streams[0].body.conversation_id).toBeNull()
  })

  it('forgets a conversation id the hub no longer knows (404)', async () => {
    localStorage.setItem(CONVERSATION_KEY, 'gone')
    setupChat({ '/api/chats/gone': () => jsonResponse({ detail: 'not found' }, 404) })
    mount(ChatView)
    await settle()
    expect(localStorage.getItem(CONVERSATION_KEY)).toBeNull()
  })

  it('copies the answer markdown to the clipboard', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined)
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } })
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, 'q')
    streams[0].event('answer', ANSWER)
    streams[0].close()
    await settle()
    await wrapper.get(tid('copy-button')).trigger('click')
    await settle()
    expect(writeText).toHaveBeenCalledWith(ANSWER.text)
    expect(wrapper.get(tid('copy-button')).text()).toContain('복사됨')
  })

  it('copies file names where the answer holds hub download links', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined)
    vi.stubGlobal('navigator', { ...navigator, clipboard: { writeText } })
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, 'q')
    const text = '12자 이상입니다.\n\n**출처:**\n- **보안정책.pdf** (p.13–15)\n  파일 위치: /api/files/f1/download'
    streams[0].event('answer', { ...ANSWER, text })
    streams[0].close()
    await settle()
    await wrapper.get(tid('copy-button')).trigger('click')
    await settle()
    expect(writeText).toHaveBeenCalledWith('12자 이상입니다.\n\n**출처:**\n- **보안정책.pdf** (p.13–15)')
  })
})

describe('ChatView file events', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('emits files-changed after a FILE_OPERATION answer only', async () => {
    const { streams } = setupChat()
    const wrapper = mount(ChatView)
    await typeAndSend(wrapper, '파일 목록')
    streams[0].event('answer', { ...ANSWER, intent: 'DIRECT', steps: [] })
    streams[0].close()
    await settle()
    expect(wrapper.emitted('files-changed')).toBeUndefined()

    await typeAndSend(wrapper, '보고서 파일 삭제해줘')
    streams[1].event('answer', { ...ANSWER, intent: 'FILE_OPERATION', steps: [] })
    streams[1].close()
    await settle()
    expect(wrapper.emitted('files-changed')).toHaveLength(1)
  })
})
