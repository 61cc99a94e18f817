import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import FilePanel from '../../src/components/FilePanel.vue'
import MessageItem from '../../src/components/MessageItem.vue'
import { setLocale } from '../../src/i18n.js'
import { announcements, clearAnnouncements } from '../../src/lib/announce.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

const report = (over = {}) => ({
  id: 'r1',
  name: '출장비 보고서.md',
  size: 2048,
  content_type: 'text/markdown',
  uploaded_at: '2025-03-01T09:00:00Z',
  index_status: 'not_indexed',
  index_error: null,
  chunks: 0,
  source_kind: 'report',
  owner_id: 'u1',
  visibility: 'private',
  alternates: [{ format: 'docx', name: '출장비 보고서.docx', size: 9000, download_url: '/api/files/r1/download?format=docx' }],
  ...over,
})

function problem(status, code) {
  return new Response(JSON.stringify({ detail: 'refused' }), {
    status,
    headers: { 'Content-Type': 'application/json', 'X-Hub-Error': code },
  })
}

describe('a report in the file panel', () => {
  beforeEach(() => {
    setLocale('ko')
    clearAnnouncements()
  })
  afterEach(() => vi.unstubAllGlobals())

  it('is one entry with a download link per format', async () => {
    mockFetch({ '/api/files': () => jsonResponse([report()]) })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000 } })
    await settle()
    const rows = wrapper.findAll(tid('file-row'))
    expect(rows).toHaveLength(1)
    const links = rows[0].findAll(tid('file-format-link'))
    expect(links.map((a) => [a.attributes('data-format'), a.text(), a.attributes('href')])).toEqual([
      ['md', 'MD', '/api/files/r1/download?disposition=attachment'],
      ['docx', 'DOCX', '/api/files/r1/download?format=docx&disposition=attachment'],
    ])
    expect(links[1].attributes('aria-label')).toBe('DOCX 내려받기: 출장비 보고서.md')
    expect(rows[0].get(tid('file-status')).text()).toBe('문서에 추가 전')
    expect(rows[0].get(tid('file-status-reason')).text()).toBe('문서에 추가하면 질문에 답할 때 이 파일도 찾아봅니다.')
  })

  it('"문서에 추가" starts indexing it, and the panel follows it until it is indexed', async () => {
    let listed = [report()]
    const fetchMock = mockFetch({
      '/api/files': () => jsonResponse(listed),
      'POST /api/files/r1/index': () => {
        listed = [report({ index_status: 'indexed', chunks: 4 })]
        return jsonResponse(report({ index_status: 'indexing' }), 202)
      },
    })
    const wrapper = mount(FilePanel, { props: { pollInterval: 10 } })
    await settle()
    const button = wrapper.get(tid('file-add-to-documents'))
    expect(button.text()).toBe('문서에 추가')
    await button.trigger('click')
    await settle()
    expect(fetchMock.mock.calls.some(([u, i]) => u === '/api/files/r1/index' && i?.method === 'POST')).toBe(true)
    await vi.waitFor(() => expect(wrapper.get(tid('file-status')).attributes('data-status')).toBe('indexed'))
    expect(wrapper.find(tid('file-add-to-documents')).exists()).toBe(false)
    expect(announcements.value.map((a) => a.text)).toEqual(
      expect.arrayContaining(['출장비 보고서.md: 색인을 시작했습니다.', '출장비 보고서.md: 색인 완료']),
    )
    wrapper.unmount()
  })

  it('says in words why a file could not be added', async () => {
    mockFetch({
      '/api/files': () => jsonResponse([report()]),
      'POST /api/files/r1/index': () => problem(409, 'already_indexed'),
    })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000 } })
    await settle()
    await wrapper.get(tid('file-add-to-documents')).trigger('click')
    await settle()
    expect(wrapper.get(tid('file-action-error')).text()).toBe('이미 문서에 추가된 파일입니다.')
  })

  it('offers "다시 색인" for a failed file, and nothing to another person\'s file', async () => {
    const me = { kind: 'user', id: 'u1', username: 'kim', admin: false, teams: [] }
    const failed = report({ id: 'e1', name: 'scan.pdf', index_status: 'error', index_error: '암호가 걸린 파일이라 읽을 수 없습니다.', alternates: [] })
    const theirs = report({ id: 'e2', name: 'their.pdf', index_status: 'error', index_error: 'x', owner_id: 'u2', visibility: 'everyone', alternates: [] })
    const fetchMock = mockFetch({
      '/api/me': () => jsonResponse(me),
      '/api/files': () => jsonResponse([failed, theirs]),
      'POST /api/files/e1/index': () => jsonResponse({ ...failed, index_status: 'indexing', index_error: null }, 202),
    })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000 } })
    await settle()
    const buttons = wrapper.findAll(tid('file-reindex'))
    expect(buttons).toHaveLength(1)
    expect(buttons[0].text()).toBe('다시 색인')
    expect(buttons[0].attributes('aria-label')).toBe('다시 색인: scan.pdf')
    await buttons[0].trigger('click')
    await settle()
    expect(fetchMock.mock.calls.filter(([u, i]) => u === '/api/files/e1/index' && i?.method === 'POST')).toHaveLength(1)
    const row = wrapper.get(`${tid('file-row')}[data-file-id="e1"]`)
    expect(row.get(tid('file-status')).attributes('data-status')).toBe('indexing')
    wrapper.unmount()
  })

  it('speaks English when asked', async () => {
    setLocale('en')
    mockFetch({ '/api/files': () => jsonResponse([report()]) })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000 } })
    await settle()
    expect(wrapper.get(tid('file-add-to-documents')).text()).toBe('Add to documents')
    expect(wrapper.get(tid('file-status')).text()).toBe('Not in documents')
    setLocale('ko')
  })
})

