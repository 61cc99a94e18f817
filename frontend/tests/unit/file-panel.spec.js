import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import FilePanel from '../../src/components/FilePanel.vue'
import { setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

class FakeXHR {
  static instances = []
  constructor() {
    this.upload = {}
    this.headers = {}
    this.status = 0
    this.responseText = ''
    FakeXHR.instances.push(this)
  }
  open(method, url) {
    this.method = method
    this.url = url
  }
  setRequestHeader(k, v) {
    this.headers[k] = v
  }
  send(body) {
    this.body = body
  }
  abort() {
    this.onabort?.()
  }
  progress(loaded, total) {
    this.upload.onprogress?.({ lengthComputable: true, loaded, total })
  }
  respond(status, body, headers = {}) {
    this.status = status
    this.responseText = body == null ? '' : JSON.stringify(body)
    this.responseHeaders = headers
    this.onload?.()
  }
  getResponseHeader(name) {
    return this.responseHeaders?.[name] ?? null
  }
}

const record = (over = {}) => ({
  id: 'f1',
  name: '보안정책.pdf',
  size: 204800,
  content_type: 'application/pdf',
  sha256: 'abc',
  uploaded_at: '2025-03-01T09:00:00Z',
  index_status: 'indexing',
  index_error: null,
  chunks: null,
  ...over,
})

function pickFiles(wrapper, files) {
  const input = wrapper.get(tid('upload-input'))
  Object.defineProperty(input.element, 'files', { value: files, configurable: true })
  return input.trigger('change')
}

describe('FilePanel', () => {
  beforeEach(() => {
    FakeXHR.instances = []
    vi.stubGlobal('XMLHttpRequest', FakeXHR)
    setLocale('ko')
  })
  afterEach(() => {
    vi.unstubAllGlobals()
  })

  it('uploads with a live progress bar, then polls until the file is indexed', async () => {
    const lists = [[], [record()], [record()], [record({ index_status: 'indexed', chunks: 42 })]]
    let listCalls = 0
    mockFetch({ '/api/files': () => jsonResponse(lists[Math.min(listCalls++, lists.length - 1)]) })
    const wrapper = mount(FilePanel, { props: { pollInterval: 20, doneLinger: 60000 } })
    await settle()
    expect(wrapper.findAll(tid('file-row'))).toHaveLength(0)

    const file = new File(['%PDF-1.4 test'], '보안정책.pdf', { type: 'application/pdf' })
    await pickFiles(wrapper, [file])
    expect(FakeXHR.instances).toHaveLength(1)
    const xhr = FakeXHR.instances[0]
    expect(xhr.method).toBe('POST')
    expect(xhr.url).toBe('/api/files')
    expect(xhr.body).toBeInstanceOf(FormData)
    expect(xhr.body.get('file').name).toBe('보안정책.pdf')

    const bar = () => wrapper.get(tid('upload-progress'))
    expect(bar().attributes('aria-valuenow')).toBe('0')
    xhr.progress(30, 120)
    await settle()
    expect(bar().attributes('aria-valuenow')).toBe('25')
    expect(bar().find('.fill').attributes('style')).toContain('width: 25%')
    expect(wrapper.get(tid('upload-item')).text()).toContain('25%')

    xhr.respond(201, record())
    await settle()
    expect(bar().attributes('aria-valuenow')).toBe('100')
    expect(wrapper.get(tid('upload-item')).attributes('data-state')).toBe('done')
    const row = () => wrapper.get(`${tid('file-row')}[data-file-id="f1"]`)
    expect(row().get(tid('file-status')).attributes('data-status')).toBe('indexing')
    expect(row().get(tid('file-status')).text()).toBe('색인 중')

    await vi.waitFor(() => expect(row().get(tid('file-status')).attributes('data-status')).toBe('indexed'), { timeout: 2000 })
    expect(row().get(tid('file-status')).text()).toBe('색인 완료')
    expect(row().text()).toContain('조각 42개')
    expect(row().text()).not.toContain('청크')

    // Polling stops once nothing is indexing.
    const calls = listCalls
    await new Promise((r) => setTimeout(r, 120))
    expect(listCalls).toBe(calls)
    wrapper.unmount()
  })

  it('shows the server detail when an upload is rejected as too large', async () => {
    mockFetch({ '/api/files': () => jsonResponse([]) })
    const wrapper = mount(FilePanel)
    await settle()
    await pickFiles(wrapper, [new File(['x'], 'huge.pdf')])
    FakeXHR.instances[0].respond(413, { detail: '파일이 너무 큽니다 (최대 50MB)' })
    await settle()
    const item = wrapper.get(tid('upload-item'))
    expect(item.attributes('data-state')).toBe('error')
    expect(item.get(tid('upload-error')).text()).toContain('파일이 너무 큽니다 (최대 50MB)')
    expect(wrapper.findAll(tid('file-row'))).toHaveLength(0)
  })

  it('says a refusal the server names in the reader\'s language, never its English text', async () => {
    mockFetch({ '/api/files': () => jsonResponse([]) })
    const wrapper = mount(FilePanel)
    await settle()
    await pickFiles(wrapper, [new File([''], 'empty.txt')])
    FakeXHR.instances[0].respond(400, { detail: 'the file is empty' }, { 'X-Hub-Error': 'empty_file' })
    await settle()
    const error = wrapper.get(tid('upload-error')).text()
    expect(error).toContain('빈 파일입니다. 내용이 있는 파일을 올려 주세요.')
    expect(error).not.toContain('the file is empty')

    setLocale('en')
    await pickFiles(wrapper, [new File(['x'], 'scan.pdf')])
    FakeXHR.instances[1].respond(502, { detail: 'the file-management agent is unreachable at http://127.0.0.1:10013' })
    await settle()
    const errors = wrapper.findAll(tid('upload-error'))
    expect(errors[1].text()).toContain('The file service cannot be reached. Please try again shortly.')
    expect(errors[1].text()).not.toContain('127.0.0.1')
    setLocale('ko')
    wrapper.unmount()
  })

  it('formats FastAPI validation errors (422)', async () => {
    mockFetch({ '/api/files': () => jsonResponse([]) })
    const wrapper = mount(FilePanel)
    await settle()
    await pickFiles(wrapper, [new File(['x'], 'a.exe')])
    FakeXHR.instances[0].respond(422, { detail: [{ loc: ['body', 'file'], msg: 'Field required' }] })
    await settle()
    expect(wrapper.get(tid('upload-error')).text()).toContain('Field required')
  })

  it('uploads files dropped on the drop zone', async () => {
    mockFetch({ '/api/files': () => jsonResponse([]) })
    const wrapper = mount(FilePanel)
    await settle()
    const files = [new File(['a'], 'a.pdf'), new File(['b'], 'b.docx')]
    const ev = new Event('drop', { bubbles: true, cancelable: true })
    ev.dataTransfer = { files, types: ['Files'] }
    wrapper.get(tid('dropzone')).element.dispatchEvent(ev)
    await settle()
    expect(FakeXHR.instances.map((x) => x.body.get('file').name)).toEqual(['a.pdf', 'b.docx'])
    expect(wrapper.findAll(tid('upload-item'))).toHaveLength(2)
  })

  it('shows the reason for skipped and failed files', async () => {
    mockFetch({
      '/api/files': () =>
        jsonResponse([
          record({ id: 'a', name: 'scan.pdf', index_status: 'error', index_error: 'PDF 파싱 실패' }),
          record({ id: 'b', name: 'photo.bin', index_status: 'skipped', index_error: '지원하지 않는 형식' }),
        ]),
    })
    const wrapper = mount(FilePanel)
    await settle()
    const a = wrapper.get(`${tid('file-row')}[data-file-id="a"]`)
    expect(a.get(tid('file-status')).text()).toBe('오류')
    expect(a.get(tid('file-status-reason')).text()).toBe('PDF 파싱 실패')
    const b = wrapper.get(`${tid('file-row')}[data-file-id="b"]`)
    expect(b.get(tid('file-status')).text()).toBe('건너뜀')
    expect(b.get(tid('file-status-reason')).text()).toBe('지원하지 않는 형식')
  })

  it('shows why a file still indexing waits, and keeps polling it', async () => {
    const waiting = '문서 검색 에이전트에 연결할 수 없어 다시 시도합니다.'
    const fetchMock = mockFetch({
      '/api/files': () => jsonResponse([record({ id: 'w', index_status: 'indexing', index_error: waiting })]),
    })
    const wrapper = mount(FilePanel, { props: { pollInterval: 10 } })
    await settle()
    const row = wrapper.get(`${tid('file-row')}[data-file-id="w"]`)
    expect(row.get(tid('file-status')).text()).toBe('색인 중')
    expect(row.get(tid('file-status-reason')).text()).toBe(waiting)
    const listed = () => fetchMock.mock.calls.filter(([url]) => String(url).endsWith('/api/files')).length
    await vi.waitFor(() => expect(listed()).toBeGreaterThan(1), { timeout: 5000 })
    wrapper.unmount()
  })

  it('deletes a file only after confirmation', async () => {
    const fetchMock = mockFetch({
      '/api/files': () => jsonResponse([record({ index_status: 'indexed', chunks: 3 })]),
      'DELETE /api/files/f1': () => new Response(null, { status: 204 }),
    })
    const wrapper = mount(FilePanel, { attachTo: document.body })
    await settle()
    const deletes = () => fetchMock.mock.calls.filter(([, init]) => init?.method === 'DELETE')

    await wrapper.get(tid('file-delete')).trigger('click')
    expect(wrapper.get(tid('confirm-dialog')).text()).toContain('보안정책.pdf')
    await wrapper.get(tid('confirm-cancel')).trigger('click')
    expect(wrapper.find(tid('confirm-dialog')).exists()).toBe(false)
    expect(deletes()).toHaveLength(0)
    expect(wrapper.findAll(tid('file-row'))).toHaveLength(1)

    await wrapper.get(tid('file-delete')).trigger('click')
    await wrapper.get(tid('confirm-ok')).trigger('click')
    await settle()
    expect(deletes()).toHaveLength(1)
    expect(deletes()[0][0]).toBe('/api/files/f1')
    expect(wrapper.findAll(tid('file-row'))).toHaveLength(0)
    wrapper.unmount()
  })

  it('a signed-in person chooses who sees an upload, sent before the file, and re-shares their own files', async () => {
    const me = { kind: 'user', id: 'u1', username: 'kim', admin: false, teams: ['영업'] }
    const mine = record({ index_status: 'indexed', chunks: 3, owner_id: 'u1', visibility: 'private' })
    const theirs = record({ id: 'f2', name: '공유.pdf', index_status: 'indexed', owner_id: 'u2', visibility: 'everyone' })
    const fetchMock = mockFetch({
      '/api/me': () => jsonResponse(me),
      '/api/files': () => jsonResponse([mine, theirs]),
      'PATCH /api/files/f1': (url, init) => jsonResponse({ ...mine, visibility: JSON.parse(init.body).visibility }),
    })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000, doneLinger: 60000 } })
    await settle()
    const choice = wrapper.get(tid('upload-visibility'))
    expect(choice.findAll('option').map((o) => o.element.value)).toEqual(['private', 'team:영업', 'everyone'])
    await choice.setValue('team:영업')
    await pickFiles(wrapper, [new File(['x'], 'plan.txt', { type: 'text/plain' })])
    const form = FakeXHR.instances[0].body
    expect([...form.keys()]).toEqual(['visibility', 'file'])
    expect(form.get('visibility')).toBe('team:영업')

    // Only the owner's own file offers a choice; another person's shared file does not.
    const selects = wrapper.findAll(tid('file-visibility'))
    expect(selects).toHaveLength(1)
    await selects[0].setValue('everyone')
    await settle()
    const patch = fetchMock.mock.calls.find(([u, i]) => u === '/api/files/f1' && i?.method === 'PATCH')
    expect(JSON.parse(patch[1].body)).toEqual({ visibility: 'everyone' })
    wrapper.unmount()
  })

  it('offers no visibility choice without a signed-in person', async () => {
    mockFetch({ '/api/me': () => jsonResponse({ kind: 'local', id: null, username: 'local', admin: true, teams: [] }),
                '/api/files': () => jsonResponse([]) })
    const wrapper = mount(FilePanel, { props: { pollInterval: 60000 } })
    await settle()
    expect(wrapper.find(tid('upload-visibility')).exists()).toBe(false)
    await pickFiles(wrapper, [new File(['x'], 'a.txt', { type: 'text/plain' })])
    expect([...FakeXHR.instances[0].body.keys()]).toEqual(['file'])
    wrapper.unmount()
  })
})
