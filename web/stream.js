// One live event stream for the whole console. It reads
// GET /api/v1/events/stream with fetch rather than EventSource, because
// EventSource cannot send the Authorization header and a token in the URL
// would end up in logs. It starts at the newest event (GET
// /api/v1/events/latest) and, after a drop, resumes after the last event it
// saw, so no event is missed or seen twice.

import {authHeaders, authNeeded, get} from './api.js';

const listeners = new Set();
const statusListeners = new Set();
let after = null;
let running = false;
let controller = null;
// The start point came from the log's end, not from an event seen.
let fresh = false;

/**
 * Calls `fn(event)` for every event from now on, and `fn({resync: true})`
 * when the stream (re)starts at the log's end: what happened before it
 * connected is not sent, so a view reads its data again then. Returns the
 * unsubscribe.
 */
export function subscribe(fn) {
  listeners.add(fn);
  start();
  return () => listeners.delete(fn);
}

/**
 * Connects now, whichever page is open: the top bar's "live" shows the
 * stream's state on every page, not only on those that listen.
 */
export function connect() {
  start();
}

/** Calls `fn(connected)` when the stream connects or drops. */
export function onStatus(fn) {
  statusListeners.add(fn);
}

function setStatus(connected) {
  for (const fn of statusListeners) fn(connected);
}

/** Drops the connection and connects again (after a new token). */
export function restart() {
  if (controller) controller.abort();
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

async function start() {
  if (running) return;
  running = true;
  for (;;) {
    try {
      if (after === null) {
        after = (await get('/api/v1/events/latest')).seq;
        fresh = true;
      }
      await readOnce();
    } catch (_) { /* dropped: reconnect below */ }
    setStatus(false);
    await sleep(1000);
  }
}

async function readOnce() {
  controller = new AbortController();
  const res = await fetch(`/api/v1/events/stream?after=${after}`, {
    headers: {Accept: 'text/event-stream', ...authHeaders()},
    signal: controller.signal,
  });
  if (res.status === 401) authNeeded('');
  if (!res.ok) {
    await sleep(2000);
    return;
  }
  setStatus(true);
  if (fresh) {
    fresh = false;
    for (const fn of listeners) fn({resync: true});
  }
  const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  let data = '';
  for (;;) {
    const {value, done} = await reader.read();
    if (done) return;
    buffer += value;
    let nl;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl).replace(/\r$/, '');
      buffer = buffer.slice(nl + 1);
      if (line === '') {
        if (data) dispatch(data);
        data = '';
      } else if (line.startsWith('data:')) {
        data += (data ? '\n' : '') + line.slice(5).replace(/^ /, '');
      }
    }
  }
}

function dispatch(text) {
  let ev;
  try {
    ev = JSON.parse(text);
  } catch (_) {
    return;
  }
  if (typeof ev.seq === 'number') after = Math.max(after, ev.seq);
  for (const fn of listeners) {
    try {
      fn(ev);
    } catch (e) {
      console.error(e);
    }
  }
}
