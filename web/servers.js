// The servers page: every server sharing the store (GET /api/v1/cluster),
// with where it answers and how many operations it drives. Any of them
// takes any request; this lists who is there.

import {get} from './api.js';
import {fill, h, timeEl} from './util.js';

const POLL_MS = 5000;

function row(s) {
  return h('tr', {dataset: {server: s.id}},
    h('td', {class: 'mono'}, s.id, s.self ? [' ', h('span', {class: 'chip small'}, 'this one')] : ''),
    h('td', {}, s.url ? h('a', {href: s.url, class: 'mono'}, s.url) : h('span', {class: 'muted'}, 'not known')),
    h('td', {class: 'mono'}, s.version || '–'),
    h('td', {}, String(s.operations)),
    h('td', {}, timeEl(s.started_at)),
    h('td', {}, s.lease_expires_at ? timeEl(s.lease_expires_at)
      : h('span', {class: 'muted'}, 'no lease: alone on its store')));
}

function table(d) {
  return h('section', {class: 'panel flush'},
    h('table', {id: 'servers', dataset: {shared: String(d.servers.some((s) => s.lease_expires_at))}},
      h('thead', {}, h('tr', {}, ['Server', 'URL', 'Version', 'Operations', 'Started', 'Lease until']
        .map((t) => h('th', {}, t)))),
      h('tbody', {}, d.servers.map(row))));
}

/** Renders the servers page into `view`; returns its stop. */
export function mountServers(view) {
  const body = h('div', {}, h('p', {class: 'muted'}, 'Loading…'));
  fill(view, h('div', {class: 'page-head'}, h('div', {}, h('h1', {}, 'Servers'),
    h('div', {class: 'muted'},
      'The servers sharing this store, oldest first. Any of them takes any request; each drives ' +
      'its share of the operations, and the others take over a server\'s share when its lease ends.'))),
  body);
  let timer = null;
  let stopped = false;
  const refresh = async () => {
    try {
      const d = await get('/api/v1/cluster');
      if (!stopped) fill(body, table(d));
    } catch (e) {
      if (!stopped) fill(body, h('p', {class: 'error-text'}, e.message));
    }
    if (!stopped) timer = setTimeout(refresh, POLL_MS);
  };
  refresh();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
