#!/usr/bin/env node
// A new team's first hour with the hub, in headless Chromium against a running hub, as a person sees it (Korean
// UI): with the keyboard only, upload a note, ask about it, reach the cited passage and close it; upload four
// more formats; ask about a fact of one's own file while the web is down; follow up (the question shown is the
// one typed, never the internal rewrite); ask for a report on a documented topic (it states the documents' facts
// and is saved as one file with both formats, searched only once added to the documents); rename a file through the chat; delete the note; ask about the
// deleted note (its fact is gone). Each step asserts what the page shows; screenshots of every step, and of the
// failure, go to E2E_ARTIFACTS.
//
// Env: HUB_URL, E2E_ARTIFACTS, CHROMIUM_PATH, HUB_TOKEN (when the hub asks for one), E2E_ANSWER_TIMEOUT_MS, and
// E2E_SCENARIO: a JSON file naming the files and the questions with what their answers must (not) hold:
//   { "keyboard_file": path, "files": [paths], "ask": {question, expect}, "follow_up": {question, expect, absent},
//     "report": {question, expect_any: [facts]}, "rename": {question, from, to}, "delete": file name,
//     "ask_deleted": {question, absent} }
import fs from 'node:fs'
import path from 'node:path'
import {
  ARTIFACTS, E2EFailure, HUB_URL, INDEX_TIMEOUT, ask, check, counts, fail, drive, openHub,
  screenshot, squash, tid, uploadAndIndex, waitForReply, waitIndexed,
} from './lib.mjs'

const ANSWER_TIMEOUT = Number(process.env.E2E_ANSWER_TIMEOUT_MS || 180000)
if (!process.env.E2E_SCENARIO) {
  console.error('E2E_SCENARIO (a JSON file) is required')
  process.exit(2)
}
const SCENARIO = JSON.parse(fs.readFileSync(process.env.E2E_SCENARIO, 'utf8'))

const focused = (page) => page.evaluate(() => {
  const el = document.activeElement
  return { testid: el?.dataset?.testid || '', id: el?.id || '', tag: el?.tagName || '',
    inViewer: Boolean(el?.closest('[data-testid="document-viewer"]')),
    quote: el?.closest('[data-testid="quote-item"]')?.innerText || '' }
})

/** Presses `key` until the focus is where `want` says, at most `limit` times; returns how many presses it took. */
async function tabTo(page, want, key = 'Tab', limit = 40) {
  for (let presses = 1; presses <= limit; presses++) {
    await page.keyboard.press(key)
    if (want(await focused(page))) return presses
  }
  return fail(`${limit} presses of ${key} never reached it (focus on ${JSON.stringify(await focused(page))})`)
}

const rows = (page) => page.locator(tid('file-row'))
const fileNames = (page) => page.locator(`${tid('file-row')} ${tid('file-link')}`).allInnerTexts()

/** The answer's text: its body plus the quotes and the names of its sources. */
async function answerText(answer) {
  return (await answer.innerText()).replace(/\s+/g, ' ')
}

async function askAndRead(page, question) {
  const before = await ask(page, question)
  const answer = await waitForReply(page, before.answers, before.errors, ANSWER_TIMEOUT)
  await page.waitForSelector(`${tid('answer-message')}[data-streaming="false"]`, { timeout: ANSWER_TIMEOUT })
    .catch(() => {})
  return { answer, text: await answerText(answer) }
}

