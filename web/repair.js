// Repair of one operation: a retry that patches the input and/or runs
// again from a step, and a skip of the step where it stopped. Each dialog
// first shows what will change, and acts only once that is confirmed.

import {api} from './api.js';
import {h, parseObject, toast} from './util.js';

/** JSON pointer token (RFC 6901). */
function token(key) {
  return key.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** The paths a merge patch (RFC 7396) sets or removes, as the server names them. */
export function patchedPaths(patch, prefix = '') {
  const out = [];
  for (const [k, v] of Object.entries(patch)) {
    const path = `${prefix}/${token(k)}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
      const inner = patchedPaths(v, path);
      out.push(...(inner.length ? inner : [path]));
    } else {
      out.push(path);
    }
  }
  return out;
}

/** The step a retry begins with when none is named: the first not settled. */
function stoppedAt(op) {
  const s = (op.steps || []).find((x) => !['succeeded', 'skipped', 'incomplete'].includes(x.state));
  return s ? s.name : null;
}

/** A dialog in two steps: the form, then a review of what will change. */
function twoStepDialog(title, intro, fields, review, send) {
  const err = h('p', {class: 'error-text', hidden: true});
  const summary = h('ul', {class: 'review'});
  const dlg = h('dialog', {class: 'dialog', dataset: {dialog: title.toLowerCase()}});
  const edit = h('div', {},
    h('p', {class: 'muted'}, intro), ...fields);
  const confirmBox = h('div', {hidden: true},
    h('p', {}, 'This will:'), summary);
  const back = h('button', {class: 'btn btn-ghost', type: 'button', hidden: true}, 'Back');
  const next = h('button', {class: 'btn btn-primary', type: 'submit', dataset: {step: 'review'}}, 'Review');
  const form = h('form', {method: 'dialog'}, h('h2', {}, title), edit, confirmBox, err,
    h('div', {class: 'row-end'},
      h('button', {class: 'btn btn-ghost', type: 'button', onclick: () => dlg.close()}, 'Close'),
      back, next));
  let body = null;
  const showForm = () => {
    body = null;
    edit.hidden = false;
    confirmBox.hidden = true;
    back.hidden = true;
    next.textContent = 'Review';
    next.dataset.step = 'review';
  };
  back.addEventListener('click', showForm);
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.hidden = true;
    if (!body) {
      const r = review(err);
      if (!r) return;
      body = r.body;
      summary.replaceChildren(...r.lines.map((l) => h('li', {}, l)));
      edit.hidden = true;
      confirmBox.hidden = false;
      back.hidden = false;
      next.textContent = `Confirm ${title.toLowerCase()}`;
      next.dataset.step = 'confirm';
      return;
    }
    try {
      await send(body);
      dlg.close();
    } catch (e) {
      err.hidden = false;
      err.textContent = `${title} failed: ${e.status ? `${e.status} ` : ''}${e.message}`;
      showForm();
    }
  });
  dlg.append(form);
  dlg.addEventListener('close', () => dlg.remove());
  document.body.append(dlg);
  dlg.showModal();
  return dlg;
}

function stepSelect(names, firstLabel) {
  return h('select', {}, h('option', {value: ''}, firstLabel),
    ...names.map((n) => h('option', {value: n}, n)));
}

/** The retry dialog: an input patch and a step to run again from. */
export function retryDialog(op, done) {
  const names = (op.steps || []).map((s) => s.name);
  const patch = h('textarea', {rows: 5, placeholder: '{"size": "small"}'});
  const from = stepSelect(names, `where it stopped${stoppedAt(op) ? ` (${stoppedAt(op)})` : ''}`);
  const path = `/api/v1/operations/${encodeURIComponent(op.id)}/retry`;
  twoStepDialog('Retry',
    'Run the operation again. The input patch is a JSON merge patch: null removes a member.',
    [h('label', {class: 'field'}, 'Input patch (JSON, optional)', patch),
      h('label', {class: 'field'}, 'Run again from', from)],
    (err) => {
      const body = {};
      const lines = [];
      if (patch.value.trim()) {
        const p = parseObject(patch.value, 'input patch', err);
        if (!p) return null;
        body.input = p;
        const paths = patchedPaths(p);
        lines.push(`patch the input at ${paths.join(', ') || '(nothing)'}; secret values stay sealed`);
      }
      if (from.value) {
        body.from_step = from.value;
        const rerun = names.slice(names.indexOf(from.value));
        lines.push(`run again: ${rerun.join(', ')} (${rerun.length} step${rerun.length === 1 ? '' : 's'}); the steps before stay as they are`);
      } else {
        lines.push(stoppedAt(op) ? `go on from ${stoppedAt(op)}, where it stopped`
          : 'run its incomplete steps again');
      }
      lines.push(`keep workflow ${op.workflow} version ${op.version}`);
      return {body, lines};
    },
    async (body) => {
      await api('POST', path, body);
      toast('Retry requested.');
      done();
    });
}

/** The skip dialog: the step where the operation stopped, and why. */
export function skipDialog(op, done) {
  const stuck = (op.steps || []).filter((s) => ['failed', 'waiting', 'pending'].includes(s.state))
    .map((s) => s.name);
  const step = stepSelect(stuck, 'choose a step');
  if (stuck.length) step.value = stuck[0];
  const reason = h('input', {required: true, maxlength: 1024, placeholder: 'done by hand'});
  const path = `/api/v1/operations/${encodeURIComponent(op.id)}/skip`;
  twoStepDialog('Skip',
    'Record the step where the operation stopped as skipped and go on with the next one.',
    [h('label', {class: 'field'}, 'Step', step), h('label', {class: 'field'}, 'Reason', reason)],
    (err) => {
      if (!step.value || !reason.value.trim()) {
        err.hidden = false;
        err.textContent = 'Choose a step and give a reason.';
        return null;
      }
      const names = (op.steps || []).map((s) => s.name);
      const after = names.slice(names.indexOf(step.value) + 1);
      return {
        body: {step: step.value, reason: reason.value.trim()},
        lines: [`record ${step.value} as skipped, its body not run: “${reason.value.trim()}”`,
          after.length ? `go on with ${after[0]}` : 'end the operation (no step follows)'],
      };
    },
    async (body) => {
      await api('POST', path, body);
      toast('Step skipped.');
      done();
    });
}
