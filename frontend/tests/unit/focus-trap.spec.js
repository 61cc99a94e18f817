import { afterEach, describe, expect, it, vi } from 'vitest'
import { mount } from '@vue/test-utils'
import { createFocusTrap, focusableIn, trapTab } from '../../src/lib/focusTrap.js'
import MessageItem from '../../src/components/MessageItem.vue'
import { jsonResponse, mockFetch, settle } from './helpers.js'

const tid = (id) => `[data-testid="${id}"]`

function tab(shiftKey = false) {
  const event = new KeyboardEvent('keydown', { key: 'Tab', shiftKey, bubbles: true, cancelable: true })
  document.activeElement.dispatchEvent(event)
  return event
}

function dialogFixture() {
  document.body.innerHTML = `
    <button id="behind">behind</button>
    <div id="dialog" role="dialog">
      <a id="first" href="#x">download</a>
      <button id="disabled" disabled>off</button>
      <span tabindex="-1" id="skipped">not tabbable</span>
      <div hidden><button id="hidden">hidden</button></div>
      <div id="body" tabindex="0">text</div>
      <button id="last">close</button>
    </div>`
  return document.getElementById('dialog')
}

describe('focusTrap', () => {
  afterEach(() => {
    document.body.innerHTML = ''
  })

  it('lists what Tab reaches inside, in order, without disabled, hidden or tabindex=-1 elements', () => {
    const dialog = dialogFixture()
    expect(focusableIn(dialog).map((el) => el.id)).toEqual(['first', 'body', 'last'])
  })

  it('wraps Tab from the last element to the first, and Shift+Tab from the first to the last', () => {
    const dialog = dialogFixture()
    document.getElementById('last').focus()
    const forward = new KeyboardEvent('keydown', { key: 'Tab', cancelable: true })
    expect(trapTab(forward, dialog)).toBe(true)
    expect(forward.defaultPrevented).toBe(true)
    expect(document.activeElement.id).toBe('first')
    const back = new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, cancelable: true })
    expect(trapTab(back, dialog)).toBe(true)
    expect(document.activeElement.id).toBe('last')
  })

  it('leaves Tab between inner elements to the browser', () => {
    const dialog = dialogFixture()
    document.getElementById('first').focus()
    const event = new KeyboardEvent('keydown', { key: 'Tab', cancelable: true })
    expect(trapTab(event, dialog)).toBe(false)
    expect(event.defaultPrevented).toBe(false)
    expect(trapTab(new KeyboardEvent('keydown', { key: 'a' }), dialog)).toBe(false)
  })

  it('brings the focus back inside when it is on the page behind', () => {
    const dialog = dialogFixture()
    document.getElementById('behind').focus()
    trapTab(new KeyboardEvent('keydown', { key: 'Tab', cancelable: true }), dialog)
    expect(document.activeElement.id).toBe('first')
    document.getElementById('behind').focus()
    trapTab(new KeyboardEvent('keydown', { key: 'Tab', shiftKey: true, cancelable: true }), dialog)
    expect(document.activeElement.id).toBe('last')
  })

  it('closes on Escape, stops trapping and returns the focus to where it was on opening', () => {
    const dialog = dialogFixture()
    const behind = document.getElementById('behind')
    behind.focus()
    const onEscape = vi.fn()
    const trap = createFocusTrap(dialog, { onEscape })
    trap.activate()
    document.getElementById('last').focus()
    expect(tab().defaultPrevented).toBe(true)
    expect(document.activeElement.id).toBe('first')
    document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    expect(onEscape).toHaveBeenCalledTimes(1)
    trap.deactivate()
    expect(document.activeElement).toBe(behind)
    document.getElementById('last').focus()
    expect(tab().defaultPrevented).toBe(false) // no longer trapped
  })

  it('returns the focus to an explicit opener, and not to one that left the page', () => {
    const dialog = dialogFixture()
    const opener = document.getElementById('behind')
    const trap = createFocusTrap(dialog, { opener })
    trap.activate()
    document.getElementById('first').focus()
    trap.deactivate()
    expect(document.activeElement).toBe(opener)

    const gone = document.createElement('button')
    document.body.appendChild(gone)
    const other = createFocusTrap(dialog, { opener: gone })
    other.activate()
    document.getElementById('first').focus()
    gone.remove()
    other.deactivate()
    expect(document.activeElement.id).toBe('first')
  })
})

describe('the document viewer keeps the keyboard', () => {
  afterEach(() => {
    vi.unstubAllGlobals()
    document.body.innerHTML = ''
  })

  it('traps Tab while open, closes on Escape and gives the focus back to the quote that opened it', async () => {
    mockFetch({
      '/api/files/f1': () => jsonResponse({ id: 'f1', name: 'policy.docx', content_type: 'application/msword' }),
      '/api/files/f1/passages': () =>
        jsonResponse({ passages: [{ text: 'Claims are filed within 30 days.', location: { kind: 'section', section: '2' } }] }),
    })
    const quote = { text: 'within 30 days', file_id: 'f1', file_name: 'policy.docx', location: { kind: 'section', section: '2' },
      label: '2절', url: '/api/files/f1/download' }
    const wrapper = mount(MessageItem, {
      attachTo: document.body,
      props: { message: { id: 'a', role: 'assistant', kind: 'answer', text: 'Within 30 days.', quotes: [quote], sources: [] } },
    })
    const quoteButton = wrapper.get(tid('quote-item'))
    quoteButton.element.focus()
    await quoteButton.trigger('click')
    await settle()
    const viewer = wrapper.get(tid('document-viewer'))
    expect(viewer.attributes('role')).toBe('dialog')
    expect(document.activeElement).toBe(wrapper.get(tid('viewer-close')).element)

    // The close button, then the scrollable document body: both ends wrap around.
    const body = wrapper.get(tid('viewer-body')).element
    body.focus()
    expect(tab().defaultPrevented).toBe(true)
    expect(viewer.element.contains(document.activeElement)).toBe(true)
    expect(document.activeElement.getAttribute('href')).toBe('/api/files/f1/download')
    expect(tab(true).defaultPrevented).toBe(true)
    expect(document.activeElement).toBe(body)

    document.activeElement.dispatchEvent(new KeyboardEvent('keydown', { key: 'Escape', bubbles: true }))
    await settle()
    expect(wrapper.find(tid('document-viewer')).exists()).toBe(false)
    expect(document.activeElement).toBe(quoteButton.element)
    wrapper.unmount()
  })
})
