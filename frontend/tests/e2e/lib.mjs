// Helpers shared by the browser scripts that drive a running hub (run.mjs, first_hour.mjs): open the page (signing
// in with HUB_TOKEN when asked), upload and wait for indexing, ask and wait for the reply, open a quote in the
// viewer, screenshots. Env: HUB_URL, E2E_ARTIFACTS, HUB_TOKEN, CHROMIUM_PATH, E2E_INDEX_TIMEOUT_MS.
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const here = path.dirname(fileURLToPath(import.meta.url))
export const frontendDir = path.resolve(here, '..', '..')
export const HUB_URL = (process.env.HUB_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '') + '/'
export const ARTIFACTS = path.resolve(process.env.E2E_ARTIFACTS || path.join(frontendDir, 'test-artifacts'))
export const INDEX_TIMEOUT = Number(process.env.E2E_INDEX_TIMEOUT_MS || 180000)

/** Debian's headless Chromium, without the background traffic a test does not want. */
export function launchBrowser() {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync'],
  })
}

export const tid = (id) => `[data-testid="${id}"]`
/** Checks passed so far (`check` counts them). */
export const counts = { passed: 0 }

export class E2EFailure extends Error {}
export function fail(message) {
  throw new E2EFailure(message)
}
export async function check(name, fn) {
  const started = Date.now()
  try {
    const result = await fn()
    counts.passed++
    console.log(`  ✔ ${name} (${Date.now() - started} ms)${result ? ` — ${result}` : ''}`)
    return result
  } catch (err) {
    const reason = err instanceof E2EFailure ? err.message : `${err?.name || 'Error'}: ${err?.message || err}`
    throw new E2EFailure(`${name}: ${reason}`)
  }
}

// Records, via a MutationObserver, every progress line and upload progress bar
// that ever appears, so short-lived elements are not missed.
export function installRecorder() {
  if (window.__e2e) return
  const seen = { progress: [], uploadProgress: 0 }
  window.__e2e = seen
  const scan = () => {
    document.querySelectorAll('[data-testid="progress-line"]').forEach((el) => {
      const text = (el.innerText || el.textContent).replace(/\s+/g, ' ').trim()
      if (text && !seen.progress.includes(text)) seen.progress.push(text)
    })
    if (document.querySelector('[data-testid="upload-progress"]')) seen.uploadProgress++
  }
  new MutationObserver(scan).observe(document, { subtree: true, childList: true, characterData: true, attributes: true })
  scan()
}

export async function screenshot(page, name) {
  const file = path.join(ARTIFACTS, name)
  await page.screenshot({ path: file, fullPage: false })
  return file
}

export async function openHub(page) {
  const res = await page.goto(HUB_URL, { waitUntil: 'domcontentloaded', timeout: 30000 })
  if (!res || !res.ok()) fail(`GET ${HUB_URL} answered ${res ? res.status() : 'nothing'}`)
  await page.waitForSelector(tid('chat-input'), { timeout: 30000 })
  await page.waitForLoadState('networkidle', { timeout: 15000 }).catch(() => {})
  if (await page.locator(tid('login-view')).isVisible()) {
    if (!process.env.HUB_TOKEN) fail('the hub asks for a token: set HUB_TOKEN')
    if (await page.locator(tid('login-switch')).isVisible()) await page.click(tid('login-switch'))
    await page.fill(tid('login-token'), process.env.HUB_TOKEN)
    await page.click(tid('login-submit'))
    await page.waitForSelector(tid('login-view'), { state: 'detached', timeout: 15000 }).catch(async () => {
      const msg = await page.locator(tid('login-error')).textContent().catch(() => '')
      fail(`login failed ${msg}`)
    })
  }
}

export const squash = (text) => String(text || '').normalize('NFKC').replace(/\s+/g, '')

/** Waits until the file list shows file `id` done with indexing (any status but `indexing`); returns that status. */
export async function waitIndexed(page, id) {
  await page
    .waitForFunction(
      (fid) => {
        const el = document.querySelector(`[data-testid="file-row"][data-file-id="${fid}"] [data-testid="file-status"]`)
        return el && el.dataset.status !== 'indexing'
      },
      id,
      { timeout: INDEX_TIMEOUT, polling: 250 },
    )
    .catch(() => fail(`still indexing after ${INDEX_TIMEOUT} ms`))
  return page.locator(`[data-testid="file-row"][data-file-id="${id}"] [data-testid="file-status"]`).getAttribute('data-status')
}

/** Uploads a file through the file panel and waits until it is indexed; returns its id. */
export async function uploadAndIndex(page, filePath) {
  const responseP = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/files' && r.request().method() === 'POST',
    { timeout: 120000 },
  )
  await page.setInputFiles(tid('upload-input'), filePath)
  const response = await responseP
  if (!response.ok()) fail(`POST /api/files answered ${response.status()}: ${(await response.text()).slice(0, 300)}`)
  const id = (await response.json())?.id
  if (!id) fail('upload response has no id')
  await waitIndexed(page, id)
  return id
}

