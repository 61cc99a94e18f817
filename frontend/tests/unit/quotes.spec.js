import { describe, expect, it } from 'vitest'
import {
  copyableText,
  quotedPieces,
  sameLocation,
  splitAtQuote,
  withoutQuotedBlocks,
  withoutSourceSections,
} from '../../src/lib/quotes.js'

describe('quotedPieces', () => {
  it('finds the pieces of a page that hold a quote across items and spacing', () => {
    const items = ['Expense claims must ', 'be filed within', ' 14 days after', ' the trip ends.', 'Next topic.']
    expect(quotedPieces(items, 'Expense claims must be filed within 14 days after the trip ends.')).toEqual([0, 1, 2, 3])
  })
  it('matches Korean text whose spaces were lost in extraction', () => {
    expect(quotedPieces(['서버접근기록은매월', '첫째주에점검한다.'], '서버 접근기록은 매월 첫째 주에 점검한다.')).toEqual([0, 1])
  })
  it('falls back to the start of a long quote and gives nothing for an absent one', () => {
    const long = 'The archive keeps every weekly copy for a year and then removes it for good unless held.'
    expect(quotedPieces(['The archive keeps every weekly copy for a year', ' and then deletes it.'], long)).toEqual([0, 1])
    expect(quotedPieces(['Unrelated text on the page.'], 'Nothing like it here at all')).toEqual([])
  })
})

describe('splitAtQuote', () => {
  it('cuts a passage around the quoted sentence', () => {
    expect(splitAtQuote('제2조(일비) 국내 출장 일비는\n하루 3만 원으로 한다. 끝.', '국내 출장 일비는 하루 3만 원으로 한다.'))
      .toEqual(['제2조(일비) ', '국내 출장 일비는\n하루 3만 원으로 한다.', ' 끝.'])
    expect(splitAtQuote('abc def', 'xyz')).toBeNull()
  })
})

describe('sameLocation', () => {
  it('compares by kind', () => {
    expect(sameLocation({ kind: 'slide', slide: 2 }, { kind: 'slide', slide: 2, title: 'x' })).toBe(true)
    expect(sameLocation({ kind: 'sheet', sheet: 'A', rows: '2-21' }, { kind: 'sheet', sheet: 'A', rows: '22-41' })).toBe(false)
    expect(sameLocation({ kind: 'heading', heading: 'A > B' }, { kind: 'page', page: 1 })).toBe(false)
  })
})

describe('withoutSourceSections', () => {
  it('drops the source list and file locations and keeps the answer and later sections', () => {
    const text = '문서에서 찾은 답변입니다:\n\n> 일비는 3만 원이다.\n> — 규정.hwpx, 제2조\n\n**출처:**\n- **규정.hwpx** (제2조)\n  파일 위치: /api/files/x/download\n\n### 🌐 웹\n웹 답변'
    expect(withoutSourceSections(text)).toBe('문서에서 찾은 답변입니다:\n\n> 일비는 3만 원이다.\n> — 규정.hwpx, 제2조\n\n### 🌐 웹\n웹 답변')
    expect(withoutSourceSections('plain answer')).toBe('plain answer')
  })
})

describe('withoutQuotedBlocks', () => {
  it('drops the blockquotes that the quote list shows, with their attribution, and keeps the rest', () => {
    const text = '문서에서 찾은 답변입니다:\n\n> Each article is split into 100-word chunks.\n> — rag.pdf, p.4\n\n> An unlisted quote.\n> — x.pdf, p.2'
    expect(withoutQuotedBlocks(text, [{ text: 'Each article is split into 100-word chunks.' }]))
      .toBe('문서에서 찾은 답변입니다:\n\n> An unlisted quote.\n> — x.pdf, p.2')
    expect(withoutQuotedBlocks('> kept', [])).toBe('> kept')
  })
})

describe('copyableText', () => {
  const sources = [
    { type: 'file', file_id: 'f1', file_name: '보안정책.pdf', url: '/api/files/f1/download' },
    { type: 'file', file_id: 'f2', file_name: 'budget 2026.xlsx', url: '/api/files/f2/download' },
  ]

  it('gives file names, never a hub download link', () => {
    const text = [
      '비밀번호는 12자 이상입니다 ([보안정책.pdf](/api/files/f1/download#page=13)).',
      '',
      '**출처:**',
      '- **보안정책.pdf** (p.13)',
      '  파일 위치: /api/files/f1/download',
      '- **예산표**',
      '  파일 위치: /api/files/f2/download',
      '- 웹: https://example.com/news',
    ].join('\n')
    const copied = copyableText(text, sources)
    expect(copied).not.toContain('/api/files/')
    expect(copied).toBe([
      '비밀번호는 12자 이상입니다 (보안정책.pdf).',
      '',
      '**출처:**',
      '- **보안정책.pdf** (p.13)',
      '- **예산표**',
      '  파일 위치: budget 2026.xlsx',
      '- 웹: https://example.com/news',
    ].join('\n'))
  })

  it('keeps text without file links as it is, in English too', () => {
    expect(copyableText('plain **answer**', sources)).toBe('plain **answer**')
    expect(copyableText('- **a.pdf**\n  Location: /api/files/f9/download', [])).toBe('- **a.pdf**')
    expect(copyableText('see /api/files/f2/download?disposition=attachment now', sources)).toBe('see budget 2026.xlsx now')
  })
})
