// A job's dependency graph: the jobs it waits for (upstream, its dependsOn and theirs) and the
// jobs that wait for it (downstream, `GET /jobs/:id/dependents` and theirs), a few levels each
// way, drawn as plain SVG: one column per level, the job in the middle, each job a box with its
// id, kind and status, an arrow from each dependency to its dependent. Every value from the API
// is written with textContent, never as markup.

const SVG = 'http://www.w3.org/2000/svg';
/** Levels read each way from the job. */
export const GRAPH_LEVELS = 2;
/** Most jobs shown in one level; the rest are counted as "more". */
export const GRAPH_LEVEL_SIZE = 12;

const NODE_WIDTH = 170;
const NODE_HEIGHT = 44;
const COLUMN = 220;
const ROW = 58;
const PAD = 10;

/** A job's box: its summary, or a `DELETED` stand-in for a dependency retention removed. */
const nodeOf = (job, level) => ({
  id: job.id,
  kind: job.kind ?? '',
  status: job.status ?? 'DELETED',
  dependsOn: job.dependsOn ?? [],
  level,
});

/**
 * Reads the graph around `job` (a job as `GET /jobs` lists it) with `api` (the dashboard's JSON
 * reader): `{ nodes: Map<id, node>, more: Map<level, count> }`, each node `{id, kind, status,
 * dependsOn, level}` (level 0 the job, negative upstream, positive downstream).
 */
export async function readDependencyGraph(job, api, levels = GRAPH_LEVELS) {
  const nodes = new Map([[job.id, nodeOf(job, 0)]]);
  const more = new Map();
  const keep = (ids, level) => {
    const fresh = [...new Set(ids)].filter((id) => !nodes.has(id));
    if (fresh.length > GRAPH_LEVEL_SIZE) more.set(level, fresh.length - GRAPH_LEVEL_SIZE);
    return fresh.slice(0, GRAPH_LEVEL_SIZE);
  };
  // Upstream: each level is the dependsOn of the one below, read in one GET /jobs?ids=.
  let ids = keep(job.dependsOn ?? [], -1);
  for (let level = -1; level >= -levels && ids.length > 0; level -= 1) {
    const { jobs } = await api(`/jobs?ids=${ids.join(',')}`);
    const found = new Map(jobs.map((j) => [j.id, j]));
    for (const id of ids) nodes.set(id, nodeOf(found.get(id) ?? { id }, level));
    ids = keep(
      jobs.flatMap((j) => j.dependsOn),
      level - 1,
    );
  }
  // Downstream: each level is the dependents of the one above, one read per job.
  let parents = [job.id];
  for (let level = 1; level <= levels && parents.length > 0; level += 1) {
    const answers = await Promise.all(
      parents.map((id) => api(`/jobs/${id}/dependents?limit=${GRAPH_LEVEL_SIZE}`)),
    );
    const found = new Map();
    let truncated = 0;
    for (const answer of answers) {
      for (const dependent of answer.jobs) found.set(dependent.id, dependent);
      if (answer.nextCursor !== null) truncated += 1;
    }
    const kept = keep([...found.keys()], level);
    for (const id of kept) nodes.set(id, nodeOf(found.get(id), level));
    if (truncated > 0 && !more.has(level)) more.set(level, truncated);
    parents = kept;
  }
  return { nodes, more };
}

function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
  for (const child of children) node.append(child);
  return node;
}

function text(x, y, content, className) {
  const node = svg('text', { x, y, class: className });
  node.textContent = content;
  return node;
}

const clip = (value, size) => (value.length > size ? `${value.slice(0, size - 1)}…` : value);

/**
 * The SVG of a graph {@link readDependencyGraph} read; `onSelect(id)` is called when a job's box
 * is clicked. Jobs beyond {@link GRAPH_LEVEL_SIZE} in a level are counted under it.
 */
export function dependencyGraphView({ nodes, more }, onSelect) {
  const levels = [...new Set([...nodes.values()].map((node) => node.level))].sort((a, b) => a - b);
  const first = levels[0] ?? 0;
  const byLevel = new Map(levels.map((level) => [level, []]));
  for (const node of [...nodes.values()].sort((a, b) => a.id - b.id)) byLevel.get(node.level).push(node);
  const tallest = Math.max(...[...byLevel.values()].map((column) => column.length));
  const width = PAD * 2 + (levels.length - 1) * COLUMN + NODE_WIDTH;
  const height = PAD * 2 + tallest * ROW + 16;
  const place = new Map();
  for (const [level, column] of byLevel) {
    const top = PAD + ((tallest - column.length) * ROW) / 2;
    column.forEach((node, row) =>
      place.set(node.id, { x: PAD + (level - first) * COLUMN, y: top + row * ROW }),
    );
  }
  const root = svg('svg', {
    class: 'dependency-graph',
    width,
    height,
    viewBox: `0 0 ${width} ${height}`,
    role: 'img',
  });
  root.append(
    svg(
      'defs',
      {},
      svg(
        'marker',
        {
          id: 'graph-arrow',
          viewBox: '0 0 8 8',
          refX: 8,
          refY: 4,
          markerWidth: 8,
          markerHeight: 8,
          orient: 'auto',
        },
        svg('path', { d: 'M0,0 L8,4 L0,8 z', class: 'arrow' }),
      ),
    ),
  );
  for (const node of nodes.values()) {
    const to = place.get(node.id);
    for (const dependency of node.dependsOn) {
      const from = place.get(dependency);
      if (!from) continue;
      const x1 = from.x + NODE_WIDTH;
      const y1 = from.y + NODE_HEIGHT / 2;
      const x2 = to.x;
      const y2 = to.y + NODE_HEIGHT / 2;
      const bend = (x2 - x1) / 2;
      root.append(
        svg('path', {
          class: 'edge',
          'data-from': dependency,
          'data-to': node.id,
          d: `M${x1},${y1} C${x1 + bend},${y1} ${x2 - bend},${y2} ${x2},${y2}`,
          'marker-end': 'url(#graph-arrow)',
        }),
      );
    }
  }
  for (const node of nodes.values()) {
    const { x, y } = place.get(node.id);
    const box = svg(
      'g',
      {
        class: `node status-${node.status}${node.level === 0 ? ' root' : ''}`,
        'data-job': node.id,
        'data-status': node.status,
        'data-level': node.level,
        transform: `translate(${x},${y})`,
        tabindex: 0,
      },
      svg('rect', { width: NODE_WIDTH, height: NODE_HEIGHT, rx: 6 }),
      text(8, 17, clip(`#${node.id} ${node.kind}`, 24), 'label'),
      text(8, 34, node.status, 'state'),
    );
    box.addEventListener('click', () => onSelect(node.id));
    root.append(box);
  }
  for (const [level, count] of more) {
    if (!byLevel.has(level)) continue;
    const x = PAD + (level - first) * COLUMN;
    root.append(text(x, height - 6, `+ more not shown (${count})`, 'more'));
  }
  return root;
}
