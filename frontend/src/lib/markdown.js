// Markdown → sanitised HTML. Answers come from LLMs and web pages, so every
// rendered message goes through DOMPurify before it reaches v-html.
import { Marked } from 'marked'
import DOMPurify from 'dompurify'

const marked = new Marked({ gfm: true, breaks: true })

let hooked = false
function ensureHooks() {
  if (hooked) return
  hooked = true
  // Open links in a new tab without giving the target page a handle on ours.
  DOMPurify.addHook('afterSanitizeAttributes', (node) => {
    if (node.tagName === 'A' && node.getAttribute('href')) {
      node.setAttribute('target', '_blank')
      node.setAttribute('rel', 'noopener noreferrer')
    }
  })
}

const PURIFY_CONFIG = {
  USE_PROFILES: { html: true },
  FORBID_TAGS: ['style', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed'],
  FORBID_ATTR: ['style'],
  ADD_ATTR: ['target'],
}

/** Render markdown to sanitised HTML (string). */
export function renderMarkdown(text) {
  ensureHooks()
  const html = marked.parse(String(text ?? ''), { async: false })
  return DOMPurify.sanitize(html, PURIFY_CONFIG)
}
