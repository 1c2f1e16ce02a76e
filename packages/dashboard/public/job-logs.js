// A job's log (ctx.log) for the job's details: its lines oldest first (time, attempt, level,
// message, fields), read from GET /jobs/:id/logs page by page with the cursor, then only the new
// ones each time the details are drawn again, and the count of lines dropped over the job's
// caps. Every value from the API is written with textContent, never as HTML.

/** Lines read per request (the route answers at most 1000). */
const PAGE = 1000;
/** Most lines a panel keeps on screen: the oldest beyond it are left out, and said so. */
const MAX_SHOWN = 5000;

/** Open panels by job id: each keeps its node, its cursor and its lines across redraws. */
const panels = new Map();

/** One line as a table row. */
function lineRow(line, element) {
  return element(
    'tr',
    { className: `log-${line.level}`, dataset: { seq: line.seq } },
    element('td', { className: 'log-at' }, line.at.replace('T', ' ').replace('Z', '')),
    element('td', { className: 'log-attempt' }, `#${line.attempt}`),
    element('td', { className: 'log-level' }, line.level),
    element('td', { className: 'log-message' }, line.message),
    element('td', { className: 'log-fields' }, line.fields === null ? '' : JSON.stringify(line.fields)),
  );
}

/** Reads the lines after the panel's cursor, page by page, and appends them. */
async function readNew(panel, api, element) {
  if (panel.reading) return;
  panel.reading = true;
  try {
    for (;;) {
      const page = await api(`/jobs/${panel.jobId}/logs?after=${panel.cursor}&limit=${PAGE}`);
      for (const line of page.lines) panel.body.append(lineRow(line, element));
      panel.shown += page.lines.length;
      while (panel.shown > MAX_SHOWN && panel.body.firstChild) {
        panel.body.firstChild.remove();
        panel.shown -= 1;
        panel.hidden += 1;
      }
      panel.cursor = page.cursor;
      panel.dropped = page.dropped;
      if (page.lines.length < PAGE) break;
    }
    panel.error = null;
  } catch (error) {
    panel.error = error.message;
  } finally {
    panel.reading = false;
    const notes = [];
    if (panel.shown === 0) notes.push('no lines');
    if (panel.hidden > 0) notes.push(`${panel.hidden} older lines not shown`);
    if (panel.dropped > 0) notes.push(`${panel.dropped} lines dropped over the job's caps`);
    if (panel.error) notes.push(panel.error);
    panel.note.textContent = notes.join(' · ');
  }
}

/**
 * The log panel of job `jobId`, made with `element` (the dashboard's DOM helper) and read with
 * `api` (its fetch of the JSON API). The same node comes back on every call while the job's
 * details stay open, and each call reads the lines written since the last one.
 */
export function jobLogsPanel(jobId, api, element) {
  let panel = panels.get(jobId);
  if (!panel) {
    const body = element('tbody');
    const note = element('p', { className: 'muted log-note' }, 'loading…');
    panel = {
      jobId,
      cursor: 0,
      dropped: 0,
      shown: 0,
      hidden: 0,
      reading: false,
      error: null,
      body,
      note,
      node: element(
        'div',
        { className: 'job-logs', dataset: { jobLogs: jobId } },
        element('table', { className: 'log-lines' }, body),
        note,
      ),
    };
    panels.set(jobId, panel);
  }
  void readNew(panel, api, element);
  return panel.node;
}

/** Forgets the panel of a job whose details were closed. */
export function closeJobLogs(jobId) {
  panels.delete(jobId);
}
