// File endpoints. Uploads use XMLHttpRequest for real upload progress events.
import { apiJson, waitForLogin, formatDetail, ApiError, withLanguage } from './http.js'

export function listFiles(options) {
  return apiJson('/api/files', options)
}

export function deleteFile(id) {
  return apiJson(`/api/files/${encodeURIComponent(id)}`, { method: 'DELETE' })
}

/** Change who may see a file: 'private', 'team:<name>' or 'everyone' (its owner or an admin). */
export function shareFile(id, visibility) {
  return apiJson(`/api/files/${encodeURIComponent(id)}`, {
    method: 'PATCH',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ visibility }),
  })
}

/** The file's download link; `format` names another format the record holds (`docx` of a report). */
export function downloadUrl(id, format) {
  const base = `/api/files/${encodeURIComponent(id)}/download`
  return format ? `${base}?format=${encodeURIComponent(format)}` : base
}

/**
 * Add a file to the documents that answer questions: a report (kept out of the index until its person adds it)
 * or a file whose indexing failed ("다시 색인"). Resolves with the record (now `indexing`); rejects with ApiError,
 * `code` 'already_indexed' or 'indexing' for a 409.
 */
export function indexFile(id) {
  return apiJson(`/api/files/${encodeURIComponent(id)}/index`, { method: 'POST' })
}

function parseXhrError(xhr) {
  let detail = ''
  try {
    const body = JSON.parse(xhr.responseText)
    detail = formatDetail(body?.detail ?? body?.message)
  } catch {
    detail = (xhr.responseText || '').slice(0, 300)
  }
  const code = xhr.getResponseHeader?.('X-Hub-Error') || ''
  return new ApiError(detail || `HTTP ${xhr.status}`, xhr.status, detail, code)
}

function sendOnce(file, onProgress, signal, visibility) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest()
    xhr.open('POST', '/api/files')
    xhr.withCredentials = true
    xhr.responseType = 'text'
    xhr.setRequestHeader('Accept', 'application/json')
    for (const [name, value] of Object.entries(withLanguage())) xhr.setRequestHeader(name, value)

    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress?.(e.loaded, e.total)
    }
    xhr.onload = () => {
      if (xhr.status === 401) {
        resolve({ unauthorized: true })
        return
      }
      if (xhr.status >= 200 && xhr.status < 300) {
        try {
          resolve({ record: JSON.parse(xhr.responseText) })
        } catch {
          reject(new ApiError('Invalid server response', xhr.status, ''))
        }
        return
      }
      reject(parseXhrError(xhr))
    }
    xhr.onerror = () => reject(new ApiError('Network error', 0, ''))
    xhr.onabort = () => reject(new DOMException('Upload aborted', 'AbortError'))
    if (signal) {
      if (signal.aborted) {
        reject(new DOMException('Upload aborted', 'AbortError'))
        return
      }
      signal.addEventListener('abort', () => xhr.abort(), { once: true })
    }

    const form = new FormData()
    // Before the file: the backend reads small fields that precede the file part while streaming it.
    if (visibility) form.append('visibility', visibility)
    form.append('file', file, file.name)
    xhr.send(form)
  })
}

/**
 * Upload one file as multipart field `file`.
 * onProgress(loaded, total) is called from upload progress events.
 * Resolves with the created file record; rejects with ApiError (status + detail).
 */
export async function uploadFile(file, { onProgress, signal, visibility } = {}) {
  for (;;) {
    const result = await sendOnce(file, onProgress, signal, visibility)
    if (!result.unauthorized) return result.record
    onProgress?.(0, file.size)
    await waitForLogin()
  }
}
