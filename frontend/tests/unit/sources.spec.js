import { describe, expect, it } from 'vitest'
import { firstPage, pageLabel, safeUrl, sourceHref, webTitle } from '../../src/lib/sources.js'

describe('sourceHref', () => {
  it('links a file source to its download URL at the first cited page', () => {
    const s = { type: 'file', file_id: 'abc', file_name: 'policy.pdf', pages: [15, 13, 14], page_label: 'p.13–15', url: '/api/files/abc/download' }
    expect(sourceHref(s)).toBe('/api/files/abc/download#page=13')
  })

  it('builds the download URL from file_id when url is null', () => {
    expect(sourceHref({ type: 'file', file_id: 'a b', pages: [2], url: null })).toBe('/api/files/a%20b/download#page=2')
  })

  it('omits #page when no pages are cited and replaces an existing hash', () => {
    expect(sourceHref({ type: 'file', file_id: 'x', pages: [], url: '/api/files/x/download' })).toBe('/api/files/x/download')
    expect(sourceHref({ type: 'file', pages: [4], url: '/api/files/x/download#page=1' })).toBe('/api/files/x/download#page=4')
  })

  it('returns null for a file source with neither url nor file_id', () => {
    expect(sourceHref({ type: 'file', file_name: 'x.pdf', pages: [1], url: null, file_id: null })).toBeNull()
  })

  it('uses the URL of web sources but refuses non-http schemes', () => {
    expect(sourceHref({ type: 'web', url: 'https://example.com/a', title: 'A' })).toBe('https://example.com/a')
    expect(sourceHref({ type: 'web', url: 'javascript:alert(1)', title: 'bad' })).toBeNull()
    expect(sourceHref({ type: 'file', url: 'javascript:alert(1)', pages: [1] })).toBeNull()
  })
})

describe('pageLabel', () => {
  it('prefers the server-provided page_label', () => {
    expect(pageLabel({ pages: [1], page_label: 'p.13–15' })).toBe('p.13–15')
  })
  it('derives ranges from pages', () => {
    expect(pageLabel({ pages: [5] })).toBe('p.5')
    expect(pageLabel({ pages: [15, 13, 14] })).toBe('p.13–15')
    expect(pageLabel({ pages: [9, 3, 7, 10, 3] })).toBe('p.3, 7, 9–10')
    expect(pageLabel({ pages: [] })).toBe('')
  })
})

describe('helpers', () => {
  it('firstPage ignores invalid entries', () => {
    expect(firstPage({ pages: ['x', 0, 8, 6] })).toBe(6)
    expect(firstPage({})).toBeNull()
  })
  it('safeUrl allows same-origin paths but not protocol-relative ones', () => {
    expect(safeUrl('/api/files/1/download')).toBe('/api/files/1/download')
    expect(safeUrl('//evil.example/x')).toBeNull()
    expect(safeUrl('data:text/html,hi')).toBeNull()
  })
  it('webTitle falls back to the host name', () => {
    expect(webTitle({ url: 'https://news.example.co.kr/a/b', title: '' })).toBe('news.example.co.kr')
    expect(webTitle({ url: 'https://x.example', title: '기사 제목' })).toBe('기사 제목')
  })
})
