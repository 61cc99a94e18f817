import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import SearchDashboard from '../../src/components/SearchDashboard.vue'
import { setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

const TELEMETRY = {
  providers: [
    { provider: 'tavily', requests: 30, spend_usd: 0.24, hit_rate: 0.5, p50_ms: 420, p95_ms: 1300 },
    { provider: 'brave', requests: 10, spend_usd: 0.03, hit_rate: 0.1, p50_ms: 610, p95_ms: 1800 },
  ],
  series: [
    { bucket: '2025-03-01T09:00:00Z', provider: 'tavily', requests: 10, hits: 5, spend_usd: 0.08, p50_ms: 400 },
    { bucket: '2025-03-01T10:00:00Z', provider: 'tavily', requests: 20, hits: 10, spend_usd: 0.16, p50_ms: 440 },
    { bucket: '2025-03-01T09:00:00Z', provider: 'brave', requests: 4, hits: 0, spend_usd: 0.012, p50_ms: 600 },
    { bucket: '2025-03-01T10:00:00Z', provider: 'brave', requests: 0, hits: 0, spend_usd: 0, p50_ms: 620 },
  ],
  workloads: [
    { workload: 'latest', requests: 12, hits: 3, hit_rate: 0.25, spend_usd: 0.21, tokens: 5400, errors: 1,
      providers: [{ provider: 'openai_web_search', requests: 9 }, { provider: 'tavily', requests: 3 }] },
    { workload: 'none', requests: 28, hits: 13, hit_rate: 0.4643, spend_usd: 0.06, tokens: 0, errors: 0,
      providers: [{ provider: 'tavily', requests: 28 }] },
  ],
  recent: [
    { time: '2025-03-01T10:05:00Z', agent: 'web_research', query: 'EU AI Act 일정', provider: 'tavily', cache: 'semantic', latency_ms: 35, cost_usd: 0, results: 5 },
    { time: '2025-03-01T10:01:00Z', agent: 'web_research', query: '반도체 수출', provider: 'brave', cache: 'miss', latency_ms: 812, cost_usd: 0.003, results: 8 },
  ],
}

describe('SearchDashboard', () => {
  beforeEach(() => setLocale('ko'))
  afterEach(() => vi.unstubAllGlobals())

  it('renders totals, provider table, recent queries and one chart line per provider', async () => {
    mockFetch({ '/api/search/telemetry': () => jsonResponse(TELEMETRY) })
    const wrapper = mount(SearchDashboard)
    await settle()

    expect(wrapper.get(tid('total-requests')).text()).toBe('40')
    expect(wrapper.get(tid('total-spend')).text()).toBe('$0.27')
    expect(wrapper.get(tid('total-hit-rate')).text()).toBe('40%') // (0.5*30 + 0.1*10) / 40

    const rows = wrapper.findAll(tid('provider-row'))
    expect(rows).toHaveLength(2)
    expect(rows[0].text()).toContain('tavily')
    expect(rows[0].text()).toContain('50%')
    expect(rows[1].text()).toContain('1800 ms')

    // Spend, calls and hits per workload, with the providers that served each.
    const workloads = wrapper.findAll(tid('workload-row'))
    expect(workloads.map((w) => w.find('td').text())).toEqual(['latest', '지정 없음'])
    expect(workloads[0].text()).toContain('$0.21')
    expect(workloads[0].text()).toContain('25%')
    expect(workloads[0].text()).toContain('openai_web_search 9 · tavily 3')

    const recent = wrapper.findAll(tid('recent-row'))
    expect(recent).toHaveLength(2)
    expect(recent[0].text()).toContain('EU AI Act 일정')
    expect(recent[0].text()).toContain('의미 유사')
    expect(recent[1].text()).toContain('미적중')

    const spend = wrapper.get(tid('chart-spend'))
    expect(spend.findAll('g.series')).toHaveLength(2)
    expect(spend.findAll('g.series[data-series="tavily"] circle')).toHaveLength(2)
    // A bucket with zero requests has no hit rate: brave gets a single point.
    const hit = wrapper.get(tid('chart-hit-rate'))
    expect(hit.findAll('g.series[data-series="brave"] circle')).toHaveLength(1)
    expect(hit.findAll('g.series[data-series="tavily"] circle')).toHaveLength(2)
    // Higher values are drawn higher (smaller y): tavily spend 0.16 above 0.08.
    const ys = spend.findAll('g.series[data-series="tavily"] circle').map((c) => Number(c.attributes('cy')))
    expect(ys[1]).toBeLessThan(ys[0])
  })

  it('shows empty states when there is no telemetry yet', async () => {
    mockFetch({ '/api/search/telemetry': () => jsonResponse({ providers: [], series: [], recent: [] }) })
    const wrapper = mount(SearchDashboard)
    await settle()
    expect(wrapper.findAll(tid('provider-row'))).toHaveLength(0)
    expect(wrapper.get(tid('chart-latency')).text()).toContain('데이터 없음')
    expect(wrapper.get(tid('provider-table')).text()).toContain('아직 검색 기록이 없습니다.')
    expect(wrapper.findAll(tid('workload-row'))).toHaveLength(0)  // an older gateway sends no workloads
    expect(wrapper.get(tid('workload-table')).text()).toContain('아직 검색 기록이 없습니다.')
  })

  it('shows an error when the telemetry request fails', async () => {
    mockFetch({ '/api/search/telemetry': () => jsonResponse({ detail: 'boom' }, 500) })
    const wrapper = mount(SearchDashboard)
    await settle()
    expect(wrapper.text()).toContain('검색 통계를 불러오지 못했습니다.')
  })
})
