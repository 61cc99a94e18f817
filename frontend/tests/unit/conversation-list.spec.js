import { afterEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import ConversationList from '../../src/components/ConversationList.vue'
import { setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`
const chats = [
  { id: 'c1', title: '분기 목표', language: 'ko', created_at: '2026-12-01T09:00:00Z', updated_at: '2026-12-02T09:00:00Z' },
  { id: 'c2', title: '출장 규정', language: 'ko', created_at: '2026-12-01T08:00:00Z', updated_at: '2026-12-01T08:00:00Z' },
]

describe('ConversationList', () => {
  afterEach(() => vi.unstubAllGlobals())

  it('lists my conversations, searches, opens, renames and deletes one', async () => {
    setLocale('ko')
    const fetchMock = mockFetch({
      '/api/chats': () => jsonResponse(chats),
      '/api/chats?q=%EC%B6%9C%EC%9E%A5': () => jsonResponse([chats[1]]),
      'PATCH /api/chats/c1': (url, init) => jsonResponse({ id: 'c1', title: JSON.parse(init.body).title }),
      'DELETE /api/chats/c2': () => new Response(null, { status: 204 }),
    })
    const wrapper = mount(ConversationList, { props: { current: 'c1' } })
    await settle()
    const items = () => wrapper.findAll(tid('conversation-item'))
    expect(items().map((i) => i.text())).toEqual([expect.stringContaining('분기 목표'), expect.stringContaining('출장 규정')])
    expect(items()[0].classes()).toContain('current')

    await items()[1].get(tid('conversation-open')).trigger('click')
    expect(wrapper.emitted('open')).toEqual([['c2']])

    await items()[0].get(tid('conversation-rename')).trigger('click')
    await wrapper.get(tid('conversation-rename-input')).setValue('2분기 목표')
    await wrapper.get(tid('conversation-rename-input')).trigger('keydown', { key: 'Enter' })
    await settle()
    expect(items()[0].text()).toContain('2분기 목표')

    await items()[1].get(tid('conversation-delete')).trigger('click')
    await settle()
    expect(items()).toHaveLength(1)
    expect(wrapper.emitted('deleted')).toEqual([['c2']])

    vi.useFakeTimers()
    await wrapper.get(tid('conversation-search')).setValue('출장')
    vi.advanceTimersByTime(300)
    vi.useRealTimers()
    await settle()
    expect(fetchMock.mock.calls.some(([u]) => u === '/api/chats?q=%EC%B6%9C%EC%9E%A5')).toBe(true)
    expect(items().map((i) => i.attributes('data-conversation-id'))).toEqual(['c2'])
    wrapper.unmount()
  })
})
