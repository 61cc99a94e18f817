import { vi } from 'vitest'
import { flushPromises } from '@vue/test-utils'

/** Let pending promises, stream reads and Vue renders run. */
export async function settle(rounds = 8) {
  for (let i = 0; i < rounds; i++) await flushPromises()
}

export function jsonResponse(body, status = 200) {
  return new Response(body == null ? null : JSON.stringify(body), {
    status,
    headers: { 'Content-Type': 'application/json' },
  })
}

/** A byte stream the test writes SSE text into, piece by piece. */
export function controlledStream(signal) {
  const encoder = new TextEncoder()
  let controller
  const stream = new ReadableStream({
    start(c) {
      controller = c
    },
  })
  let closed = false
  signal?.addEventListener('abort', () => {
    if (!closed) controller.error(new DOMException('The operation was aborted.', 'AbortError'))
    closed = true
  })
  return {
    stream,
    push(text) {
      controller.enqueue(encoder.encode(text))
    },
    event(type, data) {
      this.push(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`)
    },
    close() {
      if (!closed) controller.close()
      closed = true
    },
  }
}

/**
 * Installs a fetch mock. `routes` maps "METHOD /path" (or "/path" for GET) to a
 * function (url, init) → Response | Promise<Response>.
 */
export function mockFetch(routes) {
  const fn = vi.fn(async (input, init = {}) => {
    const url = typeof input === 'string' ? input : input.url
    const method = (init.method || 'GET').toUpperCase()
    const path = url.replace(/^https?:\/\/[^/]+/, '')
    const handler = routes[`${method} ${path}`] || (method === 'GET' ? routes[path] : undefined)
    if (!handler) return jsonResponse({ detail: `no mock for ${method} ${path}` }, 404)
    return handler(url, init)
  })
  vi.stubGlobal('fetch', fn)
  return fn
}
