// Keeps the keyboard inside a modal dialog: Tab and Shift+Tab cycle through its focusable elements, and
// focus goes back to the element that opened it when it closes.

const FOCUSABLE = [
  'a[href]',
  'area[href]',
  'button:not([disabled])',
  'input:not([disabled]):not([type="hidden"])',
  'select:not([disabled])',
  'textarea:not([disabled])',
  'iframe',
  'summary',
  '[contenteditable=""]',
  '[contenteditable="true"]',
  '[tabindex]',
].join(',')

/** The elements inside `container` that Tab reaches, in document order. */
export function focusableIn(container) {
  if (!container) return []
  return [...container.querySelectorAll(FOCUSABLE)].filter(
    (el) => el.tabIndex >= 0 && el.getAttribute('tabindex') !== '-1' && !el.closest('[hidden], [inert]'),
  )
}

/**
 * Handles a keydown for the dialog `container`: a Tab that would leave it wraps around to its other end,
 * and a Tab while the focus is outside it (after a click on the page behind) comes back to its first
 * element. Returns true when it moved the focus itself.
 */
export function trapTab(event, container) {
  if (event.key !== 'Tab' || !container) return false
  const items = focusableIn(container)
  if (!items.length) {
    event.preventDefault()
    container.focus?.()
    return true
  }
  const first = items[0]
  const last = items[items.length - 1]
  const active = container.ownerDocument.activeElement
  const inside = active && container.contains(active)
  let target = null
  if (!inside) target = event.shiftKey ? last : first
  else if (event.shiftKey && (active === first || active === container)) target = last
  else if (!event.shiftKey && active === last) target = first
  if (!target) return false
  event.preventDefault()
  target.focus()
  return true
}

/**
 * A trap for `container` while a dialog is open: `activate()` remembers where the focus was (or `opener`),
 * listens for Tab and Escape (`onEscape`) on the document; `deactivate()` stops that and returns the focus
 * to that element when it is still on the page.
 */
export function createFocusTrap(container, { onEscape, opener } = {}) {
  const doc = container.ownerDocument
  let returnTo = null
  function onKeydown(event) {
    if (event.key === 'Escape' && onEscape) {
      event.preventDefault()
      onEscape(event)
    } else {
      trapTab(event, container)
    }
  }
  return {
    activate() {
      returnTo = opener || doc.activeElement
      doc.addEventListener('keydown', onKeydown)
    },
    deactivate() {
      doc.removeEventListener('keydown', onKeydown)
      const target = returnTo
      returnTo = null
      if (target && target !== doc.body && target.isConnected) target.focus?.()
    },
  }
}
