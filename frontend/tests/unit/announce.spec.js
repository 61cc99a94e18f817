import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import ChatView from '../../src/components/ChatView.vue'
import FilePanel from '../../src/components/FilePanel.vue'
import LiveAnnouncer from '../../src/components/LiveAnnouncer.vue'
import { ANNOUNCE_LINGER_MS, announce, announcements, clearAnnouncements } from '../../src/lib/announce.js'
import { setLocale } from '../../src/i18n.js'
import { controlledStream, jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`
const said = () => announcements.value.map((a) => a.text)

describe('announce', () => {
  beforeEach(() => clearAnnouncements())
  afterEach(() => vi.useRealTimers())

  it('adds each announcement to one polite status region and removes it after a while', async () => {
    vi.useFakeTimers()
    const region = mount(LiveAnnouncer)
    expect(region.attributes('role')).toBe('status')
    expect(region.attributes('aria-live')).toBe('polite')
    expect(region.classes()).toContain('visually-hidden')
    announce('업로드 실패')
    announce('업로드 실패') // the same text twice in a row is read twice
    announce('  ')
    await region.vm.$nextTick()
    expect(region.findAll('p').map((p) => p.text())).toEqual(['업로드 실패', '업로드 실패'])
    vi.advanceTimersByTime(ANNOUNCE_LINGER_MS)
    await region.vm.$nextTick()
    expect(region.findAll('p')).toHaveLength(0)
    region.unmount()
  })
})

describe('the chat announces', () => {
  beforeEach(() => {
    localStorage.clear()
    setLocale('ko')
    clearAnnouncements()
  })
  afterEach(() => vi.unstubAllGlobals())

  it('an answer once, when it is complete, not each streamed piece; the message list is no live region', async () => {
    const streams = []
    mockFetch({
      'POST /api/chat': (url, init) => {
        const s = controlledStream(init.signal)
        streams.push(s)
        return new Response(s.stream, { status: 200, headers: { 'Content-Type': 'text/event-stream' } })
      },
    })
    const wrapper = mount(ChatView, { attachTo: document.body })
    const list = wrapper.get(tid('message-list'))
    expect(list.attributes('aria-live')).toBeUndefined()
    expect(list.attributes('aria-label')).toBe('대화 내용')
    expect(list.attributes('tabindex')).toBe('0')

    await wrapper.get(tid('chat-input')).setValue('출장비 규정?')
    await wrapper.get(tid('chat-input')).trigger('keydown', { key: 'Enter' })
    await settle()
    expect(said()).toEqual(['처리 중…'])
    expect(wrapper.find('[aria-live]').exists()).toBe(false) // progress lines are not read on each change
    const s = streams[0]
    s.event('status', { agent: 'internal_rag', stage: 'search', message: '문서 검색 중' })
    s.event('delta', { text: '출장비는 ' })
    s.event('delta', { text: '30일 안에 청구합니다.' })
    await settle()
    expect(said()).toEqual(['처리 중…'])
    s.event('answer', { text: '출장비는 30일 안에 청구합니다.', sources: [{ type: 'file', file_id: 'f', file_name: 'a.pdf' }] })
    s.event('done', {})
    s.close()
    await settle()
    expect(said()).toEqual(['처리 중…', '답변이 완료되었습니다. 출처 1개.'])
    wrapper.unmount()
  })

  it('a stopped request', async () => {
    mockFetch({
      'POST /api/chat': (url, init) => new Response(controlledStream(init.signal).stream, { status: 200 }),
    })
    setLocale('en')
    const wrapper = mount(ChatView, { attachTo: document.body })
    await wrapper.get(tid('chat-input')).setValue('q')
    await wrapper.get(tid('chat-input')).trigger('keydown', { key: 'Enter' })
    await settle()
    await wrapper.get(tid('cancel-button')).trigger('click')
    await settle()
    expect(said()).toEqual(['Working…', 'Request stopped.'])
    wrapper.unmount()
  })
})

class FakeXHR {
  static instances = []
  constructor() {
    this.upload = {}
    FakeXHR.instances.push(this)
  }
  open() {}
  setRequestHeader() {}
  send() {}
  abort() {}
  respond(status, body, headers = {}) {
    this.status = status
    this.responseText = JSON.stringify(body)
    this.responseHeaders = headers
    this.onload?.()
  }
  getResponseHeader(name) {
    return this.responseHeaders?.[name] ?? null
  }
}

const file = (over = {}) => ({ id: 'f1', name: '보안정책.pdf', size: 10, uploaded_at: '2025-03-01T09:00:00Z',
  index_status: 'indexing', index_error: null, chunks: null, ...over })

function pickFiles(wrapper, files) {
  const input = wrapper.get(tid('upload-input'))
  Object.defineProperty(input.element, 'files', { value: files, configurable: true })
  return input.trigger('change')
}

describe('the file panel announces', () => {
  beforeEach(() => {
    FakeXHR.instances = []
    vi.stubGlobal('XMLHttpRequest', FakeXHR)
    setLocale('ko')
    clearAnnouncements()
  })
  afterEach(() => vi.unstubAllGlobals())

  it('a failed upload, with its reason in words', async () => {
    mockFetch({ '/api/files': () => jsonResponse([]) })
    const wrapper = mount(FilePanel)
    await settle()
    await pickFiles(wrapper, [new File([''], '빈파일.txt')])
    FakeXHR.instances[0].respond(400, { detail: 'the file is empty' }, { 'X-Hub-Error': 'empty_file' })
    await settle()
    const reason = wrapper.get(tid('upload-error')).find('span').text()
    expect(said()).toEqual([`빈파일.txt 업로드 실패: ${reason}`])
    expect(said()[0]).not.toContain('the file is empty')
    wrapper.unmount()
  })

  it('"색인 완료" once when an uploaded file is indexed, and an indexing error', async () => {
    const lists = [[], [file(), file({ id: 'f2', name: 'b.hwp' })], [file({ index_status: 'indexed', chunks: 3 }),
      file({ id: 'f2', name: 'b.hwp', index_status: 'error', index_error: 'x' })]]
    let calls = 0
    mockFetch({ '/api/files': () => jsonResponse(lists[Math.min(calls++, lists.length - 1)]) })
    const wrapper = mount(FilePanel, { props: { pollInterval: 10, doneLinger: 60000 } })
    await settle()
    await pickFiles(wrapper, [new File(['x'], '보안정책.pdf')])
    FakeXHR.instances[0].respond(201, file())
    await settle()
    expect(said()).toEqual([])
    await new Promise((resolve) => setTimeout(resolve, 60))
    await settle()
    expect(said()).toEqual(['보안정책.pdf: 색인 완료', 'b.hwp: 오류'])
    await wrapper.vm.refresh()
    await settle()
    expect(said()).toHaveLength(2) // not again on the next refresh
    wrapper.unmount()
  })

  it('a file that was already indexed when it came back from the upload', async () => {
    mockFetch({ '/api/files': () => jsonResponse([file({ id: 'old', index_status: 'indexed' })]) })
    const wrapper = mount(FilePanel, { props: { doneLinger: 60000 } })
    await settle()
    expect(said()).toEqual([]) // files indexed before are not announced
    await pickFiles(wrapper, [new File(['x'], 'a.txt')])
    FakeXHR.instances[0].respond(201, file({ id: 'n', name: 'a.txt', index_status: 'indexed', chunks: 1 }))
    await settle()
    expect(said()).toEqual(['a.txt: 색인 완료'])
    wrapper.unmount()
  })
})
