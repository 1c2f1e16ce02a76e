// A job's durable steps as a timeline, for the job's details: one row per step (ctx.step,
// ctx.sleep, ctx.waitForSignal) in the order first recorded, each with a bar placed on the span
// from the first step's start to the last end (a sleep or a wait reaches its wake-up time or
// deadline, or now). Every value from the API is written with textContent, never as HTML.

const ms = (iso) => (iso === null || iso === undefined ? null : Date.parse(iso));

/** How long, in words: `850 ms`, `12.4 s`, `3.2 min`, `5.0 h`. */
export function formatDuration(millis) {
  if (millis < 1000) return `${Math.round(millis)} ms`;
  if (millis < 60_000) return `${(millis / 1000).toFixed(1)} s`;
  if (millis < 3_600_000) return `${(millis / 60_000).toFixed(1)} min`;
  return `${(millis / 3_600_000).toFixed(1)} h`;
}

/** What a step's row says beside its bar. */
function describe(step, job, now) {
  if (step.type === 'step') {
    const took = step.durationMs === null ? '' : ` in ${formatDuration(step.durationMs)}`;
    return step.status === 'FAILED'
      ? `failed${took} (attempt ${step.attempt}): ${step.error}`
      : `done${took}`;
  }
  const until = ms(step.wakeAt);
  if (step.type === 'sleep') {
    if (until === null) return 'sleeps';
    return until > now ? `sleeps until ${step.wakeAt}` : `slept until ${step.wakeAt}`;
  }
  if (step.status === 'TIMED_OUT') return 'timed out: no signal by its deadline';
  // A wait the job no longer waits on ended by its signal (a deadline would have marked it).
  if (job.waitingFor?.signal !== step.name) return 'signal received';
  return until === null ? 'waits for its signal' : `waits for its signal until ${step.wakeAt}`;
}

/**
 * The timeline of `job` (a `GET /jobs/:id` answer with `steps`), made with `element` (the
 * dashboard's DOM helper); `null` for a job without steps.
 */
export function stepTimeline(job, element, now = Date.now()) {
  const steps = job.steps ?? [];
  if (steps.length === 0) return null;
  const ends = steps.map(
    (s) => ms(s.endedAt) ?? Math.min(ms(s.wakeAt) ?? now, Math.max(now, ms(s.startedAt))),
  );
  const start = Math.min(...steps.map((s) => ms(s.startedAt)));
  const span = Math.max(1, Math.max(...ends) - start);
  const rows = steps.map((step, i) => {
    const left = ((ms(step.startedAt) - start) / span) * 100;
    const width = Math.max(0.5, ((ends[i] - ms(step.startedAt)) / span) * 100);
    const bar = element('span', { className: `bar ${step.type} ${step.status.toLowerCase()}` });
    bar.style.left = `${left.toFixed(2)}%`;
    bar.style.width = `${Math.min(100 - left, width).toFixed(2)}%`;
    return element(
      'li',
      { dataset: { step: step.name, status: step.status } },
      element('span', { className: 'name' }, step.name),
      element('span', { className: `badge ${step.type}` }, step.type),
      element('span', { className: 'track' }, bar),
      element('span', { className: 'what' }, describe(step, job, now)),
    );
  });
  return element('ol', { className: 'timeline' }, ...rows);
}

/** What a job that is not running waits for, in words; `null` when it waits for nothing. */
export function waitingText(job) {
  const waiting = job.waitingFor;
  if (!waiting) return null;
  if ('signal' in waiting) {
    return `the signal "${waiting.signal}"${waiting.deadline === null ? '' : ` until ${waiting.deadline}`}`;
  }
  if ('dependencies' in waiting) return `jobs ${waiting.dependencies.join(', ')}`;
  return `its sleep to end at ${waiting.wakeAt}`;
}
