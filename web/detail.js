// One operation: summary, actions, steps, the timeline of its events,
// input and data; live from the event stream.

import {get} from './api.js';
import {actionButtons, jsonBlock} from './actions.js';
import {subscribe} from './stream.js';
import {badge, debounce, duration, fill, h, shortId, tickTimes, timeEl} from './util.js';

function summary(op) {
  const item = (label, value) => h('div', {class: 'kv'}, h('dt', {}, label), h('dd', {}, value));
  return h('dl', {class: 'kvs'},
    item('Workflow', h('span', {}, h('a', {href: `#/workflows`}, op.workflow), ` v${op.version}`)),
    item('Created', timeEl(op.created_at)),
    item('Updated', timeEl(op.updated_at)),
    item('Deadline', op.deadline ? timeEl(op.deadline) : h('span', {class: 'muted'}, 'none')),
    op.key ? item('Serialization key', h('span', {class: 'mono'}, op.key)) : null,
    op.blocked_by ? item('Waiting for', h('span', {class: 'mono'}, op.blocked_by)) : null,
    op.parent_id ? item('Parent operation', h('a', {href: `#/operations/${encodeURIComponent(op.parent_id)}`,
      class: 'mono', dataset: {link: 'parent'}}, op.parent_id)) : null,
    op.schedule_id ? item('Schedule', h('a', {href: `#/schedules/${encodeURIComponent(op.schedule_id)}`,
      class: 'mono', dataset: {link: 'schedule'}}, op.schedule_id)) : null,
    op.owner ? item('Server', h('a', {href: '#/servers', class: 'mono', dataset: {link: 'owner'}},
      op.owner)) : null);
}

function signalsTable(op) {
  return h('table', {id: 'signals'},
    h('thead', {}, h('tr', {}, ['Signal', 'Id', 'Received', 'Taken by'].map((t) => h('th', {}, t)))),
    h('tbody', {}, op.signals.map((s) => h('tr', {},
      h('td', {class: 'mono'}, s.name), h('td', {class: 'mono muted'}, s.signal_id),
      h('td', {}, timeEl(s.received_at)),
      h('td', {class: 'mono'}, s.consumed_by || h('span', {class: 'muted'}, 'not yet'))))));
}

function stepsTable(op) {
  const comp = op.steps.some((s) => s.compensation);
  const head = ['#', 'Step', 'State', 'Attempts', 'Duration', 'Next attempt', 'Last error'];
  if (comp) head.splice(3, 0, 'Compensation');
  return h('table', {id: 'steps'},
    h('thead', {}, h('tr', {}, head.map((t) => h('th', {}, t)))),
    h('tbody', {}, op.steps.map((s, i) => h('tr', {dataset: {step: s.name, state: s.state}},
      h('td', {class: 'muted'}, i + 1),
      h('td', {class: 'mono'}, s.name),
      h('td', {}, badge(s.state)),
      comp ? h('td', {}, s.compensation ? badge(s.compensation) : '') : null,
      h('td', {}, s.attempts),
      h('td', {}, s.attempts ? duration(s.duration_ms) : '-'),
      h('td', {}, s.next_attempt_at ? timeEl(s.next_attempt_at) : '-'),
      h('td', {class: s.state === 'failed' ? 'error-cell' : 'note-cell', title: s.last_error || ''},
        s.last_error || '')))));
}

function eventDetail(ev) {
  const parts = [];
  if (ev.step) parts.push(h('span', {class: 'mono'}, ev.step));
  if (ev.name) parts.push(h('span', {class: 'mono'}, ev.name));
  if (ev.schedule) parts.push(h('a', {href: `#/schedules/${encodeURIComponent(ev.schedule)}`, class: 'mono'}, ev.schedule));
  if (ev.blocked_by) parts.push(h('span', {class: 'muted'}, `waits for ${ev.blocked_by}`));
  if (ev.attempt) parts.push(h('span', {class: 'muted'}, ` attempt ${ev.attempt}`));
  // Repairs: what changed (patched paths, never values), and why a step was skipped.
  if (Array.isArray(ev.paths)) parts.push(h('span', {class: 'mono muted'}, ` ${ev.paths.join(', ')}`));
  if (Array.isArray(ev.steps)) parts.push(h('span', {class: 'mono muted'}, ` ${ev.steps.join(', ')}`));
  if (ev.reason && ev.type === 'step_skipped') parts.push(h('div', {class: 'muted small'}, ev.reason));
  // Every event carries the operation's state after it; next to a step's
  // event it would read as the step's, and operation_waiting says it already.
  if (ev.state && !ev.type.startsWith('step_') && ev.type !== `operation_${ev.state}`)
    parts.push(h('span', {class: 'muted'}, ` · operation ${ev.state.replace('_', ' ')}`));
  if (ev.error) parts.push(h('div', {class: /failed|timed_out/.test(ev.type) ? 'error-text small' : 'muted small'}, ev.error));
  // Who did it, when a request did (a token's name, anonymous, osb:USER,
  // schedule:ID, parent:ID); a step's own events name nobody.
  if (ev.by) parts.push(h('div', {class: 'event-by small', title: 'who did it'}, 'by ', h('span', {class: 'mono'}, ev.by)));
  return parts;
}

