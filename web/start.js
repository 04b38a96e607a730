// The start page: choose a workflow, write its JSON input, start it.

import {api, get} from './api.js';
import {fill, h, parseObject, pretty} from './util.js';

// Inputs that run as they are with the simulated cloud (--driver sim, its
// locations default and dc1), so that a newcomer can start each built-in
// workflow at once.
const EXAMPLES = {
  demo: {name: 'you'},
  provision_runtime: {
    name: 'rt1', template: 'outputs.url: http://rt1', template_type: 'TOSCA',
    deployment_location: {name: 'dc1', properties: {password: 'secret, shown as ***'}},
  },
  build_and_launch: {
    name: 'app1', deployment_location: {name: 'dc1'}, template_type: 'TOSCA',
    image_template: 'type: image\noutputs.image_id: img-app1',
    instance_template: 'type: vm\noutputs.url: http://app1',
  },
  deprovision_runtime: {provision_operation_id: 'op-… of a succeeded provision_runtime'},
};

/** Renders the start form into `view`; returns its stop. */
export function mountStart(view, params, navigate) {
  const wanted = params.get('workflow') || '';
  const select = h('select', {id: 'start-workflow', required: true});
  const steps = h('div', {class: 'chips'});
  const input = h('textarea', {id: 'start-input', rows: 12, spellcheck: 'false'});
  const key = h('input', {id: 'start-key', placeholder: 'optional, e.g. deploy-2026-11-23'});
  const err = h('p', {class: 'error-text', id: 'start-error', hidden: true});
  const submit = h('button', {class: 'btn btn-primary', type: 'submit', id: 'start-submit'}, 'Start operation');
  let workflows = [];

  function showWorkflow() {
    const wf = workflows.find((w) => w.name === select.value);
    fill(steps, wf ? wf.steps.map((s, i) => h('span', {class: 'chip'},
      h('span', {class: 'muted'}, `${i + 1}`), ` ${s.name}`,
      s.best_effort ? h('span', {class: 'muted'}, ' (best effort)') : '',
      s.compensable ? h('span', {class: 'muted'}, ' (undo)') : '')) : []);
    input.value = pretty(EXAMPLES[select.value] || {});
  }
  select.addEventListener('change', showWorkflow);

  const form = h('form', {class: 'panel start-form', id: 'start-form'},
    h('label', {class: 'field'}, 'Workflow', select,
      h('span', {class: 'hint'}, 'Its steps run in this order:')),
    steps,
    h('label', {class: 'field'}, 'Input (JSON object)', input,
      h('span', {class: 'hint'}, 'Values at the workflow\'s secret paths are stored but shown as "***".')),
    h('label', {class: 'field'}, 'Idempotency key', key,
      h('span', {class: 'hint'}, 'Starting again with the same key and input returns the same operation.')),
    err,
    h('div', {class: 'row-end'}, h('a', {class: 'btn btn-ghost', href: '#/operations'}, 'Back'), submit));
  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    err.hidden = true;
    const parsed = parseObject(input.value, 'input', err);
    if (!parsed) return;
    const body = {workflow: select.value, input: parsed};
    if (key.value.trim()) body.idempotency_key = key.value.trim();
    submit.disabled = true;
    try {
      const r = await api('POST', '/api/v1/operations', body);
      navigate(`#/operations/${encodeURIComponent(r.data.id)}`);
    } catch (e) {
      err.hidden = false;
      err.textContent = `${e.status ? `${e.status} ${e.code}: ` : ''}${e.message}`;
    } finally {
      submit.disabled = false;
    }
  });

  fill(view,
    h('div', {class: 'page-head'}, h('div', {}, h('h1', {}, 'Start an operation'),
      h('div', {class: 'muted'}, 'An operation is one durable run of a workflow: each step\'s result is saved before the next starts.'))),
    form);

  get('/api/v1/workflows').then((d) => {
    const names = new Map();
    for (const w of d.items) if (!names.has(w.name) || names.get(w.name).version < w.version) names.set(w.name, w);
    workflows = [...names.values()].sort((a, b) => a.name.localeCompare(b.name));
    fill(select, workflows.map((w) => h('option', {value: w.name, selected: w.name === wanted},
      `${w.name} (v${w.version})`)));
    showWorkflow();
  }).catch((e) => {
    err.hidden = false;
    err.textContent = e.message;
  });
  return () => {};
}
