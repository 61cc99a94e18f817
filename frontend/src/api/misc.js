import { apiJson } from './http.js'

/** GET /api/health */
export function fetchHealth(options) {
  return apiJson('/api/health', options)
}

/** GET /api/search/telemetry */
export function fetchTelemetry(options) {
  return apiJson('/api/search/telemetry', options)
}

/** Who this session is: `{kind: 'user'|'service'|'local', username, admin, teams}`. */
export function fetchMe(options) {
  return apiJson('/api/me', options)
}

/** GET /api/audit (administrators): the latest answers with who asked, what was read and what it cost. */
export function fetchAudit({ username, limit = 200 } = {}, options) {
  const params = new URLSearchParams({ limit: String(limit) })
  if (username) params.set('username', username)
  return apiJson(`/api/audit?${params}`, options)
}

const JSON_HEADERS = { 'Content-Type': 'application/json' }

/** GET /api/users (administrators): every account with its teams, sign-in kind and owned files. */
export function fetchUsers(options) {
  return apiJson('/api/users', options)
}

/** POST /api/users `{username, password, teams, admin}`. */
export function createUser(user) {
  return apiJson('/api/users', { method: 'POST', headers: JSON_HEADERS, body: JSON.stringify(user) })
}

/** PATCH /api/users/{id} with any of `{password, teams, admin}`. */
export function updateUser(id, change) {
  return apiJson(`/api/users/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    headers: JSON_HEADERS,
    body: JSON.stringify(change),
  })
}

/** DELETE /api/users/{id}, handing the person's files to `transferTo` (a user id) when they own any. */
export function deleteUser(id, transferTo) {
  const query = transferTo ? `?${new URLSearchParams({ transfer_to: transferTo })}` : ''
  return apiJson(`/api/users/${encodeURIComponent(id)}${query}`, { method: 'DELETE' })
}

/** GET /api/teams (administrators): every team with its members and the files shared with it. */
export function fetchTeams(options) {
  return apiJson('/api/teams', options)
}
