import { apiJson } from './http.js'

/** GET /api/health */
export function fetchHealth(options) {
  return apiJson('/api/health', options)
}

/** GET /api/search/telemetry */
export function fetchTelemetry(options) {
  return apiJson('/api/search/telemetry', options)
}
