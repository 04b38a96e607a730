// The buttons of one operation: cancel, retry, skip, pause, resume and signal,
// each shown when the operation's state allows it, sent with the user's
// token. Pause, resume and signals are newer routes: a server without them
// answers 404 or 405, which is said plainly.

import {ApiError, api} from './api.js';
import {retryDialog, skipDialog} from './repair.js';
import {h, isTerminal, parseObject, pretty, toast} from './util.js';

/** Says why action `what` failed (a missing route plainly). */
export function explain(e, what) {
  if (e instanceof ApiError && (e.status === 404 || e.status === 405) && e.code !== 'not_found')
    return `${what}: this server does not offer it yet (${e.status}).`;
  if (e instanceof ApiError && e.status === 404 && /route/.test(e.message))
    return `${what}: this server does not offer it yet (404).`;
  return `${what} failed: ${e.status ? `${e.status} ` : ''}${e.message}`;
}

async function command(id, verb, what, body, done) {
  try {
    await api('POST', `/api/v1/operations/${encodeURIComponent(id)}/${verb}`, body || {});
    toast(`${what} requested.`);
    done();
  } catch (e) {
    toast(explain(e, what), 'error');
  }
}

/** A button that asks for a second click before it acts. */
export function confirmButton(label, cls, confirmLabel, act) {
  const b = h('button', {class: `btn ${cls}`, type: 'button', dataset: {action: label.toLowerCase()}}, label);
  let armed = null;
  b.addEventListener('click', () => {
    if (armed) {
      clearTimeout(armed);
      armed = null;
      b.textContent = label;
      act();
      return;
    }
    b.textContent = confirmLabel;
    armed = setTimeout(() => {
      armed = null;
      b.textContent = label;
    }, 4000);
  });
  return b;
}

function signalDialog(id, done) {
  const name = h('input', {required: true, placeholder: 'approved', pattern: '[A-Za-z0-9_.\\-]+'});
  const payload = h('textarea', {rows: 6}, '{}');
  const signalId = h('input', {placeholder: 'optional: a repeat with the same id is ignored'});
  const err = h('p', {class: 'error-text', hidden: true});
  const dlg = h('dialog', {class: 'dialog'});
  const form = h('form', {method: 'dialog'},
    h('h2', {}, 'Send a signal'),
    h('p', {class: 'muted'}, 'A named event for the operation; a step waiting for it goes on.'),
    h('label', {class: 'field'}, 'Name', name),
    h('label', {class: 'field'}, 'Payload (JSON)', payload),
    h('label', {class: 'field'}, 'Signal id', signalId),
    err,
    h('div', {class: 'row-end'},
      h('button', {class: 'btn btn-ghost', type: 'button', onclick: () => dlg.close()}, 'Close'),
      h('button', {class: 'btn btn-primary', type: 'submit'}, 'Send')));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const body = parseObject(payload.value || '{}', 'payload', err);
    if (!body) return;
    // The API takes the signal's id as a field of the payload object.
    if (signalId.value.trim()) body.signal_id = signalId.value.trim();
    try {
      const r = await api('POST',
        `/api/v1/operations/${encodeURIComponent(id)}/signals/${encodeURIComponent(name.value)}`, body);
      toast(r.status === 200 ? 'That signal id was already received.' : 'Signal sent.');
      dlg.close();
      done();
    } catch (e) {
      err.hidden = false;
      err.textContent = explain(e, 'Signal');
    }
  });
  dlg.append(form);
  dlg.addEventListener('close', () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();
  name.focus();
}

/** Returns the action buttons for `op`; `done` is called after an action. */
export function actionButtons(op, done) {
  const s = op.state;
  const out = [];
  // A queued operation (blocked_by) is canceled rather than paused; one
  // asked to pause while an attempt runs (pause_requested) may be resumed.
  const pausing = op.pause_requested === true && !isTerminal(s);
  if ((s === 'pending' || s === 'in_progress' || s === 'waiting') && !op.blocked_by && !pausing)
    out.push(h('button', {class: 'btn', type: 'button', dataset: {action: 'pause'},
      onclick: () => command(op.id, 'pause', 'Pause', null, done)}, 'Pause'));
  if (s === 'paused' || pausing)
    out.push(h('button', {class: 'btn btn-primary', type: 'button', dataset: {action: 'resume'},
      onclick: () => command(op.id, 'resume', 'Resume', null, done)}, 'Resume'));
  if (!isTerminal(s))
    out.push(h('button', {class: 'btn', type: 'button', dataset: {action: 'signal'},
      onclick: () => signalDialog(op.id, done)}, 'Signal…'));
  // Retry and skip open a dialog that shows what will change before it acts.
  if (s === 'failed' || s === 'canceled' || s === 'paused' || s === 'succeeded')
    out.push(h('button', {class: `btn${s === 'failed' ? ' btn-primary' : ''}`, type: 'button',
      dataset: {action: 'retry'}, onclick: () => retryDialog(op, done)}, 'Retry…'));
  if (s === 'failed' || s === 'paused' || s === 'waiting')
    out.push(h('button', {class: 'btn', type: 'button', dataset: {action: 'skip'},
      onclick: () => skipDialog(op, done)}, 'Skip…'));
  if (s === 'pending' || s === 'in_progress' || s === 'waiting' || s === 'paused')
    out.push(confirmButton('Cancel', 'btn-danger', 'Click again to cancel',
      () => command(op.id, 'cancel', 'Cancel', null, done)));
  return out;
}

/** A JSON block; secrets are masked by the API already ("***"). */
export function jsonBlock(value) {
  return h('pre', {class: 'json'}, pretty(value));
}