async function main() {
  fs.mkdirSync(ARTIFACTS, { recursive: true })
  console.log(`Agent Hub first hour → ${HUB_URL} (artifacts: ${ARTIFACTS})`)
  await drive(async ({ page }) => {
    await check('open the hub in Korean', async () => {
      await openHub(page)
      const lang = await page.evaluate(() => document.documentElement.lang)
      if (lang !== 'ko') fail(`the page's language is "${lang}"`)
      await screenshot(page, 'hour-01-open.png')
    })

    const noteName = path.basename(SCENARIO.keyboard_file)
    await check('keyboard only: Tab to the file picker and upload the note', async () => {
      const presses = await tabTo(page, (f) => f.testid === 'upload-input')
      const chooser = page.waitForEvent('filechooser', { timeout: 10000 })
      await page.keyboard.press('Space')
      const picker = await chooser.catch(() => fail('Space on the focused file picker opened no file chooser'))
      const uploaded = page.waitForResponse(
        (r) => new URL(r.url()).pathname === '/api/files' && r.request().method() === 'POST', { timeout: 60000 })
      await picker.setFiles(SCENARIO.keyboard_file)
      const response = await uploaded
      if (!response.ok()) fail(`the upload answered ${response.status()}`)
      const id = (await response.json()).id
      const status = await waitIndexed(page, id)
      if (status !== 'indexed') fail(`${noteName} is "${status}"`)
      const said = await page.evaluate(() => [...document.querySelectorAll('[data-testid="live-announcer"] p')]
        .map((p) => p.textContent).join(' | '))
      if (!said.includes(noteName)) fail(`the upload's result was not announced (announced: ${said})`)
      return `${presses} Tab presses to the picker; announced "${said.slice(-80)}"`
    })

    await check('keyboard only: skip link → chat box, ask, reach the citation, open and close it', async () => {
      await page.keyboard.press('Shift+Tab') // leave wherever the focus is for the top of the page
      await page.evaluate(() => document.activeElement?.blur())
      const toSkip = await tabTo(page, (f) => f.testid === 'skip-link')
      await page.keyboard.press('Enter')
      if ((await focused(page)).id !== 'chat-input') fail(`the skip link led to ${JSON.stringify(await focused(page))}`)
      const before = {
        answers: await page.locator(tid('answer-message')).count(), errors: await page.locator(tid('error-message')).count(),
      }
      await page.keyboard.type(SCENARIO.ask.question)
      await page.keyboard.press('Enter')
      const answer = await waitForReply(page, before.answers, before.errors, ANSWER_TIMEOUT)
      await page.waitForSelector(`${tid('answer-message')}[data-streaming="false"]`, { timeout: ANSWER_TIMEOUT })
      const text = await answerText(answer)
      if (!text.includes(SCENARIO.ask.expect)) fail(`the answer lacks "${SCENARIO.ask.expect}": ${text.slice(0, 300)}`)
      if ((await focused(page)).id !== 'chat-input') await tabTo(page, (f) => f.id === 'chat-input')
      // Backwards from the chat box: the answer's quotes, last first, until the one stating the answer.
      const toQuote = await tabTo(page, (f) => f.quote.includes(SCENARIO.ask.expect), 'Shift+Tab')
      await page.keyboard.press('Enter')
      const viewer = page.locator(tid('document-viewer'))
      await viewer.waitFor({ timeout: 15000 }).catch(() => fail('Enter on the quote opened no viewer'))
      await page.waitForSelector(`${tid('document-viewer')}[data-state="ready"] mark`, { timeout: 30000 })
        .catch(() => fail('the viewer shows no highlighted passage'))
      const marked = squash(await viewer.locator('mark').first().innerText())
      if (!marked.includes(squash(SCENARIO.ask.expect))) fail(`the highlighted passage is "${marked}"`)
      for (let i = 0; i < 6; i++) {
        await page.keyboard.press(i % 2 ? 'Shift+Tab' : 'Tab')
        if (!(await focused(page)).inViewer) fail(`Tab left the viewer for ${JSON.stringify(await focused(page))}`)
      }
      await screenshot(page, 'hour-02-keyboard-viewer.png')
      await page.keyboard.press('Escape')
      await viewer.waitFor({ state: 'detached', timeout: 5000 }).catch(() => fail('Escape did not close the viewer'))
      if (!(await focused(page)).quote.includes(SCENARIO.ask.expect)) fail(`closing left the focus on ${JSON.stringify(await focused(page))}`)
      return `${toSkip} Tab to the skip link, ${toQuote} Shift+Tab from the chat box to the quote`
    })

    await check(`upload ${SCENARIO.files.length} more formats and see each indexed`, async () => {
      const seen = []
      for (const file of SCENARIO.files) {
        const id = await uploadAndIndex(page, file)
        const row = page.locator(`${tid('file-row')}[data-file-id="${id}"]`)
        const status = await row.locator(tid('file-status')).getAttribute('data-status')
        if (status !== 'indexed') {
          fail(`${path.basename(file)} is "${status}": ${await row.locator(tid('file-status-reason')).innerText().catch(() => '')}`)
        }
        seen.push(path.extname(file))
      }
      await screenshot(page, 'hour-03-files.png')
      return seen.join(' ')
    })

    await check('ask about one\'s own file while the web is down: answered from it, the note cited', async () => {
      const { answer, text } = await askAndRead(page, SCENARIO.ask.question)
      if (!text.includes(SCENARIO.ask.expect)) fail(`the answer lacks "${SCENARIO.ask.expect}": ${text.slice(0, 300)}`)
      const cited = await answer.locator(`${tid('source-link')}[data-source-type="file"]`).allInnerTexts()
      if (!cited.some((c) => c.includes(noteName))) fail(`the note is not cited (sources: ${cited.join(', ')})`)
      await screenshot(page, 'hour-04-own-file.png')
      return `cites ${noteName}`
    })

    await check('follow up: answered in context, the question shown as typed', async () => {
      const { text } = await askAndRead(page, SCENARIO.follow_up.question)
      if (!text.includes(SCENARIO.follow_up.expect)) {
        fail(`the follow-up's answer lacks "${SCENARIO.follow_up.expect}": ${text.slice(0, 300)}`)
      }
      if (SCENARIO.follow_up.absent && text.includes(SCENARIO.follow_up.absent)) {
        fail(`the follow-up's answer is about something else ("${SCENARIO.follow_up.absent}"): ${text.slice(0, 300)}`)
      }
      const shown = (await page.locator(tid('user-message')).last().innerText()).trim()
      if (shown !== SCENARIO.follow_up.question) fail(`the page shows "${shown}" for the follow-up`)
      await screenshot(page, 'hour-05-follow-up.png')
    })

    let reportName = ''
    await check('ask for a report: it states the documents\' facts and is one file with both formats', async () => {
      const before = await fileNames(page)
      const { answer, text } = await askAndRead(page, SCENARIO.report.question)
      const facts = SCENARIO.report.expect_any.filter((fact) => text.includes(fact))
      if (!facts.length) fail(`the report states none of ${JSON.stringify(SCENARIO.report.expect_any)}: ${text.slice(0, 400)}`)
      const links = await answer.locator(`${tid('answer-body')} a[href*="/download"]`).evaluateAll(
        (as) => as.map((a) => a.getAttribute('href')))
      if (!links.some((h) => /format=docx/.test(h)) || !links.some((h) => !/format=docx/.test(h))) {
        fail(`the reply does not link both formats: ${JSON.stringify(links)}`)
      }
      await page.waitForFunction((n) => document.querySelectorAll('[data-testid="file-row"]').length > n, before.length,
        { timeout: 15000 }).catch(() => fail('the report is not in the file list'))
      const added = (await fileNames(page)).filter((n) => !before.includes(n))
      if (added.length !== 1) fail(`the report added ${added.length} files: ${added.join(', ')}`)
      reportName = added[0]
      for (const href of links) {
        const res = await page.request.get(new URL(href, page.url()).href)
        if (res.status() !== 200 || !(await res.body()).length) fail(`${href} answered ${res.status()}`)
      }
      const row = rows(page).filter({ hasText: added[0] })
      const formats = await row.locator(tid('file-format-link')).evaluateAll((as) => as.map((a) => a.dataset.format))
      if (!formats.includes('md') || !formats.includes('docx')) fail(`the report's row offers ${JSON.stringify(formats)}`)
      await screenshot(page, 'hour-06-report.png')
      return `facts ${facts.join(', ')}; one file: ${added[0]} (${formats.join(', ')})`
    })

    await check('the report is the asker\'s, not searched until added to the documents; added, it is indexed', async () => {
      const row = rows(page).filter({ hasText: reportName })
      const status = await row.locator(tid('file-status')).getAttribute('data-status')
      if (status !== 'not_indexed') fail(`a new report is "${status}"`)
      await row.locator(tid('file-add-to-documents')).click()
      await row.locator(`${tid('file-status')}[data-status="indexed"]`).waitFor({ timeout: INDEX_TIMEOUT })
        .catch(() => fail('the report was not indexed after 문서에 추가'))
    })

    await check('rename a file through the chat', async () => {
      await askAndRead(page, SCENARIO.rename.question)
      await page.waitForFunction((name) => [...document.querySelectorAll('[data-testid="file-link"]')]
        .some((a) => a.textContent.trim() === name), SCENARIO.rename.to, { timeout: 15000 })
        .catch(() => fail(`no file named ${SCENARIO.rename.to} in the list`))
      const names = await fileNames(page)
      if (names.includes(SCENARIO.rename.from)) fail(`${SCENARIO.rename.from} is still listed`)
      await screenshot(page, 'hour-07-renamed.png')
    })

    await check('delete the note through its confirmation dialog', async () => {
      const row = rows(page).filter({ hasText: SCENARIO.delete })
      if ((await row.count()) !== 1) fail(`${await row.count()} rows named ${SCENARIO.delete}`)
      await row.locator(tid('file-delete')).click()
      await page.click(tid('confirm-ok'))
      await row.waitFor({ state: 'detached', timeout: 15000 }).catch(() => fail('the note is still listed'))
    })

    await check('ask about the deleted note: its fact is gone, it is not cited', async () => {
      const { answer, text } = await askAndRead(page, SCENARIO.ask_deleted.question)
      if (text.includes(SCENARIO.ask_deleted.absent)) fail(`the answer still says "${SCENARIO.ask_deleted.absent}"`)
      const cited = await answer.locator(`${tid('source-link')}[data-source-type="file"]`).allInnerTexts()
      if (cited.some((c) => c.includes(SCENARIO.delete))) fail(`the deleted note is cited: ${cited.join(', ')}`)
      await screenshot(page, 'hour-08-deleted.png')
      return text.slice(0, 80)
    })

  })
  console.log(`first hour passed: ${counts.passed} checks`)
}

main().catch((err) => {
  console.error(`✖ first hour failed — ${err instanceof E2EFailure ? err.message : err?.stack || err}`)
  process.exitCode = 1
})
