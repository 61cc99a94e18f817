#!/usr/bin/env node
// Keyboard and screen-reader checks of the built page in headless Chromium, with the hub's API answered by
// this script (no hub needed): the skip link is the first Tab stop and reaches the chat input; one h1; an
// answer is announced once, in the status region; its quote opens the document viewer, which keeps Tab
// inside, closes on Escape and gives the focus back to the quote; at 390 px a long location chip wraps
// (nothing scrolls sideways); with a report's and a failed file's controls in the file list, axe-core finds no
// WCAG 2.1 AA violation on the chat (Korean and English, desktop and 390 px), the open viewer and the search
// dashboard; in Korean, the chat, the viewer and the dashboard show no
// English words outside names.
//
// Env: E2E_ARTIFACTS (screenshot dir), CHROMIUM_PATH. Reads the built app from dist/.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { createRequire } from 'node:module'
import { chromium } from 'playwright-core'

// axe-core (npm) audits each state for WCAG 2.1 A/AA violations (KWCAG 2.2 follows WCAG 2.1 AA).
const AXE = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']
async function audit(page, where) {
  await page.evaluate(AXE)
  const result = await page.evaluate((tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags } }), WCAG)
  const found = result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join(' | ')}`)
  if (found.length) fail(`axe-core at ${where}: ${found.join('; ')}`)
  console.log(`  ✔ axe-core: no WCAG 2.1 AA violation at ${where} (${result.passes.length} rules pass)`)
}

// Latin-letter words a Korean page may show: the same kind of names as the message catalog allows
// (tests/common/test_korean_messages.py), plus the UI's own. Anything else in Korean mode is an English leftover.
const NAMES = new Set([
  // File formats, protocols and abbreviations Korean IT text writes in Latin letters.
  'PDF', 'DOCX', 'HWP', 'HWPX', 'XLSX', 'PPTX', 'CSV', 'TXT', 'HTML', 'MD', 'A2A', 'MCP', 'URL', 'API', 'LLM', 'OCR',
  'AI', 'SSO',
  // The product's name, and the language switch naming English in English ("EN", as language menus do).
  'Agent', 'Hub', 'EN', 'English',
  // Keys on the keyboard, named as printed on them (the chat box's hint).
  'Enter', 'Shift',
  // Products named in the UI, the currency of search costs, and units of size and time as Korean text writes them.
  'Word', 'Excel', 'Tavily', 'DuckDuckGo', 'OpenAI', 'Postgres', 'USD', 'KB', 'MB', 'GB', 'ms',
])
// Words of `text` outside `NAMES` and outside `data` (what this script's mocked API serves: file names, locations,
// providers, queries, the answer), single letters not counted.
function englishWords(text, data) {
  const rest = data.reduce((t, shown) => t.split(shown).join(' '), text)
  return (rest.match(/(?<![A-Za-z0-9_])[A-Za-z][A-Za-z0-9_]*/g) || []).filter((w) => w.length > 1 && !NAMES.has(w))
}

const DIST = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../dist')
const ORIGIN = 'http://hub.test'
const ARTIFACTS = path.resolve(process.env.E2E_ARTIFACTS || 'test-artifacts')
const tid = (id) => `[data-testid="${id}"]`
const LONG_LOCATION = '부록3_출장비_정산_세부기준_및_증빙서류_제출절차_안내표_제2판_개정본_2026년_12월_시행분_Annex-3-travel-expense-settlement-table-rev2'
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json' }

const FILE = { id: 'f1', name: '출장비_규정.txt', size: 120, content_type: 'text/plain', uploaded_at: '2026-12-01T09:00:00Z',
  index_status: 'indexed', chunks: 2 }
// Files in the other states the list names: skipped (same content) and waiting for the RAG agent.
const OTHER_FILES = [
  { id: 'f2', name: '회의록_12월.hwpx', size: 2048, content_type: 'application/hwp+zip',
    uploaded_at: '2026-12-02T09:00:00Z', index_status: 'skipped', chunks: 0 },
  { id: 'f3', name: '예산안.xlsx', size: 4096,
    content_type: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet', uploaded_at: '2026-12-03T09:00:00Z',
    index_status: 'indexing', index_error: '문서 검색 에이전트에 연결할 수 없어 다시 시도합니다.', chunks: null },
  // A report (one record, Markdown with its DOCX; kept out of the index until added) and a file whose indexing
  // failed: their "문서에 추가" and "다시 색인" buttons and format links are audited too.
  { id: 'f4', name: '출장비_보고서.md', size: 900, content_type: 'text/markdown', uploaded_at: '2026-12-04T09:00:00Z',
    index_status: 'not_indexed', chunks: null, source_kind: 'report',
    alternates: [{ format: 'docx', name: '출장비_보고서.docx', download_url: '/api/files/f4/download?format=docx' }] },
  { id: 'f5', name: '스캔본.pdf', size: 8192, content_type: 'application/pdf', uploaded_at: '2026-12-05T09:00:00Z',
    index_status: 'error', index_error: '문서에서 글자를 찾지 못했습니다. 스캔본이라면 글자가 선명한 파일로 다시 올려 주세요.',
    chunks: null },
]
const QUOTE = { text: '귀국 후 30일 안에 청구합니다', file_id: 'f1', file_name: FILE.name,
  location: { kind: 'section', section: '2' }, label: LONG_LOCATION, url: '/api/files/f1/download' }
const ANSWER = { text: '출장비는 귀국 후 30일 안에 청구합니다.', intent: 'INTERNAL_SEARCH', conversation_id: 'c1',
  sources: [{ type: 'file', file_id: 'f1', file_name: FILE.name, page_label: LONG_LOCATION, url: '/api/files/f1/download' }],
  quotes: [QUOTE],
  usage: { searches: 2, paid_searches: 1, search_cost_usd: 0.008, llm_calls: 1, llm_prompt_tokens: 900,
    llm_completion_tokens: 120, llm_tokens_estimated: true },
  steps: [{ index: 0, agent: 'internal_rag', status: 'ok', elapsed_ms: 900, error: null },
    { index: 1, agent: 'web_research', status: 'unavailable', elapsed_ms: 12, error: 'unreachable' }] }
const TELEMETRY = {
  providers: [{ provider: 'tavily', requests: 30, spend_usd: 0.24, hit_rate: 0.5, p50_ms: 420, p95_ms: 1300 }],
  series: [
    { bucket: '2026-12-01T09:00:00Z', provider: 'tavily', requests: 10, hits: 5, spend_usd: 0.08, p50_ms: 400 },
    { bucket: '2026-12-01T10:00:00Z', provider: 'tavily', requests: 20, hits: 10, spend_usd: 0.16, p50_ms: 440 },
  ],
  recent: [{ time: '2026-12-01T10:05:00Z', agent: 'web_research', query: 'EU AI Act 일정', provider: 'tavily',
    cache: 'semantic', latency_ms: 35, cost_usd: 0, results: 5 }],
}
// What the page shows of the mocked data, as served (not the UI's words).
const SHOWN_DATA = [FILE.name, ...OTHER_FILES.map((f) => f.name), LONG_LOCATION, QUOTE.text, ANSWER.text,
  TELEMETRY.recent[0].query, 'tavily', 'duckduckgo']
const sse = (events) => events.map(([type, data]) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`).join('')
const API = {
  'GET /api/me': { kind: 'local', username: 'local', admin: false, teams: [] },
  'GET /api/health': {
    agents: { orchestrator: { ok: true }, internal_rag: { ok: true }, web_research: { ok: true },
      file_management: { state: 'restarting', restarts: 1 }, report_writing: { ok: false } },
    search: { state: 'down', unreachable: ['tavily', 'duckduckgo'] }, database: { ok: true }, llm: { mode: 'offline' },
    accounts: false,
  },
  'GET /api/files': [FILE, ...OTHER_FILES],
  'GET /api/chats': [],
  'GET /api/search/telemetry': TELEMETRY,
  'GET /api/files/f1': FILE,
  'GET /api/files/f1/passages': { passages: [
    { text: '1. 목적', location: { kind: 'section', section: '1' } },
    { text: '출장비는 귀국 후 30일 안에 청구합니다. 영수증을 붙입니다.', location: { kind: 'section', section: '2' } },
  ] },
}

