// Changing a queue's cluster-wide limits from the queue table: a dialog with the three limits
// (concurrency, rate limit, key concurrency; an empty field is no limit), then a confirmation
// step that lists each change as old → new. Nothing is sent before the operator confirms; then
// one `PATCH /queues/:name` with the changed fields only (scope admin).

/** The limit fields of a queue, as `GET /queues` shows them and `PATCH /queues/:name` takes them. */
const FIELDS = ['concurrency', 'rateLimit', 'keyConcurrency'];

/** A limit in words, as the confirmation shows it: `3 at once`, `25 per 1000 ms`, `none`. */
export function limitText(field, value) {
  if (value === null || value === undefined) return 'none';
  if (field === 'rateLimit') return `${value.limit} per ${value.intervalMs} ms`;
  return field === 'keyConcurrency' ? `${value} per key` : `${value} at once`;
}

/** A whole number from 1, or `null` for an empty field; a `string` is what to fix. */
function wholeNumber(text, label) {
  const trimmed = text.trim();
  if (trimmed === '') return null;
  if (!/^[1-9][0-9]*$/.test(trimmed)) return `${label} must be a whole number from 1, or empty for no limit`;
  return Number(trimmed);
}

/**
 * The limits a filled-in form asks for: `{ limits }` with each field a number, `{limit,
 * intervalMs}` or `null`, or `{ problem }` naming the field to fix.
 */
export function readLimitsForm(form) {
  const values = {};
  for (const [name, label] of [
    ['concurrency', 'concurrency'],
    ['keyConcurrency', 'per-key concurrency'],
    ['rateLimit', 'rate limit'],
    ['intervalMs', 'rate window'],
  ]) {
    const value = wholeNumber(form.elements[name].value, label);
    if (typeof value === 'string') return { problem: value };
    values[name] = value;
  }
  if ((values.rateLimit === null) !== (values.intervalMs === null)) {
    return { problem: 'a rate limit needs both a number of starts and a window in ms, or neither' };
  }
  return {
    limits: {
      concurrency: values.concurrency,
      rateLimit:
        values.rateLimit === null ? null : { limit: values.rateLimit, intervalMs: values.intervalMs },
      keyConcurrency: values.keyConcurrency,
    },
  };
}

/** The fields of `next` that differ from `queue`'s: the body of the PATCH. */
export function limitChanges(queue, next) {
  const changes = {};
  for (const field of FIELDS) {
    if (JSON.stringify(queue[field] ?? null) !== JSON.stringify(next[field])) changes[field] = next[field];
  }
  return changes;
}

/**
 * Opens the limits dialog (`dialog#limits-dialog` of index.html) for `queue` (a `GET /queues`
 * entry). `save(name, changes)` sends the PATCH and resolves when done; `element` is the
 * dashboard's DOM helper.
 */
export function editQueueLimits(queue, { save, element }) {
  const dialog = document.querySelector('#limits-dialog');
  const form = dialog.querySelector('form');
  const review = dialog.querySelector('.review');
  const problem = dialog.querySelector('.problem');
  const confirm = dialog.querySelector('button.confirm');
  const back = dialog.querySelector('button.back');
  dialog.dataset.queue = queue.name;
  dialog.querySelector('.queue-name').textContent = queue.name;
  form.elements.concurrency.value = queue.concurrency ?? '';
  form.elements.keyConcurrency.value = queue.keyConcurrency ?? '';
  form.elements.rateLimit.value = queue.rateLimit?.limit ?? '';
  form.elements.intervalMs.value = queue.rateLimit?.intervalMs ?? '';
  let changes = {};
  const step = (name) => {
    dialog.dataset.step = name;
    form.hidden = name !== 'edit';
    review.hidden = name !== 'confirm';
  };
  const say = (text) => {
    problem.hidden = !text;
    problem.textContent = text ?? '';
  };
  form.onsubmit = (event) => {
    event.preventDefault();
    const read = readLimitsForm(form);
    if (read.problem) return say(read.problem);
    changes = limitChanges(queue, read.limits);
    const fields = Object.keys(changes);
    if (fields.length === 0) return say('nothing to change: these are the limits the queue has');
    say(undefined);
    review
      .querySelector('ul')
      .replaceChildren(
        ...fields.map((field) =>
          element(
            'li',
            { dataset: { field } },
            element('strong', {}, field),
            ` ${limitText(field, queue[field])} → ${limitText(field, changes[field])}`,
          ),
        ),
      );
    step('confirm');
    confirm.focus();
  };
  back.onclick = () => step('edit');
  confirm.onclick = async () => {
    confirm.disabled = true;
    try {
      await save(queue.name, changes);
      dialog.close('saved');
    } catch (error) {
      say(
        error.status === 401 || error.status === 403
          ? `${error.message}: changing limits needs an API key with the admin scope`
          : error.message,
      );
    } finally {
      confirm.disabled = false;
    }
  };
  for (const cancel of dialog.querySelectorAll('button.cancel'))
    cancel.onclick = () => dialog.close('cancelled');
  say(undefined);
  step('edit');
  dialog.showModal();
}
