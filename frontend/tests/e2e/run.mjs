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
import {
  ARTIFACTS, E2EFailure, HUB_URL, check, counts, fail, drive, openHub, openQuote,
  screenshot, tid, uploadAndIndex, waitForReply, waitIndexed, ask,
} from './lib.mjs'

const QUESTION = process.env.E2E_QUESTION || '업로드한 문서의 주요 내용을 요약해 줘'
const FALLBACK_QUESTION = process.env.E2E_FALLBACK_QUESTION || ''
const ANSWER_TIMEOUT = Number(process.env.E2E_ANSWER_TIMEOUT_MS || 180000)
const DOCX = process.env.E2E_DOCX || ''
const DOCX_QUESTION = process.env.E2E_DOCX_QUESTION || ''
const XSS_PAYLOAD = '<img src=x onerror="window.__xss=1">'

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

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  const pdfPath = resolvePdf()
  const pdfName = path.basename(pdfPath)
  console.log(`Agent Hub E2E → ${HUB_URL}`)
  console.log(`  PDF: ${pdfPath}`)
  console.log(`  artifacts: ${ARTIFACTS}`)

  await drive(async ({ page, context, watch }) => {

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
      const status = await waitIndexed(page, fileId)
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
      watch(mobile)
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
  })
  console.log(`E2E passed: ${counts.passed} checks`)
}

main().catch(async (err) => {
  console.error(`✖ E2E failed — ${err instanceof E2EFailure ? err.message : err?.stack || err}`)
  process.exitCode = 1
})
