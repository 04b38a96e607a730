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

function card(label, value, sub, hint, state) {
  const c = h('div', {class: 'stat', title: hint}, h('div', {class: 'stat-value'}, value),
    h('div', {class: 'stat-label'}, label), h('div', {class: 'stat-sub'}, sub));
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
      // The server says why (e.g. "not ready: the store fails: ..."): show it.
      ready = {status: e.status === 503 ? 'not ready' : 'unreachable',
               reason: e.status === 503 ? e.message : ''};
    }
    let m = null;
    try {
      m = parseMetrics(await getText('/metrics'));
    } catch (_) { /* metrics may need a token this user lacks */ }
    if (stopped) return;
    const isReady = ready.status === 'ready';
    const cards = [card('Server', isReady ? 'Ready' : 'Not ready',
      ready.store ? `store ${ready.store}` : (ready.reason || ready.status),
      `GET /readyz: ${ready.reason || ready.status}`, isReady ? 'succeeded' : 'failed')];
    // A reason is read whole, not cut to one line.
    if (ready.reason) cards[0].querySelector('.stat-sub').style.whiteSpace = 'normal';
    if (m) {
      const steps = sum(m, 'stepwise_steps_started_total');
      const now = Date.now();
      let rate = '…';
      if (last) rate = (Math.max(0, steps - last.steps) / ((now - last.at) / 1000)).toFixed(1);
      last = {steps, at: now};
      // The process's own gauges and counters: "live" operations are in
      // memory, "sleeping" ones wait for a timer with nothing in memory.
      const active = (s) => sum(m, 'stepwise_operations_active', 'state', s);
      const done = (s) => sum(m, 'stepwise_operations_finished_total', 'state', s);
      const since = 'since the server started';
      cards.push(
        card('Unfinished', active('live') + active('sleeping'),
          `${active('live')} in memory, ${active('sleeping')} asleep`,
          'Operations not yet ended that this server runs: in memory, or asleep until a timer',
          'in_progress'),
        card('Succeeded', done('succeeded'), since, `Operations that succeeded ${since}`, 'succeeded'),
        card('Failed', done('failed'), since, `Operations that failed ${since}`, 'failed'),
        card('Canceled', done('canceled'), since, `Operations canceled ${since}`, 'canceled'),
        card('Steps / s', rate, last && rate !== '…' ? 'over the last 5 s' : 'measuring',
          'Step attempts started per second (stepwise_steps_started_total)'));
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
