// The task queues page: per queue, the tasks ready and taken, the workers
// polling now, how long the oldest ready task has waited, and the workers
// seen. Polls make no events, so it reads the queues again every few
// seconds while shown, and at once on the step events that add or end tasks.

import {get, token} from './api.js';
import {subscribe} from './stream.js';
import {debounce, fill, h, tickTimes, timeEl} from './util.js';

const POLL_MS = 2000;
// More would stretch the row: the rest are counted.
const MAX_WORKERS = 6;
// A task ready this long is shown in the waiting colour: no worker keeps up.
const LATE_MS = 60000;

/** "0 s", "42 s", "3 min 5 s", "2 h 10 min": whole units, for a wait. */
export function ageText(ms) {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min${s % 60 ? ` ${s % 60} s` : ''}`;
  const m = Math.floor(s / 60);
  return `${Math.floor(m / 60)} h${m % 60 ? ` ${m % 60} min` : ''}`;
}

/** Whether event `ev` may change a queue: a task step began or ended. */
export function isTaskEvent(ev) {
  return ev.resync || ev.type.startsWith('step_') || ev.type.startsWith('compensation_')
    || ['operation_canceled', 'operation_paused', 'operation_resumed', 'operation_retried']
      .includes(ev.type);
}

function oldest(q) {
  if (q.oldest_age_ms === null || q.oldest_age_ms === undefined)
    return h('span', {class: 'muted'}, 'none ready');
  // The server's age, not one from this browser's clock.
  return h('span', {title: `ready since ${q.oldest_ready_at}`,
    class: q.oldest_age_ms >= LATE_MS ? 'late' : null}, ageText(q.oldest_age_ms));
}

function workers(q) {
  if (!q.workers.length) {
    return h('span', {class: 'muted'},
      q.ready ? 'none seen yet: the tasks wait for a worker to poll' : 'none seen yet');
  }
  const seen = [...q.workers].sort((a, b) => (b.last_seen || '').localeCompare(a.last_seen || ''));
  const shown = seen.slice(0, MAX_WORKERS).map((w) =>
    h('span', {class: 'worker', dataset: {worker: w.name}}, h('span', {class: 'mono'}, w.name), ' ',
      w.last_seen ? timeEl(w.last_seen) : h('span', {class: 'muted'}, 'never')));
  if (seen.length > MAX_WORKERS)
    shown.push(h('span', {class: 'muted'}, `+${seen.length - MAX_WORKERS} more`));
  return shown;
}

function count(field, n, hint) {
  return h('td', {class: 'num' + (n ? '' : ' zero'), dataset: {field}, title: hint}, String(n));
}

function row(q) {
  return h('tr', {dataset: {queue: q.name}},
    h('td', {class: 'mono'}, q.name),
    count('ready', q.ready, 'Tasks ready, waiting for a worker to take them'),
    count('taken', q.taken, 'Tasks a worker took and has not answered yet'),
    count('pollers', q.pollers, 'Workers waiting in a long poll on this queue now'),
    h('td', {dataset: {field: 'oldest'}}, oldest(q)),
    h('td', {dataset: {field: 'workers'}}, h('div', {class: 'workers'}, workers(q))));
}

function empty() {
  const auth = token() ? ` -H "Authorization: Bearer $TOKEN"` : '';
  const curl = `curl -X POST ${location.origin}/api/v1/tasks/poll${auth} \\\n`
    + `  -d '{"queue":"billing","worker":"w-1","max":1,"wait":"20s"}'`;
  return h('tr', {}, h('td', {colspan: 6, class: 'empty'},
    h('div', {}, 'No task queues yet. A queue appears when an operation reaches a ',
      h('code', {}, 'task'), ' step on it, or when a worker polls it:'),
    h('pre', {class: 'json poll-example'}, curl)));
}

/** Renders the task queues page into `view`; returns its stop. */
export function mountQueues(view) {
  const tbody = h('tbody', {}, h('tr', {}, h('td', {colspan: 6, class: 'empty'}, 'Loading…')));
  const status = h('span', {class: 'muted'});
  fill(view,
    h('div', {class: 'page-head'}, h('div', {}, h('h1', {}, 'Task queues'),
      h('div', {class: 'muted'}, 'Task steps wait here until a worker, in any language, takes them '
        + 'with ', h('code', {}, 'POST /api/v1/tasks/poll'), '. This server\'s queues; updates every 2 s.'))),
    h('div', {class: 'panel flush'},
      h('div', {class: 'panel-head'}, h('h2', {}, 'All queues'), status),
      h('table', {id: 'queues'}, h('thead', {}, h('tr', {},
        ['Queue', 'Ready', 'Taken', 'Pollers waiting', 'Oldest ready', 'Workers seen']
          .map((t) => h('th', {}, t)))),
      tbody)));

  let stopped = false;
  let timer = null;
  let busy = false;
  let again = false;
  async function load() {
    // One read at a time, so a slow answer never lands after a newer one;
    // a call meanwhile reads once more after it.
    if (stopped) return;
    if (busy) {
      again = true;
      return;
    }
    busy = true;
    try {
      const d = await get('/api/v1/tasks/queues');
      if (stopped) return;
      fill(tbody, d.items.length ? d.items.map(row) : empty());
      const ready = d.items.reduce((a, q) => a + q.ready, 0);
      const taken = d.items.reduce((a, q) => a + q.taken, 0);
      status.textContent = d.items.length
        ? `${d.items.length} ${d.items.length === 1 ? 'queue' : 'queues'} · ${ready} ready, ${taken} taken` : '';
    } catch (e) {
      if (stopped) return;
      status.textContent = '';
      fill(tbody, h('tr', {}, h('td', {colspan: 6, class: 'empty error-text'}, e.message)));
    } finally {
      busy = false;
    }
    if (again) {
      again = false;
      await load();
    }
  }
  const loadSoon = debounce(load, 250);
  const unsubscribe = subscribe((ev) => {
    if (isTaskEvent(ev)) loadSoon();
  });
  const loop = async () => {
    if (document.visibilityState !== 'hidden') await load();
    else tickTimes(tbody);
    if (!stopped) timer = setTimeout(loop, POLL_MS);
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') load();
  };
  document.addEventListener('visibilitychange', onVisible);
  load().then(() => {
    if (!stopped) timer = setTimeout(loop, POLL_MS);
  });
  return () => {
    stopped = true;
    clearTimeout(timer);
    unsubscribe();
    document.removeEventListener('visibilitychange', onVisible);
  };
}
