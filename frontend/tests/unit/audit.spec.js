import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import AuditLog from '../../src/components/AuditLog.vue'
import MessageItem from '../../src/components/MessageItem.vue'
import { setLocale, t } from '../../src/i18n.js'
import { usageLine } from '../../src/lib/format.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

const AUDIT = {
  answers: [
    {
      time: '2026-12-03T09:05:00Z', username: 'yuna', conversation_id: 'c1', question: '보일러실 점검은 누가 해?',
      intent: 'INTERNAL_SEARCH', documents: [{ file_name: 'boiler_rota.txt', pages: [1, 3] }],
      usage: { llm_calls: 2, llm_prompt_tokens: 1000, llm_completion_tokens: 234, searches: 0 },
    },
    {
      time: '2026-12-03T09:01:00Z', username: null, conversation_id: 'c2', question: 'Eiffel Tower?',
      intent: 'WEB_SEARCH', documents: [],
      usage: { searches: 3, paid_searches: 1, search_cost_usd: 0.004 },
    },
  ],
  totals: { answers: 2, llm_prompt_tokens: 1000, llm_completion_tokens: 234, search_cost_usd: 0.004 },
}

describe('what an answer cost', () => {
  beforeEach(() => setLocale('ko'))
  afterEach(() => vi.unstubAllGlobals())

  it('reads as one line of searches and model calls, and as nothing when it cost nothing', () => {
    expect(usageLine({ searches: 3, paid_searches: 1, search_cost_usd: 0.004 }, t)).toBe('검색 3회 (검색 제공자 1회 $0.0040)')
    expect(usageLine({ llm_calls: 2, llm_prompt_tokens: 1000, llm_completion_tokens: 234, llm_tokens_estimated: true }, t))
      .toBe('LLM 2회 · 토큰 1,234 (추정)')
    expect(usageLine({ searches: 0, llm_calls: 0 }, t)).toBe('')
    expect(usageLine({ searches: 'many', llm_calls: -1 }, t)).toBe('')
    expect(usageLine(null, t)).toBe('')
  })

  it('is shown beside an answer that cost something, and not beside one that did not', () => {
    const paid = mount(MessageItem, { props: { message: { id: 1, role: 'assistant', text: '답', usage: { searches: 2 } } } })
    expect(paid.get(tid('answer-usage')).text()).toBe('검색 2회')
    const free = mount(MessageItem, { props: { message: { id: 2, role: 'assistant', text: '답', usage: {} } } })
    expect(free.find(tid('answer-usage')).exists()).toBe(false)
  })

  it('lists every answer with who asked, what was read and what it cost, filtered by username', async () => {
    const urls = []
    const answer = (url) => {
      urls.push(String(url))
      return jsonResponse(AUDIT)
    }
    mockFetch({ '/api/audit?limit=200': answer, '/api/audit?limit=200&username=yuna': answer })
    const wrapper = mount(AuditLog)
    await settle()
    const rows = wrapper.findAll(tid('audit-row'))
    expect(rows).toHaveLength(2)
    expect(rows[0].text()).toContain('yuna')
    expect(rows[0].text()).toContain('boiler_rota.txt (p.1, 3)')
    expect(rows[0].text()).toContain('LLM 2회 · 토큰 1,234')
    expect(rows[1].text()).toContain('서비스 토큰')
    expect(rows[1].text()).toContain('검색 3회 (검색 제공자 1회 $0.0040)')
    expect(wrapper.get(tid('audit-total-tokens')).text()).toBe('1,234')
    expect(wrapper.get(tid('audit-total-spend')).text()).toBe('$0.0040')
    await wrapper.get(tid('audit-username')).setValue('yuna')
    await wrapper.get('form').trigger('submit')
    await settle()
    expect(urls).toEqual(['/api/audit?limit=200', '/api/audit?limit=200&username=yuna'])
  })
})
