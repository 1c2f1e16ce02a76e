// The dependency graph panel: the graph (dependency-graph.js) of one selected job, chosen with a
// job's "Dependency graph" button, a click on a box of the graph, or the page's address
// (`?job=42`, so a graph can be shared). Read again at each refresh of the page while shown.

import { dependencyGraphView, readDependencyGraph } from './dependency-graph.js';

/** The selected job's id in `search` (a `location.search`), or `null`. */
export function selectedJob(search) {
  const id = new URLSearchParams(search).get('job');
  return id !== null && /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : null;
}

/**
 * The panel in `section#dependencies` of index.html: `api` is the dashboard's JSON reader,
 * `onError` shows a failed read. `select(id)` shows job `id`'s graph (`null` hides the panel),
 * `refresh()` reads the shown graph again.
 */
export function createDependencyPanel({ api, onError }) {
  const section = document.querySelector('#dependencies');
  const title = section.querySelector('.title');
  const canvas = section.querySelector('.graph');
  let shown = selectedJob(location.search);
  let reading = false;

  const address = (id) => {
    const params = new URLSearchParams(location.search);
    if (id === null) params.delete('job');
    else params.set('job', String(id));
    const query = params.toString();
    return query === '' ? location.pathname : `${location.pathname}?${query}`;
  };

  async function refresh() {
    section.hidden = shown === null;
    if (shown === null || reading) return;
    reading = true;
    const id = shown;
    try {
      // The job's summary (no payload or result): all the graph needs, at every refresh.
      const [job] = (await api(`/jobs?ids=${id}`)).jobs;
      if (job === undefined) {
        if (id !== shown) return;
        section.dataset.job = String(id);
        title.textContent = `Dependency graph of job #${id}`;
        canvas.replaceChildren(
          Object.assign(document.createElement('p'), {
            className: 'muted none',
            textContent: `No job has id ${id}.`,
          }),
        );
        return;
      }
      const graph = await readDependencyGraph(job, api);
      if (id !== shown) return;
      section.dataset.job = String(id);
      title.textContent = `Dependency graph of job #${id} (${job.kind}, ${job.status})`;
      canvas.replaceChildren(
        graph.nodes.size === 1
          ? Object.assign(document.createElement('p'), {
              className: 'muted none',
              textContent: 'This job has no dependencies and no dependents.',
            })
          : dependencyGraphView(graph, (next) => void select(next)),
      );
    } catch (error) {
      onError(error);
    } finally {
      reading = false;
    }
    // Another job was selected during the read: show it now rather than at the next refresh.
    if (id !== shown) await refresh();
  }

  async function select(id) {
    if (id === shown) return;
    shown = id;
    history.pushState(null, '', address(id));
    canvas.replaceChildren();
    section.dataset.job = '';
    await refresh();
    if (id !== null) section.scrollIntoView({ block: 'nearest' });
  }

  section.querySelector('button.close').addEventListener('click', () => void select(null));
  window.addEventListener('popstate', () => {
    shown = selectedJob(location.search);
    void refresh();
  });
  return { select, refresh };
}