function fail(message) {
  console.error(`✘ ${message}`)
  process.exit(1)
}

async function serve(route) {
  const request = route.request()
  const url = new URL(request.url())
  if (url.origin !== ORIGIN) return route.abort()
  if (url.pathname === '/api/chat' && request.method() === 'POST') {
    return route.fulfill({ status: 200, contentType: 'text/event-stream', body: sse([
      ['status', { agent: 'internal_rag', stage: 'search', message: '문서 검색 중' }],
      ['delta', { text: '출장비는 ' }], ['delta', { text: '귀국 후 30일 안에 청구합니다.' }],
      ['answer', ANSWER], ['done', {}]]) })
  }
  if (url.pathname.startsWith('/api/')) {
    const body = API[`${request.method()} ${url.pathname}`]
    return route.fulfill(body === undefined ? { status: 404, json: { detail: 'not mocked' } } : { status: 200, json: body })
  }
  const file = path.join(DIST, url.pathname === '/' ? 'index.html' : url.pathname)
  if (!file.startsWith(DIST) || !fs.existsSync(file)) return route.fulfill({ status: 404, body: '' })
  return route.fulfill({ status: 200, contentType: TYPES[path.extname(file)] || 'application/octet-stream',
    body: fs.readFileSync(file) })
}

// Korean mode speaks Korean: the page's visible text (and the title), and the names assistive technology reads
// (aria-label, title, placeholder, alt), hold no English words outside `NAMES` and the mocked data.
async function koreanOnly(page, where) {
  const texts = await page.evaluate(() => {
    const out = [document.title]
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const el = node.parentElement
      if (!node.textContent.trim() || !el || el.closest('script, style') || !el.checkVisibility()) continue
      out.push(node.textContent)
    }
    for (const el of document.body.querySelectorAll('[aria-label], [title], [placeholder], [alt]')) {
      if (!el.checkVisibility()) continue
      for (const name of ['aria-label', 'title', 'placeholder', 'alt']) {
        if (el.getAttribute(name)) out.push(el.getAttribute(name))
      }
    }
    return out
  })
  const found = texts.flatMap((text) =>
    englishWords(text, SHOWN_DATA).map((word) => `${word} (in ${JSON.stringify(text.trim())})`))
  if (found.length) fail(`English in the Korean page at ${where}: ${[...new Set(found)].join('; ')}`)
  console.log(`  ✔ Korean only at ${where} (${texts.length} texts)`)
}

