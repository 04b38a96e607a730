// One schedule: its definition, next fire and counts, the operations its
// fires started (GET /api/v1/operations?schedule=ID) with their states, and
// pause, resume, trigger and delete; live from the event stream.

import {api, get} from './api.js';
import {confirmButton, explain, jsonBlock} from './actions.js';
import {isScheduleEvent, nextFire, scheduleBadge, whenText} from './schedules.js';
import {subscribe} from './stream.js';
import {badge, debounce, fill, h, tickTimes, timeEl, toast} from './util.js';

const OPS_SHOWN = 20;

// The next fire as "in 18 h" with its local date and time below.
function nextFireWithDate(s) {
  const el = nextFire(s);
  if (s.paused || !s.next_fire) return el;
  return h('span', {}, el, h('div', {class: 'muted small'}, new Date(s.next_fire).toLocaleString()));
}

function summary(s) {
  const item = (label, value, field, cls) =>
    h('div', {class: `kv ${cls || ''}`, dataset: {field}}, h('dt', {}, label), h('dd', {}, value));
  const none = (text) => h('span', {class: 'muted'}, text);
  return h('dl', {class: 'kvs'},
    item('Workflow', h('span', {}, h('a', {href: '#/workflows'}, s.workflow),
      s.version ? ` v${s.version}` : none(' · newest version')), 'workflow'),
    item('When', h('span', {class: 'mono'}, whenText(s)), 'when', 'wide'),
    item('Next fire', nextFireWithDate(s), 'next_fire'),
    item('Last fire', s.last_fire ? timeEl(s.last_fire) : none('never'), 'last_fire'),
    item('Fired', s.fired, 'fired'),
    item('Skipped', s.skipped, 'skipped'),
    item('Overlap', s.overlap, 'overlap'),
    item('Catch up', `${s.catch_up}${s.catch_up === 'all' ? ` (within ${s.catch_up_window})` : ''}`,
      'catch_up'),
    item('Ends', s.end_at ? timeEl(s.end_at) : none('never'), 'end_at'),
    item('Created', timeEl(s.created_at), 'created_at'),
    item('Updated', timeEl(s.updated_at), 'updated_at'));
}

function opsTable(items) {
  if (!items.length)
    return h('p', {class: 'empty'}, 'No fire has started an operation yet. Trigger one to try it.');
  return h('table', {id: 'schedule-operations'},
    h('thead', {}, h('tr', {}, ['Operation', 'State', 'Created', 'Updated', 'Error']
      .map((t) => h('th', {}, t)))),
    h('tbody', {}, items.map((op) => h('tr', {dataset: {id: op.id, state: op.state}},
      h('td', {}, h('a', {href: `#/operations/${encodeURIComponent(op.id)}`, class: 'mono'}, op.id)),
      h('td', {}, badge(op.state)),
      h('td', {}, timeEl(op.created_at)),
      h('td', {}, timeEl(op.updated_at)),
      h('td', {class: 'error-cell', title: op.error || ''}, op.error || '')))));
}

/** Renders schedule `id` into `view`; returns its stop. */
export function mountScheduleDetail(view, id, navigate) {
  const path = `/api/v1/schedules/${encodeURIComponent(id)}`;
  const title = h('div', {class: 'title-row'}, h('h1', {class: 'mono'}, id));
  const actions = h('div', {class: 'row', id: 'actions'});
  const errorBox = h('div', {class: 'error-box', hidden: true});
  const summaryEl = h('div');
  const opsEl = h('div');
  const opsNote = h('span', {class: 'muted'});
  const input = h('div');
  fill(view,
    h('div', {class: 'crumbs'}, h('a', {href: '#/schedules'}, 'Schedules'), ' / ', id),
    h('div', {class: 'page-head'}, title, actions),
    errorBox,
    h('div', {class: 'panel'}, summaryEl),
    h('div', {class: 'panel flush'},
      h('div', {class: 'panel-head'}, h('h2', {}, 'Operations it started'), opsNote), opsEl),
    h('div', {class: 'panel'}, h('h2', {}, 'Input of each operation'), input));

  // Each action answers with the schedule (trigger: with the operation).
  async function act(method, verb, what, after) {
    try {
      const r = await api(method, verb ? `${path}/${verb}` : path, method === 'POST' ? {} : undefined);
      after(r.data);
    } catch (e) {
      toast(explain(e, what), 'error');
    }
  }

  function buttons(s) {
    const out = [];
    if (s.paused)
      out.push(h('button', {class: 'btn btn-primary', type: 'button', dataset: {action: 'resume'},
        onclick: () => act('POST', 'resume', 'Resume', (x) => { toast('Resumed.'); render(x); })},
      'Resume'));
    else
      out.push(h('button', {class: 'btn', type: 'button', dataset: {action: 'pause'},
        onclick: () => act('POST', 'pause', 'Pause', (x) => { toast('Paused.'); render(x); })},
      'Pause'));
    out.push(h('button', {class: 'btn', type: 'button', dataset: {action: 'trigger'},
      title: 'Fire now, once: start one operation',
      onclick: () => act('POST', 'trigger', 'Trigger', (op) => {
        toast(`Fired: operation ${op.id} started.`);
        refresh();
      })}, 'Trigger now'));
    out.push(confirmButton('Delete', 'btn-danger', 'Click again to delete',
      () => act('DELETE', '', 'Delete', () => {
        toast(`Schedule ${id} deleted; its operations stay.`);
        navigate('#/schedules');
      })));
    return out;
  }

  function render(s) {
    fill(title, h('h1', {class: 'mono'}, s.id), scheduleBadge(s));
    title.dataset.paused = String(s.paused);
    fill(actions, buttons(s));
    errorBox.hidden = true;
    fill(summaryEl, summary(s));
    fill(input, jsonBlock(s.input));
  }

  let shown = new Set();
  async function loadOps() {
    try {
      const page = await get(`/api/v1/operations?schedule=${encodeURIComponent(id)}&limit=${OPS_SHOWN}`);
      shown = new Set(page.items.map((op) => op.id));
      fill(opsEl, opsTable(page.items));
      opsNote.textContent = page.next_cursor ? `the last ${OPS_SHOWN}` : `${page.items.length} shown`;
    } catch (e) {
      opsNote.textContent = e.message;
    }
  }

  async function refresh() {
    try {
      render(await get(path));
    } catch (e) {
      fill(actions);
      errorBox.hidden = false;
      fill(errorBox, e.status === 404 ? `No schedule ${id}.` : e.message);
    }
    loadOps();
  }
  const refreshSoon = debounce(refresh, 200);
  const unsubscribe = subscribe((ev) => {
    if (ev.resync || shown.has(ev.operation_id) || (isScheduleEvent(ev) && ev.schedule === id))
      refreshSoon();
  });
  refresh();
  const ticker = setInterval(() => tickTimes(view), 10000);
  return () => {
    unsubscribe();
    clearInterval(ticker);
  };
}