describe('the file list meta line', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('has each item in its own box and no text separator that could start a wrapped line', async () => {
    setLocale('ko')
    mockFetch({
      '/api/files': () => jsonResponse([report({ index_status: 'indexed', chunks: 115, alternates: [] })]),
    })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000 } })
    await settle()
    const items = wrapper.get(tid('file-meta')).findAll('.meta-item')
    expect(items).toHaveLength(3)
    expect(items[2].text()).toBe('조각 115개')
    for (const item of items) expect(item.text()).not.toMatch(/^[·•|,]/)
    expect(wrapper.get(tid('file-meta')).text()).not.toContain('·')
  })
})

describe("a report's chat reply", () => {
  beforeEach(() => {
    setLocale('ko')
    clearAnnouncements()
  })
  afterEach(() => vi.unstubAllGlobals())

  const reply = (over = {}) => ({
    id: 'm1',
    role: 'assistant',
    kind: 'answer',
    text: '## 출장비\n\n요약\n\n📄 다운로드: [출장비.md](/api/files/r1/download) · [출장비.docx](/api/files/r1/download?format=docx)',
    steps: [{ agent: 'internal_rag', status: 'ok' }, { agent: 'report_writing', status: 'ok' }],
    sources: [],
    ...over,
  })

  it('adds the report to the documents once, and tells the file panel', async () => {
    const fetchMock = mockFetch({ 'POST /api/files/r1/index': () => jsonResponse(report({ index_status: 'indexing' }), 202) })
    const changed = vi.fn()
    window.addEventListener('hub:files-changed', changed)
    const wrapper = mount(MessageItem, { props: { message: reply() } })
    const buttons = wrapper.findAll(tid('answer-add-to-documents'))
    expect(buttons).toHaveLength(1) // one record, though two links
    expect(buttons[0].attributes('data-file-id')).toBe('r1')
    expect(buttons[0].text()).toBe('보고서를 문서에 추가')
    await buttons[0].trigger('click')
    await settle()
    expect(fetchMock.mock.calls.filter(([, init]) => init?.method === 'POST')).toHaveLength(1)
    expect(wrapper.get(tid('answer-add-to-documents-done')).text()).toContain('문서에 추가했습니다.')
    expect(wrapper.find(tid('answer-add-to-documents')).exists()).toBe(false)
    expect(changed).toHaveBeenCalledTimes(1)
    window.removeEventListener('hub:files-changed', changed)
  })

  it('says when it is in the documents already, and why it failed otherwise', async () => {
    mockFetch({ 'POST /api/files/r1/index': () => problem(409, 'already_indexed') })
    const wrapper = mount(MessageItem, { props: { message: reply() } })
    await wrapper.get(tid('answer-add-to-documents')).trigger('click')
    await settle()
    expect(wrapper.get(tid('answer-add-to-documents-done')).text()).toContain('이미 문서에 추가되어 있습니다.')

    mockFetch({ 'POST /api/files/r1/index': () => problem(403, 'forbidden') })
    const other = mount(MessageItem, { props: { message: reply({ id: 'm2' }) } })
    await other.get(tid('answer-add-to-documents')).trigger('click')
    await settle()
    expect(other.get(tid('answer-add-to-documents-error')).text()).toBe('이 파일을 바꿀 권한이 없습니다.')
    expect(other.find(tid('answer-add-to-documents')).exists()).toBe(true) // may be tried again
  })

  it('offers nothing on an answer that is not a report', () => {
    const wrapper = mount(MessageItem, {
      props: { message: reply({ steps: [{ agent: 'file_management', status: 'ok' }] }) },
    })
    expect(wrapper.find(tid('answer-report-actions')).exists()).toBe(false)
  })
})
