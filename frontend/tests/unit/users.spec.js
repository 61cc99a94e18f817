import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import UserAdmin from '../../src/components/UserAdmin.vue'
import App from '../../src/App.vue'
import { setLocale } from '../../src/i18n.js'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

function people() {
  return [
    { id: 'u-admin', username: 'admin', admin: true, teams: [], password: true, documents: 0, created_at: '2026-12-01T09:00:00Z' },
    { id: 'u-yuna', username: 'yuna', admin: false, teams: ['영업'], password: true, documents: 2, created_at: '2026-12-02T09:00:00Z' },
    { id: 'u-sso', username: 'minho', admin: false, teams: [], password: false, documents: 0, created_at: '2026-12-03T09:00:00Z' },
  ]
}
const TEAMS = [{ name: '영업', members: ['yuna'], documents: 3 }]

/** The routes of /api/users and /api/teams over an in-memory list; every write is recorded. */
function server(overrides = {}) {
  const users = people()
  const writes = []
  const routes = {
    '/api/users': () => jsonResponse(users),
    '/api/teams': () => jsonResponse(TEAMS),
    'POST /api/users': (url, init) => {
      const body = JSON.parse(init.body)
      writes.push(['POST', url, body])
      users.push({ id: `u-${body.username}`, ...body, password: true, documents: 0, created_at: '2026-12-04T09:00:00Z' })
      return jsonResponse(users.at(-1), 201)
    },
    'PATCH /api/users/u-yuna': (url, init) => {
      const body = JSON.parse(init.body)
      writes.push(['PATCH', url, body])
      Object.assign(users[1], { teams: body.teams ?? users[1].teams, admin: body.admin ?? users[1].admin })
      return jsonResponse(users[1])
    },
    'DELETE /api/users/u-yuna?transfer_to=u-admin': (url) => {
      writes.push(['DELETE', url])
      users.splice(1, 1)
      return new Response(null, { status: 204 })
    },
    ...overrides,
  }
  mockFetch(routes)
  return { users, writes }
}

describe('the administrators\' users page', () => {
  beforeEach(() => setLocale('ko'))
  afterEach(() => vi.unstubAllGlobals())

  it('lists each person with teams, role, sign-in and files, and each team with its members', async () => {
    server()
    const wrapper = mount(UserAdmin)
    await settle()
    const rows = wrapper.findAll(tid('user-row'))
    expect(rows.map((r) => r.attributes('data-username'))).toEqual(['admin', 'yuna', 'minho'])
    expect(rows[0].text()).toContain('관리자')
    expect(rows[1].text()).toContain('영업')
    expect(rows[1].text()).toContain('비밀번호')
    expect(rows[2].text()).toContain('통합 로그인(SSO)')
    const team = wrapper.get(tid('team-row'))
    expect(team.text()).toContain('영업')
    expect(team.text()).toContain('yuna')
    expect(team.text()).toContain('3')
  })

  it('creates a person with the teams split at commas, then shows them', async () => {
    const { writes } = server()
    const wrapper = mount(UserAdmin)
    await settle()
    await wrapper.get(tid('new-username')).setValue(' jisoo ')
    await wrapper.get(tid('new-password')).setValue('jisoo-password')
    await wrapper.get(tid('new-teams')).setValue('영업, platform ,')
    await wrapper.get(tid('new-admin')).setValue(true)
    await wrapper.get(tid('user-create')).trigger('submit')
    await settle()
    expect(writes).toEqual([['POST', '/api/users',
      { username: 'jisoo', password: 'jisoo-password', teams: ['영업', 'platform'], admin: true }]])
    expect(wrapper.findAll(tid('user-row')).map((r) => r.attributes('data-username'))).toContain('jisoo')
    expect(wrapper.get(tid('users-notice')).text()).toBe('사용자를 만들었습니다.')
    expect(wrapper.get(tid('new-username')).element.value).toBe('')
  })

  it('changes teams and role, and sends a password only when one was typed', async () => {
    const { writes } = server()
    const wrapper = mount(UserAdmin)
    await settle()
    await wrapper.findAll(tid('user-edit'))[1].trigger('click')
    await wrapper.get(tid('edit-teams')).setValue('기획')
    await wrapper.get(tid('edit-admin')).setValue(true)
    await wrapper.get(tid('user-edit-form')).trigger('submit')
    await settle()
    expect(writes[0]).toEqual(['PATCH', '/api/users/u-yuna', { teams: ['기획'], admin: true }])
    expect(wrapper.find(tid('user-edit-form')).exists()).toBe(false)

    await wrapper.findAll(tid('user-edit'))[1].trigger('click')
    await wrapper.get(tid('edit-password')).setValue('a-new-password')
    await wrapper.get(tid('user-edit-form')).trigger('submit')
    await settle()
    expect(writes[1][2]).toEqual({ teams: ['기획'], admin: true, password: 'a-new-password' })
  })

  it('deletes a person who owns files only once someone is chosen to receive them', async () => {
    const { writes } = server()
    const wrapper = mount(UserAdmin)
    await settle()
    await wrapper.findAll(tid('user-delete'))[1].trigger('click')
    expect(wrapper.get(tid('confirm-dialog')).text()).toContain('파일 2개')
    await wrapper.get(tid('confirm-ok')).trigger('click')
    await settle()
    expect(writes).toEqual([])
    expect(wrapper.get(tid('users-error')).text()).toBe('이 사용자가 가진 파일을 넘겨받을 사람을 고르세요.')
    const heirs = wrapper.get(tid('delete-transfer')).findAll('option').map((o) => o.text())
    expect(heirs).toEqual(['–', 'admin', 'minho'])
    await wrapper.get(tid('delete-transfer')).setValue('u-admin')
    await wrapper.get(tid('confirm-ok')).trigger('click')
    await settle()
    expect(writes).toEqual([['DELETE', '/api/users/u-yuna?transfer_to=u-admin']])
    expect(wrapper.find(tid('confirm-dialog')).exists()).toBe(false)
    expect(wrapper.findAll(tid('user-row')).map((r) => r.attributes('data-username'))).toEqual(['admin', 'minho'])
  })

  it('says a refusal in the reader\'s language by its name, and anything else as a general failure', async () => {
    server({
      'PATCH /api/users/u-yuna': () => new Response(JSON.stringify({ detail: 'the last administrator keeps the role' }),
        { status: 409, headers: { 'Content-Type': 'application/json', 'X-Hub-Error': 'last_admin' } }),
      'POST /api/users': () => jsonResponse({ detail: 'boom' }, 500),
    })
    const wrapper = mount(UserAdmin)
    await settle()
    await wrapper.findAll(tid('user-edit'))[1].trigger('click')
    await wrapper.get(tid('user-edit-form')).trigger('submit')
    await settle()
    expect(wrapper.get(tid('users-error')).text()).toBe('마지막 관리자입니다. 다른 관리자를 먼저 지정하세요.')
    expect(wrapper.find(tid('user-edit-form')).exists()).toBe(true) // the form stays for another try

    setLocale('en')
    await wrapper.get(tid('new-username')).setValue('x')
    await wrapper.get(tid('new-password')).setValue('password-1')
    await wrapper.get(tid('user-create')).trigger('submit')
    await settle()
    expect(wrapper.get(tid('users-error')).text()).toBe('Could not create the user.')
    expect(wrapper.get(tid('users-error')).text()).not.toContain('boom')
  })
})

