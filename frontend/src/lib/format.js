import { intlLocale } from '../i18n.js'

export function formatBytes(n) {
  const size = Number(n)
  if (!Number.isFinite(size) || size < 0) return ''
  if (size < 1024) return `${size} B`
  const units = ['KB', 'MB', 'GB', 'TB']
  let v = size / 1024
  let i = 0
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024
    i++
  }
  return `${v >= 10 ? v.toFixed(0) : v.toFixed(1)} ${units[i]}`
}

export function formatDateTime(value, { short = false } = {}) {
  if (!value) return ''
  const d = new Date(value)
  if (Number.isNaN(d.getTime())) return String(value)
  const opts = short
    ? { month: 'numeric', day: 'numeric', hour: '2-digit', minute: '2-digit', hour12: false }
    : { year: 'numeric', month: '2-digit', day: '2-digit', hour: '2-digit', minute: '2-digit', hour12: false }
  return new Intl.DateTimeFormat(intlLocale(), opts).format(d)
}

export function formatUsd(v, digits = 4) {
  const n = Number(v)
  if (!Number.isFinite(n)) return '–'
  return `$${n.toFixed(n !== 0 && Math.abs(n) < 0.01 ? digits : 2)}`
}

export function formatPercent(v) {
  const n = Number(v)
  if (!Number.isFinite(n)) return '–'
  return `${(n * 100).toFixed(n * 100 >= 10 || n === 0 ? 0 : 1)}%`
}

export function formatMs(v) {
  const n = Number(v)
  if (!Number.isFinite(n)) return '–'
  if (n >= 10000) return `${(n / 1000).toFixed(1)} s`
  return `${Math.round(n)} ms`
}

/**
 * What an answer cost, as one line of parts ("검색 3회 (검색 제공자 1회 $0.0040) · LLM 2회 · 토큰 1,234"), or '' when it
 * cost nothing. `usage` is the answer's `usage` object (searches, paid_searches, search_cost_usd, llm_calls,
 * llm_prompt_tokens, llm_completion_tokens, llm_tokens_estimated); `t` is the i18n lookup.
 */
export function usageLine(usage, t) {
  if (!usage || typeof usage !== 'object') return ''
  const count = (v) => (Number.isFinite(Number(v)) && Number(v) > 0 ? Number(v) : 0)
  const parts = []
  const searches = count(usage.searches)
  if (searches) {
    const paid = count(usage.paid_searches)
    parts.push(
      t('chat.usage.searches', { n: searches }) +
        (paid ? ` (${t('chat.usage.paid', { n: paid, cost: formatUsd(count(usage.search_cost_usd)) })})` : ''),
    )
  }
  const calls = count(usage.llm_calls)
  if (calls) {
    const tokens = count(usage.llm_prompt_tokens) + count(usage.llm_completion_tokens)
    parts.push(
      t('chat.usage.llm', { n: calls, tokens: tokens.toLocaleString() }) +
        (usage.llm_tokens_estimated ? ` ${t('chat.usage.estimated')}` : ''),
    )
  }
  return parts.join(' · ')
}
