// One polite live region for the whole page (LiveAnnouncer.vue renders it): a component calls `announce(text)`
// and a screen reader reads that text once. Each announcement is added as its own node, so two in quick
// succession are both read, and removed after `ANNOUNCE_LINGER_MS` so the region stays short.
import { ref } from 'vue'

export const ANNOUNCE_LINGER_MS = 7000

/** The announcements now in the region: [{ id, text }], oldest first. */
export const announcements = ref([])

let seq = 0

export function announce(text) {
  const message = String(text ?? '').trim()
  if (!message) return
  const id = ++seq
  announcements.value = [...announcements.value, { id, text: message }]
  setTimeout(() => {
    announcements.value = announcements.value.filter((a) => a.id !== id)
  }, ANNOUNCE_LINGER_MS)
}

/** Empties the region (tests, sign-out). */
export function clearAnnouncements() {
  announcements.value = []
}