/**
 * Clicks the answer's first quote of `fileName`, waits for the viewer, checks that what is highlighted is the
 * quoted sentence, takes a desktop and a 390 px screenshot, closes the viewer; returns what it saw.
 */
export async function openQuote(page, answer, fileName, shot) {
  const items = answer.locator(tid('quote-item')).filter({ hasText: fileName })
  if (!(await items.count())) fail(`the answer has no clickable quote of ${fileName}`)
  const item = items.first()
  const quoted = (await item.locator('.quote-text').innerText()).replace(/^“|”$/g, '')
  const viewer = page.locator(tid('document-viewer'))
  const size = page.viewportSize()
  let seen = ''
  for (const [width, height, name] of [[size.width, size.height, 'desktop'], [390, 844, '390']]) {
    await page.setViewportSize({ width, height })
    await item.scrollIntoViewIfNeeded()
    await item.click()
    await viewer.waitFor({ timeout: 15000 }).catch(() => fail('the document viewer did not open'))
    await page
      .waitForFunction(() => {
        const v = document.querySelector('[data-testid="document-viewer"]')
        return v && v.dataset.state !== 'loading' && Number(v.dataset.highlights) > 0
      }, null, { timeout: 30000, polling: 100 })
      .catch(async () => fail(`nothing highlighted in the viewer (state ${await viewer.getAttribute('data-state')})`))
    const marks = await viewer.locator(tid('viewer-highlight')).allTextContents()
    const marked = squash(marks.join(''))
    if (!marked || !(squash(quoted).includes(marked) || marked.includes(squash(quoted)))) {
      fail(`the highlight "${marked.slice(0, 80)}" is not the quote "${squash(quoted).slice(0, 80)}"`)
    }
    const frame = await viewer.boundingBox()
    if (!frame || frame.width > width) fail(`the viewer is ${frame?.width} px wide on a ${width} px screen`)
    const box = await viewer.locator(tid('viewer-highlight')).first().boundingBox()
    if (!box || box.y < frame.y || box.y > frame.y + frame.height) fail(`the highlight is not in view at ${width} px`)
    if (box.x < frame.x - 1 || box.x > frame.x + frame.width) fail(`the highlight is off screen at ${width} px`)
    const where = (await viewer.locator(tid('viewer-location')).innerText().catch(() => '')).trim()
    await screenshot(page, `${shot}-${name}.png`)
    await page.click(tid('viewer-close'))
    await viewer.waitFor({ state: 'detached', timeout: 5000 })
    seen = `${where}: "${quoted.slice(0, 60)}…" highlighted (${marks.length} pieces)`
  }
  await page.setViewportSize(size)
  return seen
}

/** Waits until the running chat request finishes; returns the new answer or error element. */
export async function waitForReply(page, answersBefore, errorsBefore, timeout) {
  await page.waitForFunction(
    ([a, e]) =>
      document.querySelectorAll('[data-testid="answer-message"]').length > a ||
      document.querySelectorAll('[data-testid="error-message"]').length > e ||
      document.querySelectorAll('[data-testid="cancelled-message"]').length > 0,
    [answersBefore, errorsBefore],
    { timeout, polling: 100 },
  )
  const errors = page.locator(tid('error-message'))
  if ((await errors.count()) > errorsBefore) fail(`the hub answered with an error: ${(await errors.last().innerText()).trim()}`)
  if ((await page.locator(tid('cancelled-message')).count()) > 0) fail('the request was cancelled')
  return page.locator(tid('answer-message')).last()
}

export async function ask(page, text) {
  const answers = await page.locator(tid('answer-message')).count()
  const errors = await page.locator(tid('error-message')).count()
  await page.fill(tid('chat-input'), text)
  await page.press(tid('chat-input'), 'Enter')
  return { answers, errors }
}

/**
 * Opens a Korean desktop page in a fresh Chromium (progress recorder installed) and runs `body({ page, context,
 * watch })`; `watch(page)` collects another page's uncaught errors. Uncaught page errors fail the run; on a
 * failure the page's screenshot is kept as failure.png. The browser is closed either way.
 */
export async function drive(body) {
  const browser = await launchBrowser()
  const pageErrors = []
  const watch = (p) => p.on('pageerror', (err) => pageErrors.push(err.message))
  let page
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'ko-KR' })
    await context.addInitScript(installRecorder)
    page = await context.newPage()
    watch(page)
    await body({ page, context, watch })
    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`)
  } catch (err) {
    if (page) {
      const shot = await screenshot(page, 'failure.png').catch(() => null)
      if (shot) console.error(`  screenshot of the failure: ${shot}`)
    }
    throw err
  } finally {
    await browser.close()
  }
}
