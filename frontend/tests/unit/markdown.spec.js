import { describe, expect, it } from 'vitest'
import { renderMarkdown } from '../../src/lib/markdown.js'

function dom(html) {
  const div = document.createElement('div')
  div.innerHTML = html
  return div
}

describe('renderMarkdown', () => {
  it('removes event-handler attributes from raw HTML', () => {
    const html = renderMarkdown('hello <img src=x onerror=alert(1)>')
    const root = dom(html)
    const img = root.querySelector('img')
    expect(img).not.toBeNull() // the image itself may stay…
    expect(img.hasAttribute('onerror')).toBe(false) // …but never its handler
    expect(html).not.toMatch(/onerror/i)
  })

  it('removes script tags and javascript: URLs', () => {
    const html = renderMarkdown('<script>window.__x=1</script>\n\n[click](javascript:alert(1)) <a href="javascript:alert(2)">x</a>')
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/javascript:/i)
  })

  it('removes iframes, forms and inline styles', () => {
    const html = renderMarkdown('<iframe src="https://evil.example"></iframe><form><input></form><p style="position:fixed">x</p>')
    const root = dom(html)
    expect(root.querySelector('iframe, form, input')).toBeNull()
    expect(root.querySelector('[style]')).toBeNull()
  })

  it('keeps markdown links and opens them safely in a new tab', () => {
    const root = dom(renderMarkdown('See [the report](https://example.com/r?a=1) and <https://example.org>.'))
    const links = [...root.querySelectorAll('a')]
    expect(links.map((a) => a.getAttribute('href'))).toEqual(['https://example.com/r?a=1', 'https://example.org'])
    for (const a of links) {
      expect(a.getAttribute('target')).toBe('_blank')
      expect(a.getAttribute('rel')).toBe('noopener noreferrer')
    }
  })

  it('renders headings, emphasis, lists, tables and code', () => {
    const root = dom(renderMarkdown('## 제목\n\n**굵게**\n\n- 하나\n- 둘\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n`code`'))
    expect(root.querySelector('h2').textContent).toBe('제목')
    expect(root.querySelector('strong').textContent).toBe('굵게')
    expect(root.querySelectorAll('li')).toHaveLength(2)
    expect(root.querySelector('table td').textContent).toBe('1')
    expect(root.querySelector('code').textContent).toBe('code')
  })

  it('treats null/undefined as empty text', () => {
    expect(renderMarkdown(null)).toBe('')
    expect(renderMarkdown(undefined)).toBe('')
  })
})
