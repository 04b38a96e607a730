// The schedules page: every schedule with when it fires next, whether it is
// paused, and how many fires started an operation or were skipped; read
// again when the stream says a schedule fired or skipped.

import {get} from './api.js';
import {subscribe} from './stream.js';
import {badge, debounce, fill, h, tickTimes, timeEl} from './util.js';

/** "0 3 * * * · Europe/Berlin", "every 30s" or "every 1h +15m". */
export function whenText(s) {
  if (s.cron) return `${s.cron} · ${s.time_zone}`;
  return `every ${s.every}${s.offset && s.offset !== '0s' ? ` +${s.offset}` : ''}`;
}

/** The next fire, or why there is none. */
export function nextFire(s) {
  if (s.paused) return h('span', {class: 'muted'}, 'paused');
  return s.next_fire ? timeEl(s.next_fire) : h('span', {class: 'muted'}, 'no more fires');
}

/** A badge: active or paused. */
export function scheduleBadge(s) {
  return badge(s.paused ? 'paused' : 'active');
}

/** Whether event `ev` is about a schedule: its fires, or a change to it. */
export function isScheduleEvent(ev) {
  return ev.type === 'schedule_fired' || ev.type === 'schedule_skipped' || ev.type === 'schedule_changed';
}

function row(s) {
  const link = (id) => h('a', {href: `#/operations/${encodeURIComponent(id)}`, class: 'mono'}, id);
  return h('tr', {dataset: {id: s.id, paused: String(s.paused)}},
    h('td', {}, h('a', {href: `#/schedules/${encodeURIComponent(s.id)}`, class: 'mono'}, s.id)),
    h('td', {}, s.workflow, s.version ? h('span', {class: 'muted'}, ` v${s.version}`) : ''),
    h('td', {class: 'mono'}, whenText(s)),
    h('td', {class: 'next-fire'}, nextFire(s)),
    h('td', {}, s.last_operation ? link(s.last_operation) : h('span', {class: 'muted'}, 'none yet')),
    h('td', {class: 'counts', title: 'fires that started an operation / fires skipped'},
      `${s.fired}`, h('span', {class: 'muted'}, ` / ${s.skipped}`)),
    h('td', {}, scheduleBadge(s)));
}

/** Renders the schedules page into `view`; returns its stop. */
export function mountSchedules(view) {
  const tbody = h('tbody');
  const status = h('span', {class: 'muted'});
  fill(view,
    h('div', {class: 'page-head'}, h('div', {}, h('h1', {}, 'Schedules'),
      h('div', {class: 'muted'}, 'Each fire starts one operation of the schedule\'s workflow, '
        + 'once across restarts. Updates live.'))),
    h('div', {class: 'panel flush'},
      h('div', {class: 'panel-head'}, h('h2', {}, 'All schedules'), status),
      h('table', {id: 'schedules'}, h('thead', {}, h('tr', {},
        ['Schedule', 'Workflow', 'When', 'Next fire', 'Last operation', 'Fired / skipped', 'State']
          .map((t) => h('th', {}, t)))),
      tbody)));

  async function load() {
    try {
      const d = await get('/api/v1/schedules');
      fill(tbody, d.items.length ? d.items.map(row)
        : h('tr', {}, h('td', {colspan: 7, class: 'empty'}, 'No schedules yet. Create one with ',
          h('code', {}, 'stepwise schedules create'), ' or POST /api/v1/schedules.')));
      status.textContent = `${d.items.length} schedules`;
    } catch (e) {
      status.textContent = '';
      fill(tbody, h('tr', {}, h('td', {colspan: 7, class: 'empty error-text'}, e.message)));
    }
  }
  const loadSoon = debounce(load, 250);
  const unsubscribe = subscribe((ev) => {
    if (ev.resync || isScheduleEvent(ev)) loadSoon();
  });
  load();
  // Next fires come due without an event: read them again now and then.
  const ticker = setInterval(() => {
    tickTimes(tbody);
    loadSoon();
  }, 10000);
  return () => {
    unsubscribe();
    clearInterval(ticker);
  };
}
