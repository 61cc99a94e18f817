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
