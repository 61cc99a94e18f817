import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import App from '../../src/App.vue'
import { _resetAuth, apiJson, auth, login } from '../../src/api/http.js'
import { initLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

/** A fake hub whose API answers 401 until POST /api/login gets the right token. */
function fakeHub(token = 'secret') {
  let loggedIn = false
  const guard = (fn) => () => (loggedIn ? fn() : jsonResponse({ detail: 'Not authenticated' }, 401))
  const fetchMock = mockFetch({
    'POST /api/login': (url, init) => {
      const body = JSON.parse(init.body)
      if (body.username === 'kim' && body.password === 'many-wrong') return jsonResponse({ detail: 'too many' }, 429)
      const ok = body.token === token || (body.username === 'kim' && body.password === 'kim-password')
      if (ok) loggedIn = true
      return ok ? jsonResponse({ ok: true }) : jsonResponse({ detail: 'bad token' }, 401)
    },
    '/api/files': guard(() =>
      jsonResponse([{ id: 'f1', name: 'a.pdf', size: 1, index_status: 'indexed', chunks: 1, uploaded_at: '2025-01-01T00:00:00Z' }]),
    ),
    '/api/health': guard(() => jsonResponse({ agents: {}, database: { ok: true }, llm: { mode: 'offline' } })),
  })
  return fetchMock
}

describe('auth', () => {
  beforeEach(() => {
    _resetAuth()
    localStorage.clear()
    initLocale()
  })
  afterEach(() => vi.unstubAllGlobals())

  it('apiJson waits for login after a 401 and then retries', async () => {
    const fetchMock = fakeHub()
    let result
    const pending = apiJson('/api/files').then((r) => (result = r))
    await settle()
    expect(auth.required).toBe(true)
    expect(result).toBeUndefined()

    expect(await login('wrong')).toBe(false)
    await settle()
    expect(auth.required).toBe(true)
    expect(result).toBeUndefined()

    expect(await login('secret')).toBe(true)
    await pending
    expect(auth.required).toBe(false)
    expect(result[0].id).toBe('f1')
    const fileCalls = fetchMock.mock.calls.filter(([u]) => u === '/api/files')
    expect(fileCalls).toHaveLength(2)
  })

  it('shows the login view, rejects a bad token, and loads data after login', async () => {
    fakeHub()
    const wrapper = mount(App, { attachTo: document.body })
    await settle()
    expect(wrapper.find(tid('login-view')).exists()).toBe(true)
    expect(wrapper.findAll(tid('file-row'))).toHaveLength(0)

    // The account form comes first; the hub token is one click away.
    expect(wrapper.find(tid('login-username')).exists()).toBe(true)
    await wrapper.get(tid('login-switch')).trigger('click')
    await wrapper.get(tid('login-token')).setValue('nope')
    await wrapper.get('form.login').trigger('submit')
    await settle()
    expect(wrapper.get(tid('login-error')).text()).toBe('토큰이 올바르지 않습니다.')

    await wrapper.get(tid('login-token')).setValue('secret')
    await wrapper.get('form.login').trigger('submit')
    await settle()
    expect(wrapper.find(tid('login-view')).exists()).toBe(false)
    expect(wrapper.findAll(tid('file-row'))).toHaveLength(1)
    wrapper.unmount()
  })

  it('signs in with a username and password, and says so when attempts are limited', async () => {
    fakeHub()
    const wrapper = mount(App, { attachTo: document.body })
    await settle()
    await wrapper.get(tid('login-username')).setValue('kim')
    await wrapper.get(tid('login-password')).setValue('many-wrong')
    await wrapper.get('form.login').trigger('submit')
    await settle()
    expect(wrapper.get(tid('login-error')).text()).toBe('로그인 시도가 너무 많습니다. 잠시 후 다시 시도해 주세요.')
    await wrapper.get(tid('login-password')).setValue('wrong')
    await wrapper.get('form.login').trigger('submit')
    await settle()
    expect(wrapper.get(tid('login-error')).text()).toBe('사용자 이름 또는 비밀번호가 올바르지 않습니다.')
    await wrapper.get(tid('login-password')).setValue('kim-password')
    await wrapper.get('form.login').trigger('submit')
    await settle()
    expect(wrapper.find(tid('login-view')).exists()).toBe(false)
    wrapper.unmount()
  })
})
