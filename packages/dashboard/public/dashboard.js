// The nudge dashboard: reads the service's JSON API every few seconds and renders it. No build
// step; the charts are uPlot (loaded as a global by index.html). Every value from the API is
// written with textContent, never as HTML. Each refresh reads bounded answers only: the totals of
// /stats, one page of /queues, job summaries; a job's payload and result are read when its row is
// expanded.

import { createDependencyPanel } from './dependency-panel.js';
import {
  addressWithFilters,
  fillFilterForm,
  filtersFromAddress,
  filtersFromForm,
  jobListQuery,
} from './job-filters.js';
import { editQueueLimits } from './queue-limits.js';
import { stepTimeline, waitingText } from './step-timeline.js';
import { closeJobLogs, jobLogsPanel } from './job-logs.js';

const REFRESH_MS = 2000;
const STATUSES = ['WAITING', 'SCHEDULED', 'PENDING', 'RUNNING', 'SUCCEEDED', 'FAILED', 'CANCELLED'];
const RETRYABLE = ['FAILED', 'CANCELLED'];
const UNFINISHED = ['WAITING', 'SCHEDULED', 'PENDING', 'RUNNING'];
const KEY_STORAGE = 'nudge.apiKey';
/** Queues per page of the queue table (GET /queues answers at most 500). */
const QUEUE_PAGE = 50;

const $ = (selector) => document.querySelector(selector);
const expanded = new Set();
/** Whole jobs of expanded rows, by id: read once with GET /jobs/:id, again when the job changed. */
const details = new Map();
const charts = {};
const dependencies = createDependencyPanel({ api, onError: (error) => showError(error) });
/** The job list's filters: the page address's (job-filters.js). */
let filters = filtersFromAddress(location.search);
/** Cursors of the queue pages shown so far: the last one is the page on screen. */
let queueCursors = [null];
let nextQueueCursor = null;

function element(tag, props = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === 'dataset') Object.assign(node.dataset, value);
    else if (key.startsWith('on')) node.addEventListener(key.slice(2), value);
    else node[key] = value;
  }
  for (const child of children) node.append(child instanceof Node ? child : String(child ?? ''));
  return node;
}

async function api(path, init = {}) {
  const key = localStorage.getItem(KEY_STORAGE);
  const headers = { ...(init.headers ?? {}) };
  if (key) headers.authorization = `Bearer ${key}`;
  const response = await fetch(path, { ...init, headers });
  const body = response.status === 204 ? null : await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(body?.message ?? `${response.status} ${response.statusText}`);
    error.status = response.status;
    throw error;
  }
  return body;
}

/** Reads an optional route: `undefined` when this service does not have it (404). */
async function optional(path) {
  try {
    return await api(path);
  } catch (error) {
    if (error.status === 404) return undefined;
    throw error;
  }
}

function ago(iso) {
  if (!iso) return '';
  const s = Math.round((Date.now() - Date.parse(iso)) / 1000);
  return s < 60 ? `${s} s ago` : s < 3600 ? `${Math.round(s / 60)} min ago` : new Date(iso).toLocaleString();
}

/** Job counts by status: from `GET /stats` when the service has it, else the unfinished ones of `GET /queues`. */
function statusCounts(stats, queues) {
  const byStatus = stats?.byStatus ?? stats?.counts?.byStatus ?? stats?.statuses;
  if (byStatus) return byStatus;
  const counts = { WAITING: 0, SCHEDULED: 0, PENDING: 0, RUNNING: 0 };
  for (const q of queues) {
    counts.WAITING += q.waiting;
    counts.SCHEDULED += q.scheduled;
    counts.PENDING += q.pending;
    counts.RUNNING += q.running;
  }
  return counts;
}

function renderCounts(counts) {
  $('#status-counts').replaceChildren(
    ...STATUSES.map((status) =>
      element(
        'div',
        { className: 'card', dataset: { status } },
        element('span', { className: 'n' }, counts[status] ?? '—'),
        status,
      ),
    ),
  );
}

function chart(id, series, data) {
  const target = $(id);
  const width = Math.max(320, target.clientWidth || 480);
  if (!charts[id]) {
    charts[id] = new uPlot(
      {
        width,
        height: 180,
        series: [{}, ...series],
        axes: [{}, { size: 50 }],
        // The last hour, always: with one or two buckets uPlot's own range spans years.
        scales: { x: { time: true, range: () => [Date.now() / 1000 - 3600, Date.now() / 1000] } },
      },
      data,
      target,
    );
  } else {
    charts[id].setData(data);
  }
}

