// Server-Sent Events parser for streams read with fetch() (EventSource can't POST).
// Follows the WHATWG event-stream format: lines end in \n, \r\n or \r; an empty
// line dispatches the event; `data:` lines are joined with \n; lines starting
// with ':' are comments.

export class SSEParser {
  constructor() {
    this.buffer = ''
    this.pendingCR = false
    this.reset()
  }

  reset() {
    this.eventType = ''
    this.dataLines = []
    this.hasData = false
    this.lastEventId = this.lastEventId || ''
  }

  /** Feed decoded text; returns the list of complete events it finished. */
  feed(text) {
    const events = []
    let chunk = text
    // A "\r\n" may be split across chunks: drop the "\n" that follows a
    // trailing "\r" from the previous chunk.
    if (this.pendingCR && chunk.startsWith('\n')) chunk = chunk.slice(1)
    this.pendingCR = false
    this.buffer += chunk

    let start = 0
    for (let i = 0; i < this.buffer.length; i++) {
      const ch = this.buffer[i]
      if (ch !== '\n' && ch !== '\r') continue
      const line = this.buffer.slice(start, i)
      if (ch === '\r') {
        if (i + 1 < this.buffer.length) {
          if (this.buffer[i + 1] === '\n') i++
        } else {
          this.pendingCR = true
        }
      }
      start = i + 1
      const ev = this.processLine(line)
      if (ev) events.push(ev)
    }
    this.buffer = this.buffer.slice(start)
    return events
  }

  /** Flush at end of stream: dispatch a final event missing its blank line. */
  end() {
    const events = []
    if (this.buffer.length) {
      const ev = this.processLine(this.buffer)
      if (ev) events.push(ev)
      this.buffer = ''
    }
    const ev = this.dispatch()
    if (ev) events.push(ev)
    return events
  }

  processLine(line) {
    if (line === '') return this.dispatch()
    if (line.startsWith(':')) return null
    const colon = line.indexOf(':')
    let field = line
    let value = ''
    if (colon !== -1) {
      field = line.slice(0, colon)
      value = line.slice(colon + 1)
      if (value.startsWith(' ')) value = value.slice(1)
    }
    switch (field) {
      case 'event':
        this.eventType = value
        break
      case 'data':
        this.dataLines.push(value)
        this.hasData = true
        break
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value
        break
      default:
        // `retry` and unknown fields are ignored.
        break
    }
    return null
  }

  dispatch() {
    if (!this.hasData) {
      this.eventType = ''
      return null
    }
    const ev = {
      event: this.eventType || 'message',
      data: this.dataLines.join('\n'),
      id: this.lastEventId,
    }
    this.reset()
    return ev
  }
}

/**
 * Async generator over the events of a byte stream (a fetch Response body).
 * Decodes UTF-8 incrementally so multi-byte characters split across chunks
 * (e.g. Korean text) survive.
 */
export async function* readSSE(stream) {
  const reader = stream.getReader()
  const decoder = new TextDecoder('utf-8')
  const parser = new SSEParser()
  let finished = false
  try {
    for (;;) {
      const { value, done } = await reader.read()
      if (done) {
        finished = true
        break
      }
      const text = typeof value === 'string' ? value : decoder.decode(value, { stream: true })
      for (const ev of parser.feed(text)) yield ev
    }
    const tail = decoder.decode()
    if (tail) for (const ev of parser.feed(tail)) yield ev
    for (const ev of parser.end()) yield ev
  } finally {
    // Consumer stopped early (e.g. after `done`): stop downloading.
    if (!finished) reader.cancel().catch(() => {})
    try {
      reader.releaseLock()
    } catch {
      // already released
    }
  }
}
