// The operations page: health, filters, a page of operations with
// "Load more" (next_cursor), kept live by the event stream.

import {get, qs} from './api.js';
import {mountHealth} from './health.js';
import {subscribe} from './stream.js';
import {OP_STATES, badge, debounce, fill, h, timeEl, tickTimes} from './util.js';

const PAGE = 25;

/** Settled steps of all, and the first unsettled step's name. */
export function progress(op) {
  const steps = op.steps || [];
  const settled = steps.filter((s) => ['succeeded', 'skipped', 'incomplete'].includes(s.state)).length;
  const current = steps.find((s) => !['succeeded', 'skipped', 'incomplete'].includes(s.state));
  return {settled, total: steps.length, current: current ? current.name : ''};
}

function progressCell(op) {
  const p = progress(op);
  const pct = p.total ? Math.round((100 * p.settled) / p.total) : 0;
  const bar = h('div', {class: 'bar'}, h('div', {class: 'bar-fill'}));
  bar.firstChild.style.width = `${pct}%`;
  bar.style.setProperty('--c', `var(--s-${op.state})`);
  return h('td', {class: 'progress'}, h('div', {class: 'progress-text'}, `${p.settled}/${p.total}`,
    p.current && op.state !== 'succeeded' ? h('span', {class: 'muted'}, ` · ${p.current}`) : ''), bar);
}

function row(op) {
  return h('tr', {dataset: {id: op.id, state: op.state}},
    h('td', {}, h('a', {href: `#/operations/${encodeURIComponent(op.id)}`, class: 'mono'}, op.id)),
    h('td', {}, op.workflow, h('span', {class: 'muted'}, ` v${op.version}`)),
    h('td', {}, badge(op.state)),
    progressCell(op),
    h('td', {}, timeEl(op.updated_at)),
    problemCell(op));
}

// The error; or, while a step is retried, why (the step's last error).
function problemCell(op) {
  if (op.error) return h('td', {class: 'error-cell', title: op.error}, op.error);
  const step = (op.steps || []).find((s) => s.state === 'waiting' && s.last_error);
  if (!step) return h('td');
  const text = `${step.name}: ${step.last_error}`;
  return h('td', {class: 'note-cell wide', title: text}, text);
}

/** The search of the page's address: labels (k=v), key, after, before. */
export function searchFrom(params) {
  return {labels: params.getAll('label'), key: params.get('key') || '',
    after: params.get('after') || '', before: params.get('before') || ''};
}

/** The search box's text: `k=v` and `key:K` tokens, separated by spaces. */
export function parseSearch(text) {
  const out = {labels: [], key: ''};
  for (const t of text.split(/\s+/).filter(Boolean)) {
    if (t.startsWith('key:')) out.key = t.slice(4);
    else out.labels.push(t.includes('=') ? t : `${t}=`);
  }
  return out;
}

function searchText(s) {
  return [...s.labels, s.key ? `key:${s.key}` : ''].filter(Boolean).join(' ');
}

// <input type=datetime-local> speaks local time without a zone; the API UTC.
function isoOf(local) {
  return local ? new Date(local).toISOString() : '';
}

function localInput(iso) {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  const off = d.getTimezoneOffset() * 60000;
  return new Date(d.getTime() - off).toISOString().slice(0, 16);
}

// Whether a live operation still matches the search (created once: only
// labels, key and creation time decide).
function searched(op, s) {
  const labels = op.labels || {};
  return s.labels.every((kv) => {
    const i = kv.indexOf('=');
    return labels[kv.slice(0, i)] === kv.slice(i + 1);
  }) && (!s.key || op.idempotency_key === s.key)
    && (!s.after || op.created_at > new Date(s.after).toISOString())
    && (!s.before || op.created_at < new Date(s.before).toISOString());
}

