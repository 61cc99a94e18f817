// Text colour contrast of the chips and badges, from the stylesheets themselves (WCAG 2.1 AA: 4.5:1 for text
// of normal size; every chip here is small text).
import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = path.resolve(__dirname, '../../src')
const read = (file) => fs.readFileSync(path.join(SRC, file), 'utf-8')

function luminance(hex) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255)
    .map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4))
  return 0.2126 * r + 0.7152 * g + 0.0722 * b
}

function contrast(a, b) {
  const [x, y] = [luminance(a), luminance(b)].sort((m, n) => n - m)
  return (x + 0.05) / (y + 0.05)
}

const variables = Object.fromEntries(
  [...read('styles.css').matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})\s*;/g)].map(([, name, value]) => [name, value]),
)
const colour = (value) => {
  const v = value.trim()
  const name = v.match(/^var\(--([\w-]+)\)$/)?.[1]
  return name ? variables[name] : v
}

/** Each CSS rule of `file` whose selector matches `selector` and sets both a background and a colour. */
function pairs(file, selector) {
  return [...read(file).matchAll(/([^{}]+)\{([^{}]*)\}/g)]
    .filter(([, sel]) => selector.test(sel.trim()))
    .map(([, sel, body]) => ({
      rule: `${file} ${sel.trim()}`,
      background: body.match(/background:\s*([^;]+);/)?.[1],
      color: body.match(/(?:^|[\s;])color:\s*([^;]+);/)?.[1],
    }))
    .filter((p) => p.background && p.color)
}

describe('contrast', () => {
  it('computes the WCAG ratio', () => {
    expect(contrast('#000000', '#ffffff')).toBeCloseTo(21, 5)
    expect(contrast('#178a5c', '#e3f5ec')).toBeCloseTo(3.84, 2) // the old "색인 완료" chip
  })

  it('is at least 4.5:1 for every file status chip, the dashboard chips and the intent badges', () => {
    const found = [
      ...pairs('components/FilePanel.vue', /^\.status(\.[\w-]+)?$/),
      ...pairs('components/SearchDashboard.vue', /./),
      ...pairs('components/MessageItem.vue', /^\.intent-[\w-]+$|^\.intent-badge$/),
    ]
    expect(found.map((p) => p.rule)).toEqual(expect.arrayContaining(['components/FilePanel.vue .status.indexed']))
    const low = found
      .map((p) => ({ ...p, ratio: contrast(colour(p.color), colour(p.background)) }))
      .filter((p) => !(p.ratio >= 4.5))
      .map((p) => `${p.rule}: ${p.color} on ${p.background} = ${p.ratio.toFixed(2)}`)
    expect(low).toEqual([])
  })
})
