// Quoted passages: where a quote sits in a run of text pieces (a PDF page's text items, a passage), the
// location a quote was cited at, and an answer's text without its source section (the page shows the
// structured sources instead).

/** Text as compared: NFKC, curly quotes straightened, no whitespace (PDF and OCR spacing differ). */
export function squash(text) {
  return String(text ?? '')
    .normalize('NFKC')
    .replace(/[\u2018\u2019]/g, "'")
    .replace(/[\u201c\u201d]/g, '"')
    .replace(/\s+/g, '')
}

/**
 * Indices of the pieces that hold `quote` when the pieces are read in order (whitespace ignored).
 * A quote that does not occur whole is looked for by its first 40 characters, then its last 40.
 */
export function quotedPieces(pieces, quote) {
  const owners = []
  let joined = ''
  pieces.forEach((piece, index) => {
    const part = squash(piece)
    joined += part
    for (let i = 0; i < part.length; i++) owners.push(index)
  })
  const wanted = squash(quote)
  if (!wanted) return []
  for (const probe of [wanted, wanted.slice(0, 40), wanted.slice(-40)]) {
    const at = probe.length >= 8 || probe === wanted ? joined.indexOf(probe) : -1
    if (at >= 0) return [...new Set(owners.slice(at, at + probe.length))]
  }
  return []
}

/** Split `text` into [before, quoted, after] around the quote (whitespace-insensitive); null when absent. */
export function splitAtQuote(text, quote) {
  const source = String(text ?? '')
  const chars = []
  for (let i = 0; i < source.length; i++) if (!/\s/.test(source[i])) chars.push(i)
  const positions = quotedPieces(chars.map((i) => source[i]), quote)
  if (!positions.length) return null
  const start = chars[positions[0]]
  const end = chars[positions[positions.length - 1]] + 1
  return [source.slice(0, start), source.slice(start, end), source.slice(end)]
}

/** Whether two locations name the same place (page, slide, sheet rows or heading). */
export function sameLocation(a, b) {
  if (!a || !b || a.kind !== b.kind) return false
  if (a.kind === 'page') return a.page === b.page
  if (a.kind === 'slide') return a.slide === b.slide
  if (a.kind === 'sheet') return a.sheet === b.sheet && a.rows === b.rows
  return (a.heading || '') === (b.heading || '')
}

const SOURCE_HEADERS = new Set(['**출처:**', '**Sources:**'])

/**
 * The answer text without its source sections ("**출처:**" and the list under it, "파일 위치" lines): the page
 * lists the structured sources once, below the answer. A section ends at the next heading or blank line
 * that is followed by something other than a list item.
 */
export function withoutSourceSections(text) {
  const out = []
  let skipping = false
  for (const line of String(text ?? '').split('\n')) {
    const trimmed = line.trim()
    if (SOURCE_HEADERS.has(trimmed)) {
      skipping = true
      continue
    }
    if (skipping) {
      if (!trimmed || /^[-*]\s/.test(trimmed) || /^(파일 위치|Location):/.test(trimmed)) continue
      skipping = false
    }
    out.push(line)
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()
}

/**
 * The answer text without the blockquotes the page lists as structured quotes (each quoted line and its
 * "— file, location" attribution): the quote list below the answer shows them once, each opening the viewer.
 */
export function withoutQuotedBlocks(text, quotes) {
  const quoted = (quotes || []).map((q) => squash(q?.text)).filter(Boolean)
  if (!quoted.length) return String(text ?? '')
  const lines = String(text ?? '').split('\n')
  const out = []
  for (let i = 0; i < lines.length; i++) {
    const match = /^\s*>\s?(.*)$/.exec(lines[i])
    const body = match ? squash(match[1]) : ''
    if (match && body && quoted.some((q) => q.includes(body) || body.includes(q))) {
      const next = /^\s*>\s?[—–-]{1,2}\s/.exec(lines[i + 1] || '')
      if (next) i++
      continue
    }
    out.push(lines[i])
  }
  return out.join('\n').replace(/\n{3,}/g, '\n\n').trim()
}

const FILE_URL = /\/api\/files\/([^/\s)]+)\/download[^\s)]*/g
const LOCATION_LINE = /^(\s*)(파일 위치|Location):\s*(\S+)\s*$/

/**
 * The answer as it is copied ("답변 복사"): a hub download link means nothing once pasted, so each one gives
 * way to its file's name. A "파일 위치" line under a source that already names its file goes; a markdown link
 * to a file keeps its text; any other link to a file becomes the file's name (from `sources`).
 */
export function copyableText(text, sources) {
  const names = new Map()
  for (const s of sources || []) {
    if (s?.file_id && s?.file_name) names.set(String(s.file_id), String(s.file_name))
  }
  const nameOf = (id) => names.get(decodeURIComponent(id)) || names.get(id) || ''
  const out = []
  for (const line of String(text ?? '').split('\n')) {
    const location = LOCATION_LINE.exec(line)
    const target = location && new RegExp(FILE_URL.source).exec(location[3])
    if (target) {
      const name = nameOf(target[1])
      const previous = out.at(-1) || ''
      if (!name || previous.includes(name)) continue
      out.push(`${location[1]}${location[2]}: ${name}`)
      continue
    }
    out.push(
      line
        .replace(/\[([^\]]*)\]\(\/api\/files\/[^)\s]*\)/g, (_, label) => label)
        .replace(FILE_URL, (_, id) => nameOf(id)),
    )
  }
  return out.join('\n')
}
