#!/usr/bin/env node
// End-to-end check of a running Agent Hub through the real UI in headless Chromium.
//
// Env:
//   HUB_URL                hub base URL (default http://127.0.0.1:8000)
//   E2E_PDF                PDF to upload (default: a small generated 3-page PDF)
//   E2E_QUESTION           question to ask about it
//   E2E_FALLBACK_QUESTION  a question the documents do not answer but the web corpus does (optional):
//                          the fallback notice must appear, then a web-sourced answer
//   E2E_ARTIFACTS          screenshot dir (default frontend/test-artifacts)
//   HUB_TOKEN              hub token, used if the hub shows the login view
//   CHROMIUM_PATH          browser binary (default /usr/bin/chromium)
//   E2E_INDEX_TIMEOUT_MS   max wait for indexing (default 180000)
//   E2E_ANSWER_TIMEOUT_MS  max wait for an answer (default 180000)
//   E2E_KEEP_FILE=1        keep the uploaded file instead of deleting it at the end
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chromium } from 'playwright-core'

const here = path.dirname(fileURLToPath(import.meta.url))
const frontendDir = path.resolve(here, '..', '..')

const HUB_URL = (process.env.HUB_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '') + '/'
const QUESTION = process.env.E2E_QUESTION || '업로드한 문서의 주요 내용을 요약해 줘'
const FALLBACK_QUESTION = process.env.E2E_FALLBACK_QUESTION || ''
const ARTIFACTS = path.resolve(process.env.E2E_ARTIFACTS || path.join(frontendDir, 'test-artifacts'))
const INDEX_TIMEOUT = Number(process.env.E2E_INDEX_TIMEOUT_MS || 180000)
const ANSWER_TIMEOUT = Number(process.env.E2E_ANSWER_TIMEOUT_MS || 180000)
const DOCX = process.env.E2E_DOCX || ''
const DOCX_QUESTION = process.env.E2E_DOCX_QUESTION || ''
const XSS_PAYLOAD = '<img src=x onerror="window.__xss=1">'

const tid = (id) => `[data-testid="${id}"]`
let passed = 0

class E2EFailure extends Error {}
function fail(message) {
  throw new E2EFailure(message)
}
async function check(name, fn) {
  const started = Date.now()
  try {
    const result = await fn()
    passed++
    console.log(`  ✔ ${name} (${Date.now() - started} ms)${result ? ` — ${result}` : ''}`)
    return result
  } catch (err) {
    const reason = err instanceof E2EFailure ? err.message : `${err?.name || 'Error'}: ${err?.message || err}`
    throw new E2EFailure(`${name}: ${reason}`)
  }
}

