import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import HealthDots from '../../src/components/HealthDots.vue'
import { setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const HEALTH = {
  agents: {
    orchestrator: { url: 'http://127.0.0.1:10010', ok: true, state: 'ok', restarts: 0 },
    internal_rag: { url: 'http://127.0.0.1:10012', ok: false, state: 'restarting', restarts: 2 },
    web_research: { url: 'http://127.0.0.1:10011', ok: false, state: 'down', restarts: 0 },
  },
  database: { ok: true, state: 'ok', restarts: 0 },
  llm: { mode: 'offline', model: 'local-engine' },
}

const dot = (wrapper, agent) => wrapper.get(`[data-testid="health-dot"][data-agent="${agent}"]`)

describe('HealthDots', () => {
  beforeEach(() => setLocale('ko'))
  afterEach(() => {
    vi.unstubAllGlobals()
    vi.useRealTimers()
    setLocale('ko')
  })

  it('shows an agent the launcher is restarting apart from one that is down, in both languages', async () => {
    mockFetch({ '/api/health': () => jsonResponse(HEALTH) })
    const wrapper = mount(HealthDots)
    await settle()

    const restarting = dot(wrapper, 'internal_rag')
    expect(restarting.classes()).toContain('restarting')
    expect(restarting.attributes('data-state')).toBe('restarting')
    expect(restarting.attributes('data-ok')).toBe('false')
    expect(restarting.attributes('title')).toBe('사내 문서 검색: 재시작 중 (재시작 2회)')
    expect(dot(wrapper, 'web_research').classes()).toContain('down')
    expect(dot(wrapper, 'web_research').attributes('title')).toBe('웹 리서치: 응답 없음')
    expect(dot(wrapper, 'orchestrator').attributes('data-state')).toBe('ok')
    expect(dot(wrapper, 'database').attributes('data-state')).toBe('ok')

    setLocale('en')
    await settle()
    expect(dot(wrapper, 'internal_rag').attributes('aria-label')).toBe('Internal docs: Restarting (restarts: 2)')
    wrapper.unmount()
  })

  it('looks again soon while something restarts, and shows it back', async () => {
    vi.useFakeTimers()
    let body = HEALTH
    const fetch = mockFetch({ '/api/health': () => jsonResponse(body) })
    const wrapper = mount(HealthDots, { props: { interval: 60000, restartingInterval: 2000 } })
    await settle()
    expect(dot(wrapper, 'internal_rag').attributes('data-state')).toBe('restarting')

    body = { ...HEALTH, agents: { ...HEALTH.agents, internal_rag: { url: 'x', ok: true, state: 'ok', restarts: 2 } } }
    await vi.advanceTimersByTimeAsync(2000)
    await settle()
    expect(fetch).toHaveBeenCalledTimes(2)
    expect(dot(wrapper, 'internal_rag').attributes('data-state')).toBe('ok')
    expect(dot(wrapper, 'internal_rag').attributes('title')).toBe('사내 문서 검색: 정상 (재시작 2회)')
    wrapper.unmount()
  })

  it('never shows web research green while no search provider can be reached', async () => {
    const agents = { web_research: { url: 'x', ok: true, state: 'ok', restarts: 0 } }
    const gateway = { url: 'g', ok: true, state: 'ok', restarts: 0 }
    let search = { providers: ['duckduckgo'], gateway, state: 'down', unreachable: ['duckduckgo'] }
    mockFetch({ '/api/health': () => jsonResponse({ agents, search, llm: { mode: 'offline' } }) })
    const wrapper = mount(HealthDots, { props: { interval: 60000 } })
    await settle()
    const web = dot(wrapper, 'web_research')
    expect(web.attributes('data-state')).toBe('degraded')
    expect(web.attributes('data-ok')).toBe('false')
    expect(web.classes()).not.toContain('ok')
    expect(web.attributes('title')).toBe('웹 리서치: 검색 제공자에 연결할 수 없음 (duckduckgo)')
    // The header's offline label is Korean too.
    expect(wrapper.get('.llm').text()).toBe('오프라인')

    setLocale('en')
    await settle()
    expect(dot(wrapper, 'web_research').attributes('title')).toBe('Web research: no search provider can be reached (duckduckgo)')
    expect(wrapper.get('.llm').text()).toBe('offline')
    setLocale('ko')

    for (const [body, state, title] of [
      [{ providers: [], gateway, state: 'down', unreachable: [] }, 'degraded', '웹 리서치: 설정된 검색 제공자가 없음'],
      [{ providers: [], gateway: { ...gateway, ok: false, state: 'down' }, state: 'down', unreachable: [] }, 'degraded',
        '웹 리서치: 검색 게이트웨이 응답 없음'],
      [{ providers: ['serper', 'tavily'], gateway, state: 'degraded', unreachable: ['serper'] }, 'degraded',
        '웹 리서치: 일부 검색 제공자에 연결할 수 없음 (serper)'],
      [{ providers: ['local'], gateway, state: 'offline_corpus', unreachable: [] }, 'ok', '웹 리서치: 정상 (오프라인 자료로 검색)'],
      [{ providers: ['tavily'], gateway, state: 'ok', unreachable: [] }, 'ok', '웹 리서치: 정상'],
    ]) {
      search = body
      await wrapper.vm.load()
      await settle()
      expect(dot(wrapper, 'web_research').attributes('data-state')).toBe(state)
      expect(dot(wrapper, 'web_research').attributes('title')).toBe(title)
    }
    wrapper.unmount()
  })

  it('reads a backend that reports only ok', async () => {
    mockFetch({ '/api/health': () => jsonResponse({ agents: { orchestrator: { url: 'x', ok: false } }, llm: { mode: 'offline' } }) })
    const wrapper = mount(HealthDots)
    await settle()
    expect(dot(wrapper, 'orchestrator').attributes('data-state')).toBe('down')
    wrapper.unmount()
  })
})
