// The HTTP API as the console uses it: every call carries the user's bearer
// token. The token lives in sessionStorage (this tab) or, when the user asks,
// localStorage; it is never put in a URL.

const KEY = 'stepwise.token';
const authListeners = new Set();

export function token() {
  return sessionStorage.getItem(KEY) || localStorage.getItem(KEY) || '';
}

export function setToken(value, remember) {
  sessionStorage.removeItem(KEY);
  localStorage.removeItem(KEY);
  if (value) (remember ? localStorage : sessionStorage).setItem(KEY, value);
}

/** Calls `fn(reason)` when the server answers 401 (no or a wrong token). */
export function onAuthNeeded(fn) {
  authListeners.add(fn);
}

export function authHeaders() {
  const t = token();
  return t ? {Authorization: `Bearer ${t}`} : {};
}

/** An error answer of the API: status, code and message. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export function authNeeded(reason) {
  for (const fn of authListeners) fn(reason);
}

async function send(method, path, body) {
  const headers = {Accept: 'application/json', ...authHeaders()};
  const init = {method, headers};
  if (body !== undefined) {
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  let res;
  try {
    res = await fetch(path, init);
  } catch (e) {
    throw new ApiError(0, 'unreachable', `cannot reach the server (${e.message})`);
  }
  if (res.status === 401) authNeeded(token() ? 'The token was refused.' : '');
  return res;
}

async function failure(res) {
  const text = await res.text();
  let code = `http_${res.status}`;
  let message = text || res.statusText;
  try {
    const e = JSON.parse(text).error;
    if (e && e.code) ({code, message} = e);
  } catch (_) { /* not JSON */ }
  if (res.status === 403) message = `${message}. Use a write token for this.`;
  return new ApiError(res.status, code, message);
}

/** Calls the API; resolves to {status, data} or rejects with an ApiError. */
export async function api(method, path, body) {
  const res = await send(method, path, body);
  if (!res.ok) throw await failure(res);
  const text = await res.text();
  return {status: res.status, data: text ? JSON.parse(text) : null};
}

export const get = (path) => api('GET', path).then((r) => r.data);

/** GET of a text document (the metrics). */
export async function getText(path) {
  const res = await send('GET', path);
  if (!res.ok) throw await failure(res);
  return res.text();
}

/** Builds a query string from the non-empty values of `params`. */
export function qs(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    // An array repeats its parameter (label=a=1&label=b=2).
    if (Array.isArray(v)) for (const x of v) q.append(k, x);
    else if (v !== '' && v !== undefined && v !== null) q.set(k, v);
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/** Parses the Prometheus text format into {name: [{labels, value}]}. */
export function parseMetrics(text) {
  const out = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const m = line.match(/^([a-zA-Z_:][\w:]*)(\{[^}]*\})?\s+(\S+)/);
    if (!m) continue;
    const labels = {};
    for (const l of (m[2] || '').slice(1, -1).split(',')) {
      const eq = l.indexOf('=');
      if (eq > 0) labels[l.slice(0, eq)] = l.slice(eq + 1).replace(/^"|"$/g, '');
    }
    (out[m[1]] ||= []).push({labels, value: Number(m[3])});
  }
  return out;
}