function renderActivity(activity) {
  const buckets = activity?.buckets ?? [];
  const x = buckets.map((b) => Date.parse(b.start) / 1000);
  chart(
    '#throughput-chart',
    [
      { label: 'succeeded', stroke: '#067647' },
      { label: 'failed', stroke: '#b42318' },
    ],
    [x, buckets.map((b) => b.succeeded), buckets.map((b) => b.failed)],
  );
  chart(
    '#latency-chart',
    [
      { label: 'mean ms', stroke: '#1f6feb' },
      { label: 'max ms', stroke: '#8a93a6' },
    ],
    [x, buckets.map((b) => b.latencyAvgMs), buckets.map((b) => b.latencyMaxMs)],
  );
}

async function act(path) {
  try {
    await api(path, { method: 'POST' });
    await refresh();
  } catch (error) {
    showError(error);
  }
}

/** A queue's cluster-wide limits in words: `3 at once · 25 per 1000 ms · 1 per key`, or `none`. */
function describeLimits(q) {
  const parts = [];
  if (q.concurrency != null) parts.push(`${q.concurrency} at once`);
  if (q.rateLimit != null) parts.push(`${q.rateLimit.limit} per ${q.rateLimit.intervalMs} ms`);
  if (q.keyConcurrency != null) parts.push(`${q.keyConcurrency} per key`);
  return parts.length === 0 ? 'none' : parts.join(' · ');
}

/** The queue pager: previous and next page of GET /queues, by its cursors. */
function renderQueuePager() {
  $('#queues-prev').disabled = queueCursors.length <= 1;
  $('#queues-next').disabled = nextQueueCursor === null;
  $('#queues-page').textContent = `page ${queueCursors.length}`;
}

/** Sends a queue's changed limits (`PATCH /queues/:name`, scope admin), then shows the result. */
async function saveLimits(name, changes) {
  await api(`/queues/${encodeURIComponent(name)}`, {
    method: 'PATCH',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(changes),
  });
  await refresh();
}

/** Running jobs against the concurrency limit: `2 / 3`, or `2` without a limit. */
const runningText = (q) => (q.concurrency == null ? String(q.running) : `${q.running} / ${q.concurrency}`);

function renderQueues(queues) {
  renderQueuePager();
  $('#queues tbody').replaceChildren(
    ...queues.map((q) =>
      element(
        'tr',
        { dataset: { queue: q.name } },
        element('td', {}, q.name),
        element('td', {}, q.waiting),
        element('td', {}, q.scheduled),
        element('td', {}, q.pending),
        element('td', { className: 'running' }, runningText(q)),
        element('td', { className: 'limits' }, describeLimits(q)),
        element('td', {}, q.paused ? 'paused' : 'running'),
        element(
          'td',
          {},
          element(
            'button',
            { onclick: () => act(`/queues/${encodeURIComponent(q.name)}/${q.paused ? 'resume' : 'pause'}`) },
            q.paused ? 'Resume' : 'Pause',
          ),
          element(
            'button',
            { className: 'edit-limits', onclick: () => editQueueLimits(q, { save: saveLimits, element }) },
            'Limits…',
          ),
        ),
      ),
    ),
  );
}

function renderInstances(instances) {
  const rows = instances ?? [];
  $('#instances tbody').replaceChildren(
    ...(rows.length === 0
      ? [
          element(
            'tr',
            {},
            element('td', { colSpan: 5, className: 'muted' }, instances ? 'none live' : 'not available'),
          ),
        ]
      : rows.map((i) =>
          element(
            'tr',
            {},
            element('td', {}, i.id),
            element('td', {}, `${i.host ?? ''} pid ${i.pid ?? ''}`),
            element('td', {}, JSON.stringify(i.slots ?? {})),
            element('td', {}, (i.queues ?? []).map((q) => (typeof q === 'string' ? q : q.name)).join(', ')),
            element('td', {}, ago(i.lastSeenAt)),
          ),
        )),
  );
}

function progressText(progress) {
  if (progress === null || progress === undefined) return '';
  if (typeof progress === 'number') return `${progress} %`;
  return typeof progress.percent === 'number' ? `${progress.percent} %` : JSON.stringify(progress);
}

/** What makes a job's details stale: a change of status, attempt, finish or progress. */
const detailsKey = (job) => `${job.status}|${job.attempts}|${job.finishedAt}|${JSON.stringify(job.progress)}`;

