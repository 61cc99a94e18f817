import { describe, expect, it } from 'vitest'
import { SSEParser, readSSE } from '../../src/api/sse.js'

function byteStream(chunks) {
  return new ReadableStream({
    start(c) {
      for (const chunk of chunks) c.enqueue(chunk)
      c.close()
    },
  })
}

describe('SSEParser', () => {
  it('returns nothing until the blank line, then the whole event when split mid-event', () => {
    const p = new SSEParser()
    expect(p.feed('event: sta')).toEqual([])
    expect(p.feed('tus\ndata: {"agent":"orch')).toEqual([])
    expect(p.feed('estrator"}\n')).toEqual([])
    const events = p.feed('\n')
    expect(events).toHaveLength(1)
    expect(events[0].event).toBe('status')
    expect(JSON.parse(events[0].data)).toEqual({ agent: 'orchestrator' })
  })

  it('parses several events delivered in one chunk, in order', () => {
    const p = new SSEParser()
    const events = p.feed('event: status\ndata: {"n":1}\n\nevent: answer\ndata: {"n":2}\n\nevent: done\ndata: {}\n\n')
    expect(events.map((e) => e.event)).toEqual(['status', 'answer', 'done'])
    expect(events.map((e) => e.data)).toEqual(['{"n":1}', '{"n":2}', '{}'])
  })

  it('handles CRLF line endings, including a CR/LF pair split across chunks', () => {
    const p = new SSEParser()
    expect(p.feed('event: answer\r\ndata: {"a":1}\r')).toEqual([])
    const events = p.feed('\n\r\n')
    expect(events).toEqual([{ event: 'answer', data: '{"a":1}', id: '' }])
  })

  it('joins multi-line data, ignores comments and defaults the event type to "message"', () => {
    const p = new SSEParser()
    const events = p.feed(': keep-alive\ndata: line one\ndata:line two\n\n')
    expect(events).toEqual([{ event: 'message', data: 'line one\nline two', id: '' }])
  })

  it('does not leak the event type of a data-less block into the next event', () => {
    const p = new SSEParser()
    const events = p.feed('event: status\n\ndata: x\n\n')
    expect(events).toEqual([{ event: 'message', data: 'x', id: '' }])
  })

  it('flushes a final event that lacks its trailing blank line at end()', () => {
    const p = new SSEParser()
    expect(p.feed('event: done\ndata: {}')).toEqual([])
    expect(p.end()).toEqual([{ event: 'done', data: '{}', id: '' }])
  })
})

describe('readSSE', () => {
  it('decodes UTF-8 characters split across byte chunks', async () => {
    const bytes = new TextEncoder().encode('event: status\ndata: {"message":"사내 문서에서 찾지 못했습니다"}\n\n')
    // Split in the middle of a 3-byte Hangul character.
    const cut = bytes.indexOf(0xec) + 1
    const events = []
    for await (const ev of readSSE(byteStream([bytes.slice(0, cut), bytes.slice(cut)]))) events.push(ev)
    expect(events).toHaveLength(1)
    expect(JSON.parse(events[0].data).message).toBe('사내 문서에서 찾지 못했습니다')
  })

  it('yields events from many tiny chunks', async () => {
    const text = 'event: status\ndata: {"p":0.5}\n\nevent: done\ndata: {}\n\n'
    const enc = new TextEncoder()
    const chunks = [...text].map((ch) => enc.encode(ch))
    const events = []
    for await (const ev of readSSE(byteStream(chunks))) events.push(ev.event)
    expect(events).toEqual(['status', 'done'])
  })
})