describe('the users tab', () => {
  beforeEach(() => setLocale('ko'))
  afterEach(() => vi.unstubAllGlobals())

  async function app(me, accounts = true) {
    server({ '/api/me': () => jsonResponse(me), '/api/health': () => jsonResponse({ agents: {}, accounts }),
      '/api/chats': () => jsonResponse([]), '/api/files': () => jsonResponse([]) })
    const wrapper = mount(App)
    await settle()
    return wrapper
  }

  it('is there for an administrator and opens the users page', async () => {
    const wrapper = await app({ kind: 'user', username: 'admin', admin: true, teams: [] })
    // Five tabs: on a narrow screen the inactive ones show their icon only, so each carries its name.
    expect(wrapper.get('nav.tabs').classes()).toContain('crowded')
    expect(wrapper.get(tid('nav-users')).attributes('aria-label')).toBe('사용자')
    await wrapper.get(tid('nav-users')).trigger('click')
    await settle()
    expect(wrapper.findAll(tid('user-row'))).toHaveLength(3)
  })

  it('and the audit tab are not there while accounts are off (local mode), even for its administrator', async () => {
    const wrapper = await app({ kind: 'local', username: 'local', admin: true, teams: [] }, false)
    expect(wrapper.find(tid('nav-users')).exists()).toBe(false)
    expect(wrapper.find(tid('nav-audit')).exists()).toBe(false)
    expect(wrapper.find(tid('nav-dashboard')).exists()).toBe(true)
    expect(wrapper.get('nav.tabs').classes()).not.toContain('crowded')
  })

  it('has an audit tab whose icon is not the dashboard\'s', async () => {
    const wrapper = await app({ kind: 'user', username: 'admin', admin: true, teams: [] })
    const icon = (id) => wrapper.get(`${tid(id)} svg path`).attributes('d')
    expect(icon('nav-audit')).toBeTruthy()
    expect(new Set(['nav-chat', 'nav-dashboard', 'nav-audit', 'nav-users'].map(icon)).size).toBe(4)
  })

  it('is not there for anyone else', async () => {
    const wrapper = await app({ kind: 'user', username: 'yuna', admin: false, teams: ['영업'] })
    expect(wrapper.find(tid('nav-users')).exists()).toBe(false)
    expect(wrapper.get('nav.tabs').classes()).not.toContain('crowded')
    expect(wrapper.find(tid('user-admin')).exists()).toBe(false)
  })
})
