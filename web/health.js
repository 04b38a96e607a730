// The health panel: readiness from /readyz, operations by state and the
// step rate from /metrics (counters of this process since it started).

import {get, getText, parseMetrics} from './api.js';
import {fill, h} from './util.js';

const POLL_MS = 5000;

function sum(metrics, name, label, value) {
  return (metrics[name] || [])
    .filter((s) => !label || s.labels[label] === value)
    .reduce((a, s) => a + s.value, 0);
}

function card(label, value, hint, state) {
  const c = h('div', {class: 'stat', title: hint}, h('div', {class: 'stat-value'}, value),
    h('div', {class: 'stat-label'}, label));
  if (state) c.style.setProperty('--c', `var(--s-${state})`);
  return c;
}

/** Renders the panel into `el` and keeps it fresh; returns its stop. */
export function mountHealth(el) {
  let last = null;
  let timer = null;
  let stopped = false;

  async function refresh() {
    let ready;
    try {
      ready = await get('/readyz');
    } catch (e) {
      ready = {status: e.status === 503 ? 'not ready' : 'unreachable'};
    }
    let m = null;
    try {
      m = parseMetrics(await getText('/metrics'));
    } catch (_) { /* metrics may need a token this user lacks */ }
    if (stopped) return;
    const cards = [card('Server', ready.status === 'ready' ? 'Ready' : 'Not ready',
      `GET /readyz: ${ready.status}${ready.store ? `, store ${ready.store}` : ''}`,
      ready.status === 'ready' ? 'succeeded' : 'failed')];
    if (m) {
      const steps = sum(m, 'stepwise_steps_started_total');
      const now = Date.now();
      let rate = '–';
      if (last) rate = (Math.max(0, steps - last.steps) / ((now - last.at) / 1000)).toFixed(1);
      last = {steps, at: now};
      const active = (s) => sum(m, 'stepwise_operations_active', 'state', s);
      const done = (s) => sum(m, 'stepwise_operations_finished_total', 'state', s);
      cards.push(
        card('Running', active('live'), 'Live operations of this process (in memory)', 'in_progress'),
        card('Sleeping', active('sleeping'), 'Operations passivated until a timer', 'waiting'),
        card('Succeeded', done('succeeded'), 'Since the server started', 'succeeded'),
        card('Failed', done('failed'), 'Since the server started', 'failed'),
        card('Canceled', done('canceled'), 'Since the server started', 'canceled'),
        card('Steps / s', rate, 'Step attempts started per second, over the last 5 s'));
    }
    fill(el, ...cards);
  }

  const loop = async () => {
    await refresh();
    if (!stopped) timer = setTimeout(loop, POLL_MS);
  };
  loop();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
