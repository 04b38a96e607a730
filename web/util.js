// Small helpers every view uses: building elements, formatting times and
// states, notices.

/** Returns a new element: h('a', {href: '#'}, 'text', child, ...). */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'dataset') Object.assign(el.dataset, v);
    else if (k.startsWith('on')) el.addEventListener(k.slice(2), v);
    else if (k === 'value') el.value = v;
    else el.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return el;
}

/** Replaces the children of `el`. */
export function fill(el, ...children) {
  el.replaceChildren();
  for (const c of children.flat()) if (c) el.append(c);
  return el;
}

/** A coloured badge for an operation or step state. */
export function badge(state) {
  const b = h('span', {class: 'badge', dataset: {state}}, (state || '-').replace('_', ' '));
  b.style.setProperty('--c', `var(--s-${state}, #495057)`);
  return b;
}

export const OP_STATES = ['pending', 'in_progress', 'waiting', 'paused', 'compensating',
  'succeeded', 'failed', 'canceled'];

export function isTerminal(state) {
  return state === 'succeeded' || state === 'failed' || state === 'canceled';
}

/** "3 s ago", "in 2 min", or the date for older times. */
export function relTime(iso) {
  if (!iso) return '-';
  const t = Date.parse(iso);
  if (Number.isNaN(t)) return iso;
  const d = (t - Date.now()) / 1000;
  const a = Math.abs(d);
  let text;
  if (a < 1.5) return 'just now';
  if (a < 60) text = `${Math.round(a)} s`;
  else if (a < 3600) text = `${Math.round(a / 60)} min`;
  else if (a < 86400) text = `${Math.round(a / 3600)} h`;
  else return new Date(t).toLocaleString();
  return d < 0 ? `${text} ago` : `in ${text}`;
}

/** A time element that shows the relative time and the exact one on hover. */
export function timeEl(iso) {
  return h('time', {datetime: iso || '', title: iso || ''}, relTime(iso));
}

/** "850 ms", "12.3 s", "4 min 5 s". */
export function duration(ms) {
  if (ms === null || ms === undefined) return '-';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60000) return `${(ms / 1000).toFixed(1)} s`;
  const s = Math.round((ms % 60000) / 1000);
  return `${Math.floor(ms / 60000)} min${s ? ` ${s} s` : ''}`;
}

/** A short id: the operation id's tail, which is what differs. */
export function shortId(id) {
  return id && id.length > 14 ? '…' + id.slice(-10) : id;
}

/**
 * Returns `text` parsed as a JSON object, or null after showing in `errEl`
 * why it is not one (`what` names the field).
 */
export function parseObject(text, what, errEl) {
  try {
    const v = JSON.parse(text);
    if (typeof v === 'object' && v !== null && !Array.isArray(v)) return v;
    errEl.textContent = `The ${what} is not valid: it must be a JSON object`;
  } catch (e) {
    errEl.textContent = `The ${what} is not valid: ${e.message}`;
  }
  errEl.hidden = false;
  return null;
}

export function pretty(value) {
  return JSON.stringify(value, null, 2);
}

/** Shows a notice for a few seconds. */
export function toast(message, kind) {
  const t = h('div', {class: 'toast' + (kind === 'error' ? ' error' : ''), role: 'status'}, message);
  document.getElementById('toasts').append(t);
  setTimeout(() => t.remove(), kind === 'error' ? 7000 : 3500);
}

/** Calls `fn` at most once per `ms`, with the last arguments. */
export function debounce(fn, ms) {
  let timer = null;
  return (...args) => {
    clearTimeout(timer);
    timer = setTimeout(() => fn(...args), ms);
  };
}

/** Re-renders relative times once in a while. */
export function tickTimes(root) {
  for (const t of root.querySelectorAll('time[datetime]')) {
    const iso = t.getAttribute('datetime');
    if (iso) t.textContent = relTime(iso);
  }
}
