// Helpers for the `sources` attached to answers.

/** Only http(s) and same-origin relative URLs may become links. */
export function safeUrl(url) {
  if (typeof url !== 'string') return null
  const trimmed = url.trim()
  if (!trimmed) return null
  if (trimmed.startsWith('/') && !trimmed.startsWith('//')) return trimmed
  try {
    const parsed = new URL(trimmed)
    if (parsed.protocol === 'http:' || parsed.protocol === 'https:') return parsed.href
  } catch {
    // not an absolute URL
  }
  return null
}

function validPages(pages) {
  if (!Array.isArray(pages)) return []
  return pages.map((p) => Number(p)).filter((p) => Number.isInteger(p) && p > 0)
}

/** First cited page (lowest number), or null. */
export function firstPage(source) {
  const pages = validPages(source?.pages)
  return pages.length ? Math.min(...pages) : null
}

/**
 * Human page label: the server's `page_label` when given, else derived from
 * `pages` ("p.5", "p.13–15", "p.3, 7, 9–10").
 */
export function pageLabel(source) {
  if (source?.page_label) return String(source.page_label)
  const pages = [...new Set(validPages(source?.pages))].sort((a, b) => a - b)
  if (!pages.length) return ''
  const parts = []
  let start = pages[0]
  let prev = pages[0]
  for (const p of pages.slice(1).concat([NaN])) {
    if (p === prev + 1) {
      prev = p
      continue
    }
    parts.push(start === prev ? `${start}` : `${start}–${prev}`)
    start = p
    prev = p
  }
  return `p.${parts.join(', ')}`
}

/**
 * Link target for a source. File sources point at their download URL (or
 * /api/files/{file_id}/download) with `#page=N` for the first cited page so
 * the browser's PDF viewer opens there. Web sources use their URL.
 */
export function sourceHref(source) {
  if (!source) return null
  if (source.type === 'web') return safeUrl(source.url)
  let base = safeUrl(source.url)
  if (!base && source.file_id) base = `/api/files/${encodeURIComponent(source.file_id)}/download`
  if (!base) return null
  base = base.split('#')[0]
  const page = firstPage(source)
  return page ? `${base}#page=${page}` : base
}

/** Text shown for a web source: its title, else the host name, else the URL. */
export function webTitle(source) {
  if (source?.title) return String(source.title)
  try {
    return new URL(source.url).hostname
  } catch {
    return String(source?.url ?? '')
  }
}
