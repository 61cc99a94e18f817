import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import App from '../../src/App.vue'
import DocumentViewer from '../../src/components/DocumentViewer.vue'
import SearchDashboard from '../../src/components/SearchDashboard.vue'
import AuditLog from '../../src/components/AuditLog.vue'
import { initLocale, setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

function hub() {
  mockFetch({
    '/api/me': () => jsonResponse({ kind: 'local', username: 'local', admin: false, teams: [] }),
    '/api/health': () => jsonResponse({ agents: {}, accounts: false }),
    '/api/files': () => jsonResponse([]),
    '/api/chats': () => jsonResponse([]),
  })
}

describe('the page structure', () => {
  let wrapper
  beforeEach(() => {
    localStorage.clear()
    initLocale()
    hub()
  })
  afterEach(() => {
    wrapper?.unmount()
    vi.unstubAllGlobals()
  })

  it('has exactly one h1', async () => {
    wrapper = mount(App, { attachTo: document.body })
    await settle()
    expect(document.querySelectorAll('h1')).toHaveLength(1)
    expect(document.querySelector('h1').textContent).toBe('Agent Hub')
  })

  it('starts with a skip link to the chat input, in the page language', async () => {
    wrapper = mount(App, { attachTo: document.body })
    await settle()
    const first = document.querySelector('a[href], button, input, select, textarea, [tabindex]')
    expect(first.dataset.testid).toBe('skip-link')
    expect(first.textContent.trim()).toBe('채팅 입력으로 건너뛰기')
    expect(first.getAttribute('href')).toBe('#chat-input')
    setLocale('en')
    await settle()
    expect(wrapper.get(tid('skip-link')).text()).toBe('Skip to the chat input')
  })

  it('the skip link focuses the chat input, showing the chat page first', async () => {
    wrapper = mount(App, { attachTo: document.body })
    await settle()
    await wrapper.get(tid('nav-dashboard')).trigger('click')
    await settle()
    expect(wrapper.get(tid('chat-input')).element.closest('section').style.display).toBe('none')
    await wrapper.get(tid('skip-link')).trigger('click')
    await settle()
    expect(wrapper.get(tid('nav-chat')).attributes('aria-current')).toBe('page')
    expect(document.activeElement).toBe(wrapper.get(tid('chat-input')).element)
  })
})

describe('what is only shown is also said', () => {
  beforeEach(() => setLocale('ko'))
  afterEach(() => {
    vi.unstubAllGlobals()
    document.body.innerHTML = ''
  })

  it('the cited passage in the viewer is introduced and closed in words around its mark', async () => {
    mockFetch({
      '/api/files/f1': () => jsonResponse({ id: 'f1', content_type: 'text/plain' }),
      '/api/files/f1/passages': () => jsonResponse({ passages: [
        { text: '다른 문단', location: { kind: 'section', section: '1' } },
        { text: '출장비는 귀국 후 30일 안에 청구합니다.', location: { kind: 'section', section: '2' } },
      ] }),
    })
    const quote = { text: '30일 안에 청구합니다', file_id: 'f1', file_name: '출장.txt', location: { kind: 'section', section: '2' } }
    const wrapper = mount(DocumentViewer, { attachTo: document.body, props: { quote } })
    await settle()
    const cited = wrapper.get(tid('viewer-cited-passage'))
    expect(cited.get('mark').text()).toBe('30일 안에 청구합니다') // the highlight holds the quote only
    const label = cited.get(tid('viewer-quoted-label'))
    expect(label.classes()).toContain('visually-hidden')
    expect(label.element.nextElementSibling.tagName).toBe('MARK')
    expect(cited.text()).toBe('출장비는 귀국 후 인용된 부분: 30일 안에 청구합니다 (인용 끝).')
    const body = wrapper.get(tid('viewer-body'))
    expect(body.attributes('tabindex')).toBe('0')
    expect(body.attributes('aria-label')).toBe('문서 내용')
    wrapper.unmount()
  })

  it('a table that scrolls sideways is reachable by keyboard and named', async () => {
    mockFetch({
      '/api/search/telemetry': () => jsonResponse({ providers: [], series: [], recent: [] }),
      '/api/audit': () => jsonResponse({ entries: [], totals: {} }),
    })
    const dashboard = mount(SearchDashboard)
    const audit = mount(AuditLog)
    await settle()
    const wraps = [...dashboard.findAll('.table-wrap'), ...audit.findAll('.table-wrap')]
    expect(wraps.map((w) => [w.attributes('tabindex'), w.attributes('role'), w.attributes('aria-label')])).toEqual([
      ['0', 'region', '제공자별 요약'],
      ['0', 'region', '용도별 요약'],
      ['0', 'region', '최근 검색'],
      ['0', 'region', '답변 감사 기록'],
    ])
    dashboard.unmount()
    audit.unmount()
  })
})
