import { afterEach, describe, expect, it, vi } from 'vitest'
import { apiJson } from '../../src/api/http.js'
import { setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch } from './helpers.js'

describe('the page language reaches the server', () => {
  afterEach(() => {
    setLocale('ko')
    vi.unstubAllGlobals()
  })

  it('sends the chosen language as Accept-Language, whatever the browser says, keeping the call\'s headers', async () => {
    const seen = []
    mockFetch({
      'POST /api/files/f1/index': (_url, init) => {
        seen.push(init.headers)
        return jsonResponse({ id: 'f1' }, 202)
      },
    })
    setLocale('en')
    await apiJson('/api/files/f1/index', { method: 'POST', headers: { 'X-Test': '1' } })
    setLocale('ko')
    await apiJson('/api/files/f1/index', { method: 'POST' })
    expect(seen[0]).toMatchObject({ 'Accept-Language': 'en', 'X-Test': '1' })
    expect(seen[1]).toMatchObject({ 'Accept-Language': 'ko' })
  })
})