/** Reads the whole job of each expanded row whose summary changed since its last read. */
async function loadDetails(jobs) {
  const stale = jobs.filter((job) => expanded.has(job.id) && details.get(job.id)?.key !== detailsKey(job));
  await Promise.all(
    stale.map(async (job) => {
      try {
        details.set(job.id, { key: detailsKey(job), job: await api(`/jobs/${job.id}`) });
      } catch (error) {
        details.set(job.id, { key: detailsKey(job), error });
      }
    }),
  );
}

function jobDetails(summary) {
  const read = details.get(summary.id);
  if (!read || read.error) {
    return element(
      'tr',
      { className: 'details' },
      element('td', { colSpan: 8, className: 'muted' }, read ? read.error.message : 'loading…'),
    );
  }
  const job = read.job;
  const history = (job.errors ?? []).map((e) =>
    element('pre', {}, `attempt ${e.attempt} at ${e.at}${e.instance ? ` on ${e.instance}` : ''}: ${e.error}`),
  );
  return element(
    'tr',
    { className: 'details' },
    element(
      'td',
      { colSpan: 8 },
      element('strong', {}, 'payload'),
      element('pre', {}, JSON.stringify(job.payload)),
      ...(job.dependsOn?.length > 0
        ? [
            element('strong', {}, `depends on (${job.onDependencyFailure} on failure)`),
            element('pre', {}, job.dependsOn.join(', ')),
          ]
        : []),
      ...(waitingText(job) === null
        ? []
        : [element('strong', {}, 'waiting for'), element('pre', {}, waitingText(job))]),
      ...(job.steps?.length > 0 ? [element('strong', {}, 'steps'), stepTimeline(job, element)] : []),
      ...(job.result !== null
        ? [element('strong', {}, 'result'), element('pre', {}, JSON.stringify(job.result))]
        : []),
      ...(job.progress !== null
        ? [element('strong', {}, 'progress'), element('pre', {}, JSON.stringify(job.progress))]
        : []),
      ...(history.length > 0 ? [element('strong', {}, 'failed attempts'), ...history] : []),
      element('strong', {}, 'log'),
      jobLogsPanel(job.id, api, element),
    ),
  );
}

function renderJobs(jobs) {
  const rows = [];
  for (const job of jobs) {
    const actions = [];
    if (job.status === 'FAILED' || job.status === 'CANCELLED') {
      actions.push(
        element('button', { className: 'retry', onclick: () => act(`/jobs/${job.id}/retry`) }, 'Retry'),
      );
    }
    if (['WAITING', 'SCHEDULED', 'PENDING', 'RUNNING'].includes(job.status)) {
      actions.push(
        element('button', { className: 'cancel', onclick: () => act(`/jobs/${job.id}/cancel`) }, 'Cancel'),
      );
    }
    actions.push(
      element('button', { className: 'graph', onclick: () => void dependencies.select(job.id) }, 'Graph'),
    );
    const toggle = async () => {
      if (expanded.has(job.id)) {
        expanded.delete(job.id);
        details.delete(job.id);
        closeJobLogs(job.id);
      } else expanded.add(job.id);
      renderJobs(jobs);
      await loadDetails(jobs);
      renderJobs(jobs);
    };
    rows.push(
      element(
        'tr',
        { dataset: { job: job.id, status: job.status } },
        element(
          'td',
          {},
          element('a', { href: '#', onclick: (e) => (e.preventDefault(), void toggle()) }, job.id),
        ),
        element('td', {}, job.kind),
        element('td', {}, job.queue),
        element('td', { className: `status status-${job.status}` }, job.status),
        element('td', {}, `${job.attempts} / ${job.maxAttempts}`),
        element('td', {}, progressText(job.progress)),
        element('td', {}, ago(job.createdAt)),
        element('td', {}, ...actions),
      ),
    );
    if (expanded.has(job.id)) rows.push(jobDetails(job));
  }
  $('#jobs tbody').replaceChildren(...rows);
}

/** The applied filter in words, such as `FAILED jobs of kind "sendEmail" in queue "emails"`. */
function describeFilter(status) {
  const parts = [
    `${status ? `${status} jobs` : 'unfinished jobs (WAITING, SCHEDULED, PENDING and RUNNING)'}`,
  ];
  if (filters.kind) parts.push(`of kind "${filters.kind}"`);
  if (filters.queue) parts.push(`in queue "${filters.queue}"`);
  if (filters.concurrencyKey) parts.push(`with concurrency key "${filters.concurrencyKey}"`);
  return parts.join(' ');
}

/** The filter in words above the list, e.g. `FAILED jobs in queue "emails"`. */
function renderFilterSummary() {
  const filtered = Object.keys(filters).length > 0;
  const status = filters.status;
  $('#filter-summary').textContent = filtered
    ? `Showing ${describeFilter(status).replace(/^unfinished jobs \(.*?\)/, 'jobs of any status')}, newest first.`
    : 'Showing every job, newest first.';
}

