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