function eventItem(ev) {
  const kind = /failed|timed_out|canceled/.test(ev.type) ? 'bad'
    : /succeeded|completed/.test(ev.type) ? 'good'
    : /retry|waiting|compensation|paused|queued/.test(ev.type) ? 'warn' : '';
  return h('li', {class: `event ${kind}`, dataset: {type: ev.type, seq: ev.seq}},
    h('div', {class: 'event-head'}, h('span', {class: 'event-type'}, ev.type.replaceAll('_', ' ')),
      h('time', {datetime: ev.time, title: ev.time}, new Date(ev.time).toLocaleTimeString())),
    h('div', {class: 'event-body'}, eventDetail(ev)));
}

/** Renders operation `id` into `view`; returns its stop. */
export function mountDetail(view, id) {
  const title = h('div', {class: 'title-row'}, h('h1', {class: 'mono'}, id));
  const actions = h('div', {class: 'row', id: 'actions'});
  const errorBox = h('div', {class: 'error-box', hidden: true});
  const summaryEl = h('div');
  const stepsEl = h('div', {class: 'panel flush'});
  const signalsEl = h('div', {class: 'panel flush', hidden: true});
  const timeline = h('ol', {class: 'timeline', id: 'timeline'});
  const timelineNote = h('span', {class: 'muted'});
  const input = h('div');
  const data = h('div');
  const seen = new Set();
  fill(view,
    h('div', {class: 'crumbs'}, h('a', {href: '#/operations'}, 'Operations'), ' / ', shortId(id)),
    h('div', {class: 'page-head'}, title, actions),
    errorBox,
    h('div', {class: 'detail-grid'},
      h('div', {class: 'detail-main'},
        h('div', {class: 'panel'}, summaryEl),
        stepsEl,
        signalsEl,
        h('div', {class: 'grid-2'},
          h('div', {class: 'panel'}, h('h2', {}, 'Input'), input),
          h('div', {class: 'panel'}, h('h2', {}, 'Data'), data))),
      h('div', {class: 'panel detail-side'},
        h('div', {class: 'row spread'}, h('h2', {}, 'Timeline'), timelineNote),
        h('div', {class: 'timeline-scroll'}, timeline))));

  let current = null;
  function render(op) {
    current = op;
    fill(title, h('h1', {class: 'mono'}, op.id), badge(op.state));
    title.dataset.state = op.state;
    fill(actions, actionButtons(op, () => refresh()));
    errorBox.hidden = !op.error;
    fill(errorBox, op.error ? [h('b', {}, 'Error: '), op.error] : []);
    fill(summaryEl, summary(op));
    fill(stepsEl, h('div', {class: 'panel-head'}, h('h2', {}, 'Steps'),
      h('span', {class: 'muted'}, `${op.steps.length} steps`)), stepsTable(op));
    const signals = op.signals || [];
    signalsEl.hidden = signals.length === 0;
    fill(signalsEl, signals.length ? [h('div', {class: 'panel-head'}, h('h2', {}, 'Signals'),
      h('span', {class: 'muted'}, `${signals.length} received`)), signalsTable(op)] : []);
    fill(input, jsonBlock(op.input));
    fill(data, jsonBlock(op.data));
  }

  function addEvent(ev) {
    if (seen.has(ev.seq)) return;
    seen.add(ev.seq);
    const item = eventItem(ev);
    // Keep log order even when the stream and the first read overlap.
    const after = [...timeline.children].find((li) => Number(li.dataset.seq) > ev.seq);
    // Only the events scroll: the panel's title stays in view.
    const side = timeline.parentElement;
    const atEnd = side.scrollHeight - side.scrollTop - side.clientHeight < 40;
    if (after) after.before(item);
    else timeline.append(item);
    // Follow new events, unless the reader scrolled up to older ones.
    if (!after && atEnd) side.scrollTop = side.scrollHeight;
    timelineNote.textContent = `${seen.size} events`;
  }

  async function refresh() {
    try {
      render(await get(`/api/v1/operations/${encodeURIComponent(id)}`));
    } catch (e) {
      fill(title, h('h1', {class: 'mono'}, id));
      errorBox.hidden = false;
      fill(errorBox, e.status === 404 ? `No operation ${id}.` : e.message);
    }
  }
  const refreshSoon = debounce(refresh, 150);
  // The operation, then its timeline; then the state again, since events
  // may have come between the two reads.
  async function load() {
    await refresh();
    if (!current) return;
    try {
      // Page by page: the server reads its index by operation, so the
      // timeline is whole however many other events came between.
      let after = 0;
      for (;;) {
        const t = await get(`/api/v1/operations/${encodeURIComponent(id)}/events?after=${after}`);
        for (const ev of t.items) addEvent(ev);
        if (t.next_after === null || t.next_after === undefined) break;
        after = t.next_after;
      }
    } catch (e) {
      timelineNote.textContent = e.message;
    }
    refreshSoon();
  }
  const unsubscribe = subscribe((ev) => {
    if (ev.resync) return load();
    if (ev.operation_id !== id) return;
    addEvent(ev);
    refreshSoon();
  });
  load();
  const ticker = setInterval(() => tickTimes(view), 10000);
  return () => {
    unsubscribe();
    clearInterval(ticker);
  };
}