/**
 * "Retry all" needs a FAILED or CANCELLED filter; "Cancel all" an unfinished status or none.
 * Neither acts on a concurrency key filter: the bulk commands do not take one, so they would
 * reach jobs the list does not show.
 */
function renderBulkActions() {
  const status = filters.status ?? '';
  const keyed = Boolean(filters.concurrencyKey);
  $('#retry-all').disabled = keyed || !RETRYABLE.includes(status);
  $('#cancel-all').disabled = keyed || (status !== '' && !UNFINISHED.includes(status));
}

/** Retries or cancels every job of the applied filter (`POST /jobs/retry`, `/jobs/cancel`), once confirmed. */
async function bulk(command) {
  const status = filters.status || undefined;
  const what = describeFilter(status);
  const question =
    command === 'retry' ? `Retry all ${what}? They run again with fresh attempts.` : `Cancel all ${what}?`;
  if (!window.confirm(question)) return;
  const body = { kind: filters.kind || undefined, queue: filters.queue || undefined, status };
  try {
    const answer = await api(`/jobs/${command}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    $('#bulk-result').textContent =
      command === 'retry' ? `retried ${answer.retried}` : `cancelled ${answer.cancelled}`;
    await refresh();
  } catch (error) {
    showError(error);
  }
}

function showError(error) {
  const box = $('#error');
  box.hidden = !error;
  box.textContent = error
    ? error.status === 401 || error.status === 403
      ? `${error.message} — enter an API key with the read scope (admin to retry, cancel or pause)`
      : error.message
    : '';
}

async function refresh() {
  try {
    const query = jobListQuery(filters, 50);
    const queuePage = new URLSearchParams({ limit: String(QUEUE_PAGE) });
    const cursor = queueCursors.at(-1);
    if (cursor !== null) queuePage.set('cursor', cursor);
    // The totals only: the per-kind and per-queue pages of /stats are not shown here.
    const [stats, queues, instances, activity, jobs] = await Promise.all([
      optional('/stats?limit=0'),
      api(`/queues?${queuePage}`),
      optional('/instances'),
      api('/activity?windowMs=3600000&bucketMs=60000'),
      api(`/jobs?${query}`),
    ]);
    renderCounts(statusCounts(stats, queues.queues));
    renderActivity(activity);
    nextQueueCursor = queues.nextCursor ?? null;
    renderQueues(queues.queues);
    renderInstances(instances?.instances ?? (Array.isArray(instances) ? instances : undefined));
    await loadDetails(jobs.jobs);
    renderJobs(jobs.jobs);
    await dependencies.refresh();
    showError(undefined);
    $('#updated').textContent = `updated ${new Date().toLocaleTimeString()}`;
  } catch (error) {
    showError(error);
  }
}

$('#api-key').value = localStorage.getItem(KEY_STORAGE) ?? '';
$('#key-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const key = $('#api-key').value.trim();
  if (key) localStorage.setItem(KEY_STORAGE, key);
  else localStorage.removeItem(KEY_STORAGE);
  void refresh();
});
/** Applies `next` as the job list's filters: the form, the bulk actions, the summary, the list. */
function applyFilters(next) {
  filters = next;
  fillFilterForm($('#filters'), filters);
  renderBulkActions();
  renderFilterSummary();
  void refresh();
}
$('#filters').addEventListener('submit', (event) => {
  event.preventDefault();
  const next = filtersFromForm(event.target);
  history.pushState(null, '', addressWithFilters(location.search, next));
  applyFilters(next);
});
$('#clear-filters').addEventListener('click', () => {
  history.pushState(null, '', addressWithFilters(location.search, {}));
  applyFilters({});
});
// Back and forward walk the filters applied before (the graph panel follows its own parameter).
window.addEventListener('popstate', () => applyFilters(filtersFromAddress(location.search)));
$('#queues-next').addEventListener('click', () => {
  if (nextQueueCursor === null) return;
  queueCursors = [...queueCursors, nextQueueCursor];
  void refresh();
});
$('#queues-prev').addEventListener('click', () => {
  if (queueCursors.length > 1) queueCursors = queueCursors.slice(0, -1);
  void refresh();
});
$('#retry-all').addEventListener('click', () => void bulk('retry'));
$('#cancel-all').addEventListener('click', () => void bulk('cancel'));
fillFilterForm($('#filters'), filters);
renderBulkActions();
renderFilterSummary();
void refresh();
setInterval(() => void refresh(), REFRESH_MS);
