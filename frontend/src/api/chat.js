// POST /api/chat → text/event-stream of status / answer / error / done events.
import { apiFetch, apiJson, errorFromResponse } from './http.js'
import { readSSE } from './sse.js'

/** localStorage key holding the current conversation id. */
export const CONVERSATION_KEY = 'agenthub.conversationId'

function parseData(raw) {
  if (!raw) return {}
  try {
    return JSON.parse(raw)
  } catch {
    return { text: raw }
  }
}

/**
 * Send a chat message and stream the hub's events.
 * `onEvent(type, data)` is awaited for each event so the UI can render a
 * status line before the next event is handled.
 * Resolves when the stream ends (after `done` or EOF); rejects with an
 * AbortError when `signal` aborts, or an ApiError for non-2xx responses.
 */
export async function streamChat({ message, conversationId = null, language = 'ko', signal, onEvent }) {
  const res = await apiFetch('/api/chat', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Accept: 'text/event-stream' },
    body: JSON.stringify({ message, conversation_id: conversationId || null, language }),
    signal,
  })
  if (!res.ok) throw await errorFromResponse(res)
  if (!res.body) throw new Error('Response has no body')

  for await (const ev of readSSE(res.body)) {
    const data = parseData(ev.data)
    await onEvent?.(ev.event, data)
    if (ev.event === 'done') break
  }
}

/** GET /api/chats/{id} → { id, messages: [...] } */
export function fetchChat(id, options) {
  return apiJson(`/api/chats/${encodeURIComponent(id)}`, options)
}

/** My conversations, newest first; `q` searches titles and turns. */
export function listChats(q = '') {
  return apiJson(`/api/chats${q ? `?q=${encodeURIComponent(q)}` : ''}`)
}

export function renameChat(id, title) {
  return apiJson(`/api/chats/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ title }),
  })
}

export function deleteChat(id) {
  return apiJson(`/api/chats/${encodeURIComponent(id)}`, { method: 'DELETE' })
}
