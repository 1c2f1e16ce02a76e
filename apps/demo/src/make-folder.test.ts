import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { makeFolder } from './make-folder.js';

let root: string;
before(() => {
  root = mkdtempSync(join(tmpdir(), 'nudge-demo-make-folder-'));
});
after(() => rmSync(root, { recursive: true, force: true }));

test('makeFolder creates missing parents and accepts an existing folder', async () => {
  const folder = join(root, 'a', 'b', 'c');
  await makeFolder(folder);
  assert.ok(statSync(folder).isDirectory());
  await makeFolder(folder);
});

test('makeFolder fails instead of spinning under a dangling symlink', { timeout: 5000 }, async () => {
  symlinkSync(join(root, 'nowhere'), join(root, 'dangling'));
  await assert.rejects(makeFolder(join(root, 'dangling', 'reports')), { code: 'ENOENT' });
  assert.equal(existsSync(join(root, 'nowhere')), false);
});

test('makeFolder fails under a file', async () => {
  writeFileSync(join(root, 'file'), '');
  await assert.rejects(makeFolder(join(root, 'file', 'reports')), { code: 'ENOTDIR' });
});

test(
  'makeFolder fails instead of spinning under /proc',
  { skip: !existsSync('/proc/self'), timeout: 5000 },
  async () => {
    await assert.rejects(makeFolder('/proc/nudge-demo-missing/reports'), { code: 'ENOENT' });
  },
);