/** A minimal valid multi-page PDF, used when E2E_PDF is not given. */
function makePdf(pages) {
  const objs = []
  const add = (s) => objs.push(s) // object number = index + 1
  add('<< /Type /Catalog /Pages 2 0 R >>')
  add('') // pages, filled below
  add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>')
  const kids = []
  pages.forEach((text) => {
    const stream = `BT /F1 18 Tf 72 720 Td (${text.replace(/[()\\]/g, '\\$&')}) Tj ET`
    add(`<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`)
    const contentNum = objs.length
    add(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${contentNum} 0 R >>`)
    kids.push(`${objs.length} 0 R`)
  })
  objs[1] = `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${kids.length} >>`
  let out = '%PDF-1.4\n'
  const offsets = []
  objs.forEach((o, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'))
    out += `${i + 1} 0 obj\n${o}\nendobj\n`
  })
  const xref = Buffer.byteLength(out, 'latin1')
  out += `xref\n0 ${objs.length + 1}\n0000000000 65535 f \n`
  offsets.forEach((off) => (out += `${String(off).padStart(10, '0')} 00000 n \n`))
  out += `trailer\n<< /Size ${objs.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`
  return Buffer.from(out, 'latin1')
}

function resolvePdf() {
  if (process.env.E2E_PDF) {
    const p = path.resolve(process.env.E2E_PDF)
    if (!fs.existsSync(p)) fail(`E2E_PDF does not exist: ${p}`)
    return p
  }
  const p = path.join(ARTIFACTS, 'e2e-sample.pdf')
  fs.writeFileSync(
    p,
    makePdf([
      'Agent Hub E2E sample - page 1: security policy overview',
      'Page 2: passwords must be at least 12 characters and rotated every 90 days',
      'Page 3: report incidents to the security team within 24 hours',
    ]),
  )
  return p
}

// Records, via a MutationObserver, every progress line and upload progress bar
// that ever appears, so short-lived elements are not missed.
function installRecorder() {
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

async function screenshot(page, name) {
  const file = path.join(ARTIFACTS, name)
  await page.screenshot({ path: file, fullPage: false })
  return file
}

async function openHub(page) {
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

const squash = (text) => String(text || '').normalize('NFKC').replace(/\s+/g, '')

/** Uploads a file through the file panel and waits until it is indexed; returns its id. */
async function uploadAndIndex(page, filePath) {
  const responseP = page.waitForResponse(
    (r) => new URL(r.url()).pathname === '/api/files' && r.request().method() === 'POST',
    { timeout: 120000 },
  )
  await page.setInputFiles(tid('upload-input'), filePath)
  const response = await responseP
  if (!response.ok()) fail(`POST /api/files answered ${response.status()}: ${(await response.text()).slice(0, 300)}`)
  const id = (await response.json())?.id
  if (!id) fail('upload response has no id')
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
  return id
}

/**
 * Clicks the answer's first quote of `fileName`, waits for the viewer, checks that what is highlighted is the
 * quoted sentence, takes a desktop and a 390 px screenshot, closes the viewer; returns what it saw.
 */
async function openQuote(page, answer, fileName, shot) {
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
async function waitForReply(page, answersBefore, errorsBefore, timeout) {
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

async function ask(page, text) {
  const answers = await page.locator(tid('answer-message')).count()
  const errors = await page.locator(tid('error-message')).count()
  await page.fill(tid('chat-input'), text)
  await page.press(tid('chat-input'), 'Enter')
  return { answers, errors }
}

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  const pdfPath = resolvePdf()
  const pdfName = path.basename(pdfPath)
  console.log(`Agent Hub E2E → ${HUB_URL}`)
  console.log(`  PDF: ${pdfPath}`)
  console.log(`  artifacts: ${ARTIFACTS}`)

  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
  const pageErrors = []
  let page
  try {
    const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'ko-KR' })
    await context.addInitScript(installRecorder)
    page = await context.newPage()
    page.on('pageerror', (err) => pageErrors.push(err.message))

    await check('open the hub page', async () => {
      await openHub(page)
      return await page.title()
    })

    let fileId
    await check('upload the PDF with a progress bar', async () => {
      const responseP = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/files' && r.request().method() === 'POST',
        { timeout: 120000 },
      )
      await page.setInputFiles(tid('upload-input'), pdfPath)
      await page.waitForFunction(() => window.__e2e.uploadProgress > 0, null, { timeout: 15000 }).catch(() =>
        fail('no upload progress bar appeared'),
      )
      const response = await responseP
      if (!response.ok()) fail(`POST /api/files answered ${response.status()}: ${(await response.text()).slice(0, 300)}`)
      const record = await response.json()
      if (!record?.id) fail(`upload response has no id: ${JSON.stringify(record).slice(0, 300)}`)
      fileId = record.id
      return `file id ${fileId}`
    })

    await check('file becomes indexed', async () => {
      const row = page.locator(`${tid('file-row')}[data-file-id="${fileId}"]`)
      await row.waitFor({ timeout: 15000 }).catch(() => fail('the uploaded file is not listed'))
      await page
        .waitForFunction(
          (id) => {
            const el = document.querySelector(`[data-testid="file-row"][data-file-id="${id}"] [data-testid="file-status"]`)
            return el && el.dataset.status !== 'indexing'
          },
          fileId,
          { timeout: INDEX_TIMEOUT, polling: 250 },
        )
        .catch(() => fail(`still indexing after ${INDEX_TIMEOUT} ms`))
      const status = await row.locator(tid('file-status')).getAttribute('data-status')
      if (status !== 'indexed') {
        const reason = await row.locator(tid('file-status-reason')).innerText().catch(() => '')
        fail(`index status is "${status}"${reason ? `: ${reason}` : ''}`)
      }
      await screenshot(page, '01-file-indexed.png')
      return status
    })

    let answer
    await check('ask a question: progress line, then answer', async () => {
      const before = await ask(page, QUESTION)
      await page
        .waitForFunction(() => window.__e2e.progress.length > 0, null, { timeout: ANSWER_TIMEOUT, polling: 100 })
        .catch(() => fail('no progress line appeared'))
      answer = await waitForReply(page, before.answers, before.errors, ANSWER_TIMEOUT)
      const body = (await answer.locator(tid('answer-body')).innerText()).trim()
      if (!body) fail('the answer is empty')
      const intent = await answer.getAttribute('data-intent')
      await screenshot(page, '02-answer.png')
      const seen = await page.evaluate(() => window.__e2e.progress)
      return `intent ${intent || '-'}, progress lines seen: ${seen.length} (first: "${seen[0]}")`
    })

    await check('file source links to the PDF page and downloads as application/pdf', async () => {
      const link = answer.locator(`${tid('source-link')}[data-source-type="file"]`).first()
      if (!(await link.count())) fail('the answer cites no file source')
      const href = await link.getAttribute('href')
      if (!/#page=\d+$/.test(href || '')) fail(`file source href lacks #page=N: ${href}`)
      if ((await link.getAttribute('target')) !== '_blank') fail('file source link does not open in a new tab')
      const url = new URL(href, page.url())
      url.hash = ''
      const res = await page.request.get(url.href)
      const type = res.headers()['content-type'] || ''
      if (res.status() !== 200) fail(`GET ${url.pathname} answered ${res.status()}`)
      if (!type.includes('application/pdf')) fail(`GET ${url.pathname} content-type is "${type}"`)
      return href
    })

    await check('a PDF quote opens in the viewer at its page, the sentence highlighted', async () =>
      openQuote(page, answer, pdfName, '03-viewer-pdf'),
    )

    if (DOCX) {
      await check('a Word answer: its quote opens in the viewer at its section, highlighted', async () => {
        const docxId = await uploadAndIndex(page, DOCX)
        const before = await ask(page, DOCX_QUESTION)
        const docxAnswer = await waitForReply(page, before.answers, before.errors, ANSWER_TIMEOUT)
        const seen = await openQuote(page, docxAnswer, path.basename(DOCX), '04-viewer-docx')
        await page.request.delete(`${HUB_URL}api/files/${docxId}`).catch(() => {})
        return seen
      })
    }

    if (FALLBACK_QUESTION) {
      await check('a question the documents do not answer: fallback notice, then a web answer', async () => {
        const seenBefore = (await page.evaluate(() => window.__e2e.progress)).length
        const before = await ask(page, FALLBACK_QUESTION)
        const reply = await waitForReply(page, before.answers, before.errors, ANSWER_TIMEOUT)
        const lines = (await page.evaluate(() => window.__e2e.progress)).slice(seenBefore)
        const notice = lines.find((line) => /웹에서 검색|Searching the web/.test(line))
        if (!notice) fail(`no fallback notice among the progress lines: ${JSON.stringify(lines).slice(0, 600)}`)
        const web = reply.locator(`${tid('source-link')}[data-source-type="web"]`)
        if (!(await web.count())) fail('the fallback answer cites no web source')
        const body = (await reply.locator(tid('answer-body')).innerText()).trim()
        if (!body || /관련 정보를 찾을 수 없습니다|No relevant information/.test(body)) fail(`no web answer: ${body}`)
        await screenshot(page, '02b-fallback.png')
        return `notice "${notice}", ${await web.count()} web source(s)`
      })
    }

    await check('HTML in a message does not run script', async () => {
      const before = await ask(page, XSS_PAYLOAD)
      await waitForReply(page, before.answers, before.errors, ANSWER_TIMEOUT).catch((err) => {
        // An error reply is acceptable here; only script execution matters.
        if (!(err instanceof E2EFailure) || !/error/.test(err.message)) throw err
      })
      await page.waitForTimeout(1000) // give a broken <img> time to fire onerror
      const xss = await page.evaluate(() => window.__xss)
      if (xss !== undefined) fail(`window.__xss was set to ${xss}`)
      const live = await page.evaluate(() => document.querySelectorAll('[data-testid="message-list"] [onerror]').length)
      if (live) fail(`${live} element(s) with an onerror attribute in the message list`)
      const shown = await page.locator(tid('user-message')).last().innerText()
      if (!shown.includes('<img')) fail(`the user message is not shown literally: ${shown}`)
      await screenshot(page, '03-xss.png')
    })

    await check('dashboard page renders', async () => {
      await page.click(tid('nav-dashboard'))
      await page.waitForSelector(`${tid('search-dashboard')} ${tid('provider-table')}`, { timeout: 15000 })
      await page.waitForLoadState('networkidle', { timeout: 10000 }).catch(() => {})
      await screenshot(page, '04-dashboard.png')
      await page.click(tid('nav-chat'))
    })

    await check('mobile (390px): history restored, chat and dashboard fit the width', async () => {
      const mobile = await context.newPage()
      mobile.on('pageerror', (err) => pageErrors.push(err.message))
      await mobile.setViewportSize({ width: 390, height: 844 })
      await openHub(mobile)
      await mobile
        .waitForSelector(tid('answer-message'), { timeout: 15000 })
        .catch(() => fail('conversation history was not restored from GET /api/chats/{id}'))
      const overflow = await mobile.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
      await screenshot(mobile, '05-mobile-chat.png')
      if (overflow > 1) fail(`chat page is ${overflow}px wider than the viewport`)
      await mobile.click(tid('nav-dashboard'))
      await mobile.waitForSelector(tid('provider-table'), { timeout: 15000 })
      await mobile.waitForTimeout(300)
      const dashOverflow = await mobile.evaluate(() => {
        const el = document.querySelector('[data-testid="search-dashboard"]')
        return Math.max(el.scrollWidth - el.clientWidth, el.getBoundingClientRect().right - window.innerWidth)
      })
      await screenshot(mobile, '06-mobile-dashboard.png')
      if (dashOverflow > 1) fail(`dashboard is ${dashOverflow}px wider than the viewport`)
      await mobile.close()
    })

    if (!process.env.E2E_KEEP_FILE) {
      await check('delete the uploaded file via the confirmation dialog', async () => {
        const row = page.locator(`${tid('file-row')}[data-file-id="${fileId}"]`)
        await row.locator(tid('file-delete')).click()
        await page.click(tid('confirm-ok'))
        await row.waitFor({ state: 'detached', timeout: 15000 }).catch(() => fail('the file row is still listed'))
      })
    }

    if (pageErrors.length) fail(`uncaught errors in the page: ${pageErrors.join(' | ')}`)
    console.log(`E2E passed: ${passed} checks`)
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

main().catch(async (err) => {
  console.error(`✖ E2E failed — ${err instanceof E2EFailure ? err.message : err?.stack || err}`)
  process.exitCode = 1
})
