// The workflows page: every registered definition with its steps.

import {get} from './api.js';
import {duration, fill, h} from './util.js';

function policy(p) {
  if (!p) return h('span', {class: 'muted'}, 'default');
  const parts = [];
  if (p.max_attempts) parts.push(`${p.max_attempts} attempts`);
  if (p.initial_interval_ms !== undefined) parts.push(`from ${duration(p.initial_interval_ms)}`);
  if (p.multiplier) parts.push(`×${p.multiplier}`);
  if (p.max_interval_ms) parts.push(`up to ${duration(p.max_interval_ms)}`);
  return parts.length ? parts.join(', ') : JSON.stringify(p);
}

function kind(s) {
  const tags = [];
  if (s.kind === 'sleep') tags.push(`sleep ${duration(s.sleep_ms)}`);
  if (s.best_effort) tags.push('best effort');
  if (s.compensable) tags.push('has undo');
  if (s.conditional) tags.push('conditional');
  if (s.timeout_ms) tags.push(`timeout ${duration(s.timeout_ms)}`);
  return tags.length ? tags.map((t) => h('span', {class: 'chip small'}, t)) : h('span', {class: 'muted'}, 'step');
}

function card(wf) {
  return h('section', {class: 'panel flush', dataset: {workflow: wf.name}},
    h('div', {class: 'panel-head'},
      h('div', {}, h('h2', {}, wf.name, h('span', {class: 'muted'}, ` v${wf.version}`)),
        wf.secret_paths.length
          ? h('div', {class: 'muted small'}, `Secret: ${wf.secret_paths.join(', ')} (shown as ***)`) : ''),
      h('div', {class: 'row'},
        h('a', {class: 'btn', href: `#/operations?workflow=${encodeURIComponent(wf.name)}`}, 'Operations'),
        h('a', {class: 'btn btn-primary', href: `#/start?workflow=${encodeURIComponent(wf.name)}`}, 'Start'))),
    h('table', {}, h('thead', {}, h('tr', {}, ['#', 'Step', 'Kind', 'Retry policy'].map((t) => h('th', {}, t)))),
      h('tbody', {}, wf.steps.map((s, i) => h('tr', {},
        h('td', {class: 'muted'}, i + 1), h('td', {class: 'mono'}, s.name),
        h('td', {}, kind(s)), h('td', {}, policy(s.retry_policy)))))));
}

/** Renders the workflows page into `view`; returns its stop. */
export function mountWorkflows(view) {
  const list = h('div', {id: 'workflows'}, h('p', {class: 'muted'}, 'Loading…'));
  fill(view, h('div', {class: 'page-head'}, h('div', {}, h('h1', {}, 'Workflows'),
    h('div', {class: 'muted'}, 'The definitions this server runs. Steps run in order; a failed step is retried by its policy.'))),
  list);
  get('/api/v1/workflows').then((d) => {
    const items = [...d.items].sort((a, b) => a.name.localeCompare(b.name) || b.version - a.version);
    fill(list, items.length ? items.map(card) : h('p', {class: 'muted'}, 'No workflow is registered.'));
  }).catch((e) => fill(list, h('p', {class: 'error-text'}, e.message)));
  return () => {};
}
