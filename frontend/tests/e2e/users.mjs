#!/usr/bin/env node
// An administrator manages people on the users page of a hub with accounts: signs in with a password, makes
// a person in a team, changes the team, and deletes them; a person who is not an administrator has no such tab.
// Screenshots at 1280 px and 390 px.
//
// Env: HUB_URL (a hub with HUB_ADMIN_PASSWORD), E2E_ADMIN_PASSWORD, E2E_USERNAME (the person to make),
//      E2E_ARTIFACTS (screenshot dir), CHROMIUM_PATH.
import fs from 'node:fs'
import path from 'node:path'
import { chromium } from 'playwright-core'

const HUB_URL = (process.env.HUB_URL || 'http://127.0.0.1:8000').replace(/\/+$/, '') + '/'
const ADMIN_PASSWORD = process.env.E2E_ADMIN_PASSWORD || ''
const USERNAME = process.env.E2E_USERNAME || `e2e-${Date.now()}`
const PASSWORD = 'e2e-user-password'
const ARTIFACTS = path.resolve(process.env.E2E_ARTIFACTS || 'test-artifacts')
const tid = (id) => `[data-testid="${id}"]`

function fail(message) {
  console.error(`✘ ${message}`)
  process.exit(1)
}

async function signIn(page, username, password) {
  await page.goto(HUB_URL, { waitUntil: 'domcontentloaded', timeout: 30000 })
  await page.waitForSelector(tid('login-view'), { timeout: 30000 })
  await page.fill(tid('login-username'), username)
  await page.fill(tid('login-password'), password)
  await page.click(tid('login-submit'))
  await page.waitForSelector(tid('login-view'), { state: 'detached', timeout: 15000 })
    .catch(() => fail(`${username} could not sign in`))
}

const row = (name) => `${tid('user-row')}[data-username="${name}"]`

fs.mkdirSync(ARTIFACTS, { recursive: true })
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
})
try {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 }, locale: 'ko-KR' })
  const page = await context.newPage()
  const errors = []
  page.on('pageerror', (err) => errors.push(err.message))
  await signIn(page, 'admin', ADMIN_PASSWORD)
  await page.click(tid('nav-users'), { timeout: 15000 })
  await page.waitForSelector(row('admin'), { timeout: 15000 })

  await page.fill(tid('new-username'), USERNAME)
  await page.fill(tid('new-password'), PASSWORD)
  await page.fill(tid('new-teams'), 'e2e-team')
  await page.click(tid('new-submit'))
  await page.waitForSelector(row(USERNAME), { timeout: 15000 })
  const created = await page.locator(row(USERNAME)).textContent()
  if (!created.includes('e2e-team')) fail(`the new person's row reads ${created}`)
  const team = await page.locator(tid('team-row'), { hasText: 'e2e-team' }).textContent()
  if (!team.includes(USERNAME)) fail(`the team list reads ${team}`)
  await page.screenshot({ path: path.join(ARTIFACTS, 'users-1-desktop.png') })

  await page.locator(row(USERNAME)).locator(tid('user-edit')).click()
  await page.fill(tid('edit-teams'), 'e2e-team, e2e-other')
  await page.click(tid('edit-save'))
  await page.waitForSelector(`${row(USERNAME)}:has-text("e2e-other")`, { timeout: 15000 })

  await page.setViewportSize({ width: 390, height: 844 })
  await page.waitForTimeout(200)
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)
  if (overflow > 1) fail(`the page is ${overflow}px wider than a 390px screen`)
  await page.screenshot({ path: path.join(ARTIFACTS, 'users-2-mobile.png') })
  await page.setViewportSize({ width: 1280, height: 860 })

  // The person signs in elsewhere and sees no users tab, and /api/users refuses them.
  const other = await (await browser.newContext({ viewport: { width: 1280, height: 860 } })).newPage()
  await signIn(other, USERNAME, PASSWORD)
  await other.waitForSelector(tid('nav-dashboard'), { timeout: 15000 })
  if (await other.locator(tid('nav-users')).count()) fail('a person who is not an administrator sees the users tab')
  const status = await other.evaluate(async () => (await fetch('/api/users')).status)
  if (status !== 403) fail(`/api/users answered ${status} to a person who is not an administrator`)

  await page.locator(row(USERNAME)).locator(tid('user-delete')).click()
  await page.click(tid('confirm-ok'))
  await page.waitForSelector(row(USERNAME), { state: 'detached', timeout: 15000 })
  // Their session ended with the account.
  const after = await other.evaluate(async () => (await fetch('/api/me')).status)
  if (after !== 401) fail(`a deleted person's session still answers ${after}`)
  if (errors.length) fail(`page errors: ${JSON.stringify(errors)}`)
  console.log('users passed')
} finally {
  await browser.close()
}
