// Thin fetch wrapper shared by every /api call.
// A 401 response puts the app into "login required" mode; the call waits until
// the user signs in (POST /api/login sets a cookie) and is then retried.
import { reactive } from 'vue'
import { locale } from '../i18n.js'

export const auth = reactive({
  required: false,
})

let waiters = []

/** Returns a promise resolved once the user has signed in. */
export function waitForLogin() {
  auth.required = true
  return new Promise((resolve, reject) => {
    waiters.push({ resolve, reject })
  })
}

function releaseWaiters() {
  const pending = waiters
  waiters = []
  auth.required = false
  pending.forEach((w) => w.resolve())
}

/** Error carrying the HTTP status, the server's `detail` message and its `X-Hub-Error` name, if any. */
export class ApiError extends Error {
  constructor(message, status, detail, code = '') {
    super(message)
    this.name = 'ApiError'
    this.status = status
    this.detail = detail
    this.code = code
  }
}

/** Turn a FastAPI-style `detail` (string or validation list) into text. */
export function formatDetail(detail) {
  if (detail == null) return ''
  if (typeof detail === 'string') return detail
  if (Array.isArray(detail)) {
    return detail
      .map((d) => (d && typeof d === 'object' ? d.msg || JSON.stringify(d) : String(d)))
      .join('; ')
  }
  if (typeof detail === 'object') return detail.message || JSON.stringify(detail)
  return String(detail)
}

async function errorFromResponse(res) {
  let detail = ''
  try {
    const text = await res.text()
    try {
      const body = JSON.parse(text)
      detail = formatDetail(body?.detail ?? body?.message ?? '')
    } catch {
      detail = text.slice(0, 300)
    }
  } catch {
    // body unreadable
  }
  const code = res.headers?.get?.('X-Hub-Error') || ''
  return new ApiError(detail || `HTTP ${res.status}`, res.status, detail, code)
}

/** `headers` plus the page's language as `Accept-Language`: the server says its messages (a file's indexing
 * result, a refusal) in the language the person chose, not the browser's. */
export function withLanguage(headers = {}) {
  return { 'Accept-Language': locale.value, ...headers }
}

/**
 * fetch() with same-origin credentials, the page's language and transparent 401 → login → retry.
 * Returns the Response (any status other than 401).
 */
export async function apiFetch(url, options = {}) {
  for (;;) {
    const res = await fetch(url, { credentials: 'same-origin', ...options, headers: withLanguage(options.headers) })
    if (res.status !== 401) return res
    if (options.signal?.aborted) return res
    await waitForLogin()
  }
}

/** apiFetch + JSON decoding; throws ApiError for non-2xx responses. */
export async function apiJson(url, options = {}) {
  const res = await apiFetch(url, options)
  if (!res.ok) throw await errorFromResponse(res)
  if (res.status === 204) return null
  return res.json()
}

export { errorFromResponse }

/**
 * POST /api/login with the hub token. Resolves true on success, false for a
 * rejected token; throws on other failures.
 */
/**
 * Sign in with `{ username, password }` (an account) or a hub token string (the service credential).
 * Resolves true on success, false on wrong credentials; a 429 (too many attempts) throws with its detail.
 */
export async function login(credentials) {
  const body = typeof credentials === 'string' ? { token: credentials } : credentials
  const res = await fetch('/api/login', {
    method: 'POST',
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  if (res.ok) {
    releaseWaiters()
    return true
  }
  if (res.status === 401 || res.status === 403) return false
  throw await errorFromResponse(res)
}

/** Test helper: reset module state. */
export function _resetAuth() {
  waiters = []
  auth.required = false
}
