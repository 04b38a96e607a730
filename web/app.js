// The console's entry: hash routes, the token dialog, the top bar.
//   #/operations[?state=&workflow=]   operations (the start page)
//   #/operations/ID                    one operation
//   #/start[?workflow=]                start an operation
//   #/workflows                        workflows and their steps
//   #/schedules                        schedules
//   #/schedules/ID                     one schedule and the operations it started
//   #/queues                           task queues and their workers
//   #/servers                          the servers sharing the store

import {get, onAuthNeeded, setToken, token} from './api.js';
import {mountDetail} from './detail.js';
import {mountList} from './list.js';
import {mountQueues} from './queues.js';
import {mountScheduleDetail} from './schedule_detail.js';
import {mountSchedules} from './schedules.js';
import {mountServers} from './servers.js';
import {mountStart} from './start.js';
import {connect, onStatus, restart} from './stream.js';
import {mountWorkflows} from './workflows.js';

const view = document.getElementById('view');
let unmount = () => {};

function navigate(hash) {
  if (location.hash === hash) route();
  else location.hash = hash;
}

function route() {
  const raw = location.hash.replace(/^#/, '') || '/operations';
  const [path, query] = raw.split('?');
  const params = new URLSearchParams(query || '');
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  unmount();
  window.scrollTo(0, 0);
  for (const a of document.querySelectorAll('[data-nav]'))
    a.classList.toggle('active', a.dataset.nav === parts[0] && !(parts[0] === 'operations' && parts[1]));
  if (parts[0] === 'operations' && parts[1]) unmount = mountDetail(view, parts[1]);
  else if (parts[0] === 'start') unmount = mountStart(view, params, navigate);
  else if (parts[0] === 'workflows') unmount = mountWorkflows(view);
  else if (parts[0] === 'schedules' && parts[1]) unmount = mountScheduleDetail(view, parts[1], navigate);
  else if (parts[0] === 'schedules') unmount = mountSchedules(view);
  else if (parts[0] === 'queues') unmount = mountQueues(view);
  else if (parts[0] === 'servers') unmount = mountServers(view);
  else unmount = mountList(view, params, navigate);
  document.title = `stepwise · ${parts[0] || 'operations'}`;
}

// -- the token dialog ----------------------------------------------------------

const dialog = document.getElementById('token-dialog');
const tokenInput = document.getElementById('token-input');
const tokenError = document.getElementById('token-error');

function askToken(reason) {
  if (dialog.open) return;
  tokenError.hidden = !reason;
  tokenError.textContent = reason || '';
  tokenInput.value = '';
  dialog.showModal();
  tokenInput.focus();
}

document.getElementById('token-form').addEventListener('submit', async (ev) => {
  ev.preventDefault();
  const value = tokenInput.value.trim();
  if (!value) return;
  const previous = token();
  setToken(value, document.getElementById('token-remember').checked);
  try {
    await get('/api/v1/workflows');
  } catch (e) {
    setToken(previous, false);
    tokenError.hidden = false;
    tokenError.textContent = e.status === 401 ? 'This token was refused.' : e.message;
    return;
  }
  dialog.close();
  updateTokenButton();
  restart();
  route();
});

document.getElementById('token-forget').addEventListener('click', () => {
  setToken('', false);
  updateTokenButton();
  tokenInput.value = '';
});

document.getElementById('token-button').addEventListener('click', () => askToken(''));

const tokenButton = document.getElementById('token-button');
// Whether this server answered without a token (it has no --auth-tokens).
let open = false;

function updateTokenButton() {
  tokenButton.textContent = token() ? 'Token ✓' : 'Token';
  // A server without tokens needs none: the button would only puzzle.
  tokenButton.hidden = open && !token();
}

onAuthNeeded((reason) => {
  open = false;
  updateTokenButton();
  askToken(reason);
});

async function probeOpen() {
  if (token()) return;
  try {
    await get('/api/v1/workflows');
    open = true;
  } catch (_) { /* it asks for a token: the dialog is shown */ }
  updateTokenButton();
}

// -- the top bar ---------------------------------------------------------------

const live = document.getElementById('live');
onStatus((on) => {
  live.classList.toggle('on', on);
  live.textContent = on ? 'live' : 'reconnecting';
  live.title = on ? 'Live updates from the event stream'
    : 'The event stream dropped: connecting again every second';
});

async function pollReady() {
  const pill = document.getElementById('ready');
  try {
    const r = await get('/readyz');
    pill.textContent = 'ready';
    pill.className = 'pill ok';
    pill.title = `GET /readyz: ready, store ${r.store}`;
  } catch (e) {
    pill.textContent = e.status === 503 ? 'not ready' : 'unreachable';
    pill.className = 'pill bad';
    pill.title = e.message;
  }
}

window.addEventListener('hashchange', route);
updateTokenButton();
probeOpen();
pollReady();
setInterval(pollReady, 10000);
route();
connect();