const focused = (page) => page.evaluate(() => {
  const el = document.activeElement
  return { testid: el?.dataset?.testid || '', id: el?.id || '', inViewer: Boolean(el?.closest('[data-testid="document-viewer"]')) }
})

fs.mkdirSync(ARTIFACTS, { recursive: true })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update',
    '--disable-sync'],
})
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'ko-KR' })
  await context.route('**/*', serve)
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(`${ORIGIN}/`, { waitUntil: 'domcontentloaded', timeout: 30000 })
  await page.waitForSelector(tid('file-row'), { timeout: 30000 })
  for (const control of ['file-add-to-documents', 'file-reindex', 'file-format-link']) {
    if (!(await page.locator(tid(control)).count())) fail(`the file list shows no ${control}`)
  }

  await page.keyboard.press('Tab')
  if ((await focused(page)).testid !== 'skip-link') fail(`the first Tab stop is ${JSON.stringify(await focused(page))}`)
  if (!(await page.locator(tid('skip-link')).isVisible())) fail('the focused skip link is not visible')
  await page.keyboard.press('Enter')
  if ((await focused(page)).id !== 'chat-input') fail(`the skip link led to ${JSON.stringify(await focused(page))}`)
  console.log('  ✔ Tab 1 is the skip link, and it reaches the chat input')
  if ((await page.locator('h1').count()) !== 1) fail(`${await page.locator('h1').count()} h1 elements`)
  console.log('  ✔ one h1')

  await page.keyboard.type('출장비 청구 기한은?')
  await page.keyboard.press('Enter')
  await page.waitForSelector(`${tid('answer-message')}[data-streaming="false"]`, { timeout: 30000 })
  const live = await page.evaluate(() => ({
    inList: document.querySelectorAll('[data-testid="message-list"][aria-live], [data-testid="message-list"] [aria-live]').length,
    said: [...document.querySelectorAll('[data-testid="live-announcer"] p')].map((p) => p.textContent),
  }))
  if (live.inList) fail('the message list still holds a live region')
  if (live.said.filter((s) => s.startsWith('답변이 완료')).length !== 1) fail(`announced: ${JSON.stringify(live.said)}`)
  console.log(`  ✔ the answer is announced once: ${JSON.stringify(live.said)}`)
  await audit(page, 'the chat with an answer (desktop)')
  await page.click(`${tid('answer-steps')} summary`)
  await koreanOnly(page, 'the chat with an answer and its steps')

  const quote = page.locator(tid('quote-item')).first()
  await quote.focus()
  await page.keyboard.press('Enter')
  const viewer = page.locator(tid('document-viewer'))
  await viewer.waitFor({ timeout: 15000 })
  await page.waitForSelector(`${tid('document-viewer')}[data-state="ready"] mark`, { timeout: 15000 })
  if (!(await focused(page)).inViewer) fail('the focus is not in the opened viewer')
  for (let i = 0; i < 6; i++) {
    await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab')
    await page.keyboard.press('Tab')
    if (!(await focused(page)).inViewer) fail(`Tab left the viewer for ${JSON.stringify(await focused(page))}`)
  }
  const named = await page.evaluate(() => document.querySelector('[data-testid="document-viewer"] mark')
    ?.previousElementSibling?.textContent)
  if (!named?.includes('인용된 부분')) fail(`the cited passage is not introduced: ${named}`)
  await audit(page, 'the document viewer')
  await koreanOnly(page, 'the document viewer')
  await page.keyboard.press('Escape')
  await viewer.waitFor({ state: 'detached', timeout: 5000 })
  if ((await focused(page)).testid !== 'quote-item') fail(`closing the viewer left the focus on ${JSON.stringify(await focused(page))}`)
  console.log('  ✔ the viewer keeps Tab inside, closes on Escape and returns the focus to its quote')

  await page.setViewportSize({ width: 390, height: 844 })
  await page.waitForTimeout(300)
  const widths = await page.evaluate(() => {
    const list = document.querySelector('[data-testid="message-list"]')
    return { page: document.scrollingElement.scrollWidth, list: list.scrollWidth, listClient: list.clientWidth }
  })
  await page.screenshot({ path: path.join(ARTIFACTS, 'a11y-390.png') })
  if (widths.page > 390) fail(`the page is ${widths.page}px wide at 390 px`)
  if (widths.list > widths.listClient) fail(`the message list scrolls sideways at 390 px: ${JSON.stringify(widths)}`)
  console.log(`  ✔ at 390 px the long location chip wraps: ${JSON.stringify(widths)}`)
  await audit(page, 'the chat at 390 px')

  await page.setViewportSize({ width: 1280, height: 860 })
  await page.click(tid('lang-en'))
  await page.waitForFunction(() => document.documentElement.lang === 'en', null, { timeout: 5000 })
  await audit(page, 'the chat in English')
  await page.click(tid('nav-dashboard'))
  await page.waitForTimeout(500)
  await audit(page, 'the search dashboard in English')
  await page.click(tid('lang-ko'))
  await page.waitForFunction(() => document.documentElement.lang === 'ko', null, { timeout: 5000 })
  await page.waitForSelector(tid('provider-row'), { timeout: 5000 })
  await koreanOnly(page, 'the search dashboard')
  if (errors.length) fail(`page errors: ${errors.join('; ')}`)
  console.log('a11y passed')
} finally {
  await browser.close()
}
