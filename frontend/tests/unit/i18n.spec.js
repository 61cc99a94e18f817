import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import App from '../../src/App.vue'
import { LOCALE_KEY, initLocale, intentLabel, locale, messages, setLocale, stepStatusLabel, t } from '../../src/i18n.js'
import { controlledStream, jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

describe('i18n', () => {
  beforeEach(() => {
    localStorage.clear()
    initLocale()
  })
  afterEach(() => vi.unstubAllGlobals())

  it('defaults to Korean', () => {
    expect(locale.value).toBe('ko')
    expect(t('chat.send')).toBe('전송')
    expect(intentLabel('HYBRID')).toBe('🔀 문서 + 웹')
  })

  it('has no English words in Korean text, outside names, formats, units and key names', () => {
    const NAMES = new Set(['Agent', 'Hub', 'AI', 'LLM', 'OCR', 'SSO', 'English', 'Enter', 'Shift', 'PDF', 'Word',
      'Excel', 'HWP', 'HWPX', 'DOCX', 'PPTX', 'XLSX', 'CSV', 'HTML', 'TXT', 'MD', 'USD', 'ms'])
    const latin = Object.entries(messages.ko).flatMap(([key, text]) =>
      (text.replace(/\{\w+\}/g, '').match(/(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_]*/g) || [])
        .filter((w) => w.length > 1 && !NAMES.has(w)).map((w) => `${key}: ${w}`))
    expect(latin).toEqual([])
  })

  it('switches to English, persists the choice and restores it', () => {
    setLocale('en')
    expect(t('chat.send')).toBe('Send')
    expect(intentLabel('WEB_SEARCH')).toBe('🌐 Web')
    expect(localStorage.getItem(LOCALE_KEY)).toBe('en')
    expect(document.documentElement.lang).toBe('en')
    locale.value = 'ko'
    expect(initLocale()).toBe('en')
  })

  it('ignores unsupported locales and interpolates parameters', () => {
    setLocale('fr')
    expect(locale.value).toBe('ko')
    expect(t('files.chunks', { n: 7 })).toBe('조각 7개')
    expect(t('no.such.key')).toBe('no.such.key')
  })

  it('names a plan step status in words, falling back to the status itself', () => {
    expect(stepStatusLabel('ok')).toBe('완료')
    expect(stepStatusLabel('unavailable')).toBe('연결 안 됨')
    expect(stepStatusLabel('someday')).toBe('someday')
    setLocale('en')
    expect(stepStatusLabel('timeout')).toBe('timed out')
  })

  it('has the same keys in both languages', () => {
    expect(Object.keys(messages.en).sort()).toEqual(Object.keys(messages.ko).sort())
  })

  it('re-renders the app and sends the chosen language with chats', async () => {
    const bodies = []
    mockFetch({
      '/api/files': () => jsonResponse([]),
      '/api/health': () => jsonResponse({ agents: { orchestrator: { url: 'x', ok: true } }, database: { ok: true }, llm: { mode: 'offline' } }),
      'POST /api/chat': (url, init) => {
        bodies.push(JSON.parse(init.body))
        const s = controlledStream(init.signal)
        s.close()
        return new Response(s.stream, { status: 200 })
      },
    })
    const wrapper = mount(App)
    await settle()
    expect(wrapper.get(tid('send-button')).text()).toContain('전송')
    expect(wrapper.get(tid('nav-dashboard')).text()).toContain('검색 대시보드')

    await wrapper.get(tid('lang-en')).trigger('click')
    expect(wrapper.get(tid('send-button')).text()).toContain('Send')
    expect(wrapper.get(tid('nav-dashboard')).text()).toContain('Search dashboard')
    expect(wrapper.get(tid('chat-input')).attributes('placeholder')).toBe('Ask anything…')
    expect(localStorage.getItem(LOCALE_KEY)).toBe('en')

    await wrapper.get(tid('chat-input')).setValue('hello')
    await wrapper.get(tid('chat-input')).trigger('keydown', { key: 'Enter' })
    await settle()
    expect(bodies).toEqual([{ message: 'hello', conversation_id: null, language: 'en' }])
    wrapper.unmount()
  })
})
