// api.js: the one door to the server. JSON requests carry the CSRF token; a
// 401 {"error":"locked"} from anywhere tells every listener the vault locked.

let csrf = '';
const lockedListeners = new Set();

/** An error the server answered (status > 0) or a request that never got through (status 0). */
export class ApiError extends Error {
  constructor(status, message, body = null, retryAfter = null) {
    super(message);
    this.status = status;
    this.body = body;
    /** Seconds to wait before the next unlock attempt (429), from the body or Retry-After. */
    this.retryAfter = retryAfter;
  }
}

/** Calls `listener` whenever the server says the session has no unlocked vault. */
export function onLocked(listener) {
  lockedListeners.add(listener);
}

function announceLocked() {
  for (const listener of lockedListeners) listener();
}

/**
 * What to tell someone whose request the server refused for want of a session, or null
 * for any other error. Such a 401 says nothing of a password: the page was opened
 * without the link `obscura serve` printed, the server restarted and forgot the
 * session, or the link is from an earlier start.
 */
export function sessionTrouble(error) {
  if (error?.status !== 401) return null;
  if (/^no session/.test(error.message)) {
    return 'This tab is not signed in to the Obscura server: it was opened without the link that '
      + '`obscura serve` printed, or the server has restarted since. Open that link exactly as it was '
      + 'printed, with its end after “#token=”. If you no longer have it, stop `obscura serve` and start '
      + 'it again: it prints a new link.';
  }
  if (error.message === 'wrong access token') {
    return 'This link is from an earlier start of `obscura serve`, and each start prints a new one. '
      + 'Open the link the running server printed, or start it again for a new link.';
  }
  return null;
}

export function csrfToken() {
  return csrf;
}

/**
 * The session and its CSRF token. Opened from the link `obscura serve` printed, the
 * page trades the access token in the fragment for a session cookie (POST
 * /api/session) and takes the token out of the address bar; afterwards the
 * cookie alone names the session (GET /api/session).
 */
export async function loadSession() {
  const token = takeAccessToken();
  const session = token ? await send('POST', '/api/session', { token }) : await send('GET', '/api/session');
  csrf = session.csrf;
  return session;
}

/** The access token from `#token=...`, removed from the address bar and history. */
function takeAccessToken() {
  const match = /^#(?:.*&)?token=([0-9a-f]+)/.exec(location.hash);
  if (!match) return null;
  history.replaceState(null, '', location.pathname + location.search);
  return match[1];
}

export const get = (path) => request('GET', path);
export const post = (path, body) => request('POST', path, body);

async function request(method, path, body) {
  try {
    return await send(method, path, body);
  } catch (error) {
    // A restarted server forgets our session; fetch a fresh token once and retry.
    if (error.status === 403 && /CSRF/i.test(error.message)) {
      await loadSession();
      return send(method, path, body);
    }
    throw error;
  }
}

async function send(method, path, body) {
  const headers = { Accept: 'application/json' };
  const init = { method, headers, credentials: 'same-origin', cache: 'no-store' };
  if (method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = csrf;
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch {
    throw new ApiError(0, 'The Obscura server cannot be reached. Is it still running?');
  }
  const data = await readJSON(response);
  if (!response.ok) throw failure(response.status, data, response.headers.get('Retry-After'));
  return data;
}

async function readJSON(response) {
  const text = await response.text();
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

function failure(status, data, retryHeader = null) {
  const message = (data && typeof data.error === 'string') ? data.error : defaultMessage(status);
  if (status === 401 && message === 'locked') announceLocked();
  const retryAfter = Number(data?.retryAfter ?? retryHeader) || null;
  return new ApiError(status, message, data, retryAfter);
}

function defaultMessage(status) {
  if (status === 413) return 'Too large';
  if (status >= 500) return 'The server failed (' + status + ')';
  return 'Request failed (' + status + ')';
}

/**
 * POSTs one file's raw bytes to /api/upload with XMLHttpRequest, whose upload
 * events give progress. Returns {promise, abort}; the promise resolves to the
 * server's JSON ({item} or {duplicate: true}) and rejects with an ApiError.
 */
export function uploadFile(file, folderId, onProgress) {
  const xhr = new XMLHttpRequest();
  const query = new URLSearchParams({ name: file.name });
  if (folderId) query.set('folder', folderId);
  const promise = new Promise((resolve, reject) => {
    xhr.open('POST', '/api/upload?' + query.toString());
    xhr.setRequestHeader('X-CSRF-Token', csrf);
    xhr.upload.addEventListener('progress', (event) => {
      if (event.lengthComputable && event.total > 0) onProgress(event.loaded / event.total);
    });
    xhr.addEventListener('load', () => {
      let data = null;
      try { data = JSON.parse(xhr.responseText); } catch { /* not JSON */ }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data ?? {});
      else reject(failure(xhr.status, data));
    });
    xhr.addEventListener('error', () => reject(new ApiError(0, 'Connection lost')));
    xhr.addEventListener('abort', () => reject(new ApiError(0, 'Cancelled')));
    xhr.send(file);
  });
  return { promise, abort: () => xhr.abort() };
}

/** A POST that outlives the page (keepalive), for the visibility signal. */
export function postKeepalive(path, body) {
  fetch(path, {
    method: 'POST',
    keepalive: true,
    credentials: 'same-origin',
    headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf },
    body: JSON.stringify(body),
  }).then(async (response) => {
    if (!response.ok) failure(response.status, await readJSON(response));
  }).catch(() => { /* the page may be going away; nothing to tell */ });
}

/** URLs of an item's bytes; the browser sends the session cookie with them. */
export const urls = {
  thumbnail: (id) => '/api/items/' + encodeURIComponent(id) + '/thumbnail',
  preview: (id) => '/api/items/' + encodeURIComponent(id) + '/preview',
  original: (id) => '/api/items/' + encodeURIComponent(id) + '/original',
  full: (id) => '/api/items/' + encodeURIComponent(id) + '/full',
  rendition: (id) => '/api/items/' + encodeURIComponent(id) + '/rendition',
  motion: (id) => '/api/items/' + encodeURIComponent(id) + '/motion',
  companionDownload: (id) => '/api/items/' + encodeURIComponent(id) + '/companion?download=1',
  download: (id) => '/api/items/' + encodeURIComponent(id) + '/original?download=1',
};
