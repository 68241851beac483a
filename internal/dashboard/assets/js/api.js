// The platform API client (D73): the session cookie goes with every call;
// unsafe methods carry the session's CSRF token; the live/test switch
// becomes X-Carteiro-Mode.
import { lang } from './i18n.js';

const state = { csrf: '', mode: localStorage.getItem('carteiro.mode') === 'test' ? 'test' : 'live', onUnauthorized: null };

export function setCSRF(token) { state.csrf = token || ''; }
export function mode() { return state.mode; }
export function setMode(m) { state.mode = m === 'test' ? 'test' : 'live'; localStorage.setItem('carteiro.mode', state.mode); }
export function onUnauthorized(fn) { state.onUnauthorized = fn; }

export class APIError extends Error {
  constructor(status, body) {
    const e = (body && body.error) || {};
    super(e.message || ('HTTP ' + status));
    this.status = status;
    this.code = e.code || '';
    this.reason = e.reason || '';
    this.body = body;
  }
}

export async function api(method, path, body, opts = {}) {
  const headers = { 'Accept': 'application/json', 'Accept-Language': lang(), 'X-Carteiro-Mode': state.mode };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (method !== 'GET' && method !== 'HEAD') headers['X-CSRF-Token'] = state.csrf;
  const res = await fetch('/v1/platform' + path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: 'same-origin', cache: 'no-store',
  });
  let data = null;
  const text = await res.text();
  if (text) {
    try { data = JSON.parse(text); } catch { data = text; }
  }
  if (!res.ok) {
    const err = new APIError(res.status, data);
    if (res.status === 401 && !opts.allowUnauthorized && state.onUnauthorized) state.onUnauthorized();
    throw err;
  }
  return data;
}

export const get = (p, o) => api('GET', p, undefined, o);
export const post = (p, b, o) => api('POST', p, b, o);
export const put = (p, b) => api('PUT', p, b);
export const patch = (p, b) => api('PATCH', p, b);
export const del = (p, b) => api('DELETE', p, b);

// qs builds a query string from the non-empty values of o.
export function qs(o) {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(o)) if (v !== undefined && v !== null && v !== '') p.set(k, v);
  const s = p.toString();
  return s ? '?' + s : '';
}
