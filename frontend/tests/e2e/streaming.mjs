#!/usr/bin/env node
// A model's answer grows on the chat page as it is written, then is replaced by the whole answer.
//
// Env: HUB_URL (a hub whose model streams), E2E_QUESTION, E2E_EXPECT (text the streamed answer must hold),
//      E2E_ARTIFACTS (screenshot dir), CHROMIUM_PATH.
import fs from 'node:fs'
import path from 'node:path'
import { chromium } from 'playwright-core'

const HUB_URL = (process.env.HUB_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '') + '/'
const QUESTION = process.env.E2E_QUESTION || ''
const EXPECT = process.env.E2E_EXPECT || ''
const ARTIFACTS = path.resolve(process.env.E2E_ARTIFACTS || 'test-artifacts')
const tid = (id) => `[data-testid="${id}"]`

function fail(message) {
  console.error(`✘ ${message}`)
  process.exit(1)
}

fs.mkdirSync(ARTIFACTS, { recursive: true })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
})
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'en-US' })).newPage()
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  await page.goto(HUB_URL, { waitUntil: 'domcontentloaded', timeout: 30000 })
  await page.waitForSelector(tid('chat-input'), { timeout: 30000 })
  // Record every text the streaming answer shows, in the page itself (no polling gap can hide a piece).
  await page.evaluate(() => {
    window.__seen = []
    new MutationObserver(() => {
      const draft = document.querySelector('[data-testid="answer-message"][data-streaming="true"] [data-testid="answer-body"]')
      const text = draft?.textContent ?? ''
      if (text && window.__seen[window.__seen.length - 1] !== text) window.__seen.push(text)
    }).observe(document.body, { subtree: true, childList: true, characterData: true })
  })
  await page.fill(tid('chat-input'), QUESTION)
  await page.press(tid('chat-input'), 'Enter')
  const shown = await page.waitForSelector(`${tid('answer-message')}[data-streaming="true"]`, { timeout: 120000 })
    .then(() => true, () => false)
  if (!shown) {
    // What the page showed instead, for whoever reads the failure.
    await page.screenshot({ path: path.join(ARTIFACTS, 'stream-0-no-draft.png') })
    const text = (await page.locator('main').textContent().catch(() => '')) || ''
    fail(`no answer was shown while it was being written; page errors: ${JSON.stringify(errors)}; the page reads: ${text.slice(-600)}`)
  }
  await page.screenshot({ path: path.join(ARTIFACTS, 'stream-1-partial.png') })
  await page.waitForSelector(`${tid('answer-message')}[data-streaming="false"]`, { timeout: 120000 })
    .catch(() => fail('the whole answer never replaced the streamed one'))
  await page.screenshot({ path: path.join(ARTIFACTS, 'stream-2-final.png') })
  const seen = await page.evaluate(() => window.__seen)
  const final = await page.locator(`${tid('answer-message')} ${tid('answer-body')}`).last().textContent()
  if (seen.length < 3) fail(`the answer arrived in ${seen.length} piece(s), expected several: ${JSON.stringify(seen)}`)
  for (let i = 1; i < seen.length; i++) {
    if (!seen[i].startsWith(seen[i - 1].trimEnd())) fail(`a streamed text did not extend the previous one: ${JSON.stringify(seen.slice(i - 1, i + 1))}`)
  }
  if (!seen[seen.length - 1].includes(EXPECT)) fail(`the streamed answer lacks ${JSON.stringify(EXPECT)}: ${seen[seen.length - 1]}`)
  if (!final.includes(EXPECT)) fail(`the final answer lacks ${JSON.stringify(EXPECT)}`)
  if ((await page.locator(tid('answer-message')).count()) !== 1) fail('the streamed draft was not replaced in place')
  if (errors.length) fail(`page errors: ${errors.join('; ')}`)
  console.log(`  ✔ the answer grew in ${seen.length} steps, then the whole answer replaced it`)
  console.log('streaming passed')
} finally {
  await browser.close()
}