/** Renders the operations page into `view` for `params`; returns its stop. */
export function mountList(view, params, navigate) {
  const state = params.get('state') || '';
  const workflow = params.get('workflow') || '';
  const stateSel = h('select', {'aria-label': 'State', id: 'filter-state'},
    h('option', {value: ''}, 'All states'),
    OP_STATES.map((s) => h('option', {value: s, selected: s === state}, s.replace('_', ' '))));
  const wfSel = h('select', {'aria-label': 'Workflow', id: 'filter-workflow'},
    h('option', {value: ''}, 'All workflows'));
  const search = searchFrom(params);
  const searchBox = h('input', {type: 'search', id: 'filter-search', class: 'search',
    'aria-label': 'Search by labels or idempotency key', value: searchText(search),
    placeholder: 'label=value … or key:IDEMPOTENCY_KEY',
    title: 'Labels as key=value (all must match), key:K for an idempotency key'});
  const afterIn = h('input', {type: 'datetime-local', id: 'filter-after', 'aria-label': 'Created after',
    title: 'Created after', value: localInput(search.after)});
  const beforeIn = h('input', {type: 'datetime-local', id: 'filter-before', 'aria-label': 'Created before',
    title: 'Created before', value: localInput(search.before)});
  const apply = () => {
    const s = parseSearch(searchBox.value);
    navigate(`#/operations${qs({state: stateSel.value, workflow: wfSel.value, label: s.labels, key: s.key,
      after: isoOf(afterIn.value), before: isoOf(beforeIn.value)})}`);
  };
  stateSel.addEventListener('change', apply);
  wfSel.addEventListener('change', apply);
  afterIn.addEventListener('change', apply);
  beforeIn.addEventListener('change', apply);
  searchBox.addEventListener('keydown', (e) => { if (e.key === 'Enter') apply(); });
  const searching = search.labels.length > 0 || search.key || search.after || search.before;
  const filtered = state || workflow || searching;
  const tbody = h('tbody');
  const more = h('button', {class: 'btn', type: 'button', hidden: true}, 'Load more');
  const status = h('span', {class: 'muted'});
  const healthEl = h('div', {class: 'stats'});
  fill(view,
    h('div', {class: 'page-head'}, h('div', {}, h('h1', {}, 'Operations'),
      h('div', {class: 'muted'}, 'Every run of a workflow, newest first. Updates live.')),
    h('a', {class: 'btn btn-primary', href: '#/start'}, 'Start operation')),
    healthEl,
    h('div', {class: 'panel flush'},
      h('div', {class: 'panel-head'}, h('div', {class: 'row'}, stateSel, wfSel, searchBox,
        h('label', {class: 'muted range'}, 'from', afterIn), h('label', {class: 'muted range'}, 'to', beforeIn),
        filtered ? h('a', {href: '#/operations'}, 'Clear filters') : ''), status),
      h('table', {id: 'operations'}, h('thead', {}, h('tr', {},
        ['Operation', 'Workflow', 'State', 'Progress', 'Updated', 'Error'].map((t) => h('th', {}, t)))),
      tbody),
      h('div', {class: 'panel-foot'}, more)));
  const stopHealth = mountHealth(healthEl);
  const rows = new Map();
  let cursor = null;

  get('/api/v1/workflows').then((d) => {
    const names = [...new Set(d.items.map((w) => w.name))].sort();
    for (const n of names) wfSel.append(h('option', {value: n, selected: n === workflow}, n));
  }).catch(() => {});

  function put(op, atTop) {
    const tr = row(op);
    const old = rows.get(op.id);
    if (old) old.replaceWith(tr);
    else if (atTop) tbody.prepend(tr);
    else tbody.append(tr);
    rows.set(op.id, tr);
  }

  function showEmpty() {
    if (rows.size === 0) fill(tbody, h('tr', {}, h('td', {colspan: 6, class: 'empty'},
      filtered ? 'No operation matches these filters.'
        : 'No operations yet. Start one to see it here.')));
  }

  async function load() {
    more.disabled = true;
    status.textContent = 'Loading…';
    try {
      const page = await get(`/api/v1/operations${qs({state, workflow, label: search.labels,
        idempotency_key: search.key, created_after: search.after, created_before: search.before,
        limit: PAGE, cursor})}`);
      if (rows.size === 0) tbody.replaceChildren();
      for (const op of page.items) put(op, false);
      cursor = page.next_cursor;
      more.hidden = !cursor;
      status.textContent = `${rows.size} shown`;
      showEmpty();
    } catch (e) {
      status.textContent = '';
      fill(tbody, h('tr', {}, h('td', {colspan: 6, class: 'empty error-text'}, e.message)));
    } finally {
      more.disabled = false;
    }
  }
  more.addEventListener('click', load);

  // Live: refresh the rows that events name; add new matching operations.
  const pending = new Set();
  const flush = debounce(async () => {
    const ids = [...pending];
    pending.clear();
    // A burst (a benchmark): reading the page again is cheaper.
    if (ids.length > 40) {
      rows.clear();
      cursor = null;
      await load();
      return;
    }
    for (const id of ids) {
      try {
        const op = await get(`/api/v1/operations/${encodeURIComponent(id)}`);
        const matches = (!state || op.state === state) && (!workflow || op.workflow === workflow)
          && searched(op, search);
        if (rows.has(id) && !matches && state) {
          rows.get(id).remove();
          rows.delete(id);
        } else if (matches) {
          if (rows.size === 0) tbody.replaceChildren();
          put(op, !rows.has(id));
        }
      } catch (_) { /* gone or no longer readable */ }
    }
    status.textContent = `${rows.size} shown`;
    showEmpty();
  }, 250);
  const unsubscribe = subscribe((ev) => {
    if (ev.resync) {
      rows.clear();
      cursor = null;
      load();
      return;
    }
    // A schedule's skipped fires belong to no operation.
    if (!ev.operation_id) return;
    if (rows.has(ev.operation_id) || ev.type === 'operation_created' || state || searching) {
      pending.add(ev.operation_id);
      flush();
    }
  });
  const ticker = setInterval(() => tickTimes(tbody), 10000);
  load();
  return () => {
    unsubscribe();
    stopHealth();
    clearInterval(ticker);
  };
}
