// Every TypeScript and JavaScript sample of the README and the guides, extracted from the Markdown,
// type-checked against the workspace's packages and run against the real service on a fresh
// SQLite file (see `doc-samples.ts` for the markers that say how). `sh`, `sql` and `text` blocks
// are not run here (the operators' SQL is: test/src/conformance/docs-sql.test.ts).
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { repositorySamples, samplesOf, type Sample } from './doc-samples.js';
import { PageRun, compileProject, compiledName, freePort, writeProject } from './sample-project.js';

describe('samplesOf', () => {
  it('reads a marked block with its file and role', () => {
    const page = 'x\n<!-- sample app.ts run -->\n```ts\nconsole.log(1);\n```\n';
    assert.deepEqual(samplesOf(page, 'x.md'), [
      { page: 'x.md', line: 3, file: 'app.ts', role: 'run', code: 'console.log(1);\n' },
    ]);
  });

  it('refuses a TypeScript or JavaScript block without a marker, naming its line', () => {
    assert.throws(() => samplesOf('text\n\n```js\nx();\n```\n', 'p.md'), /p\.md:3: a `js` block without/);
  });

  it('leaves shell blocks alone, and refuses a marker that names no code block', () => {
    assert.deepEqual(samplesOf('```sh\ncurl x\n```\n', 'p.md'), []);
    assert.throws(() => samplesOf('<!-- sample a.ts -->\n\n```ts\nx\n```\n', 'p.md'), /right before/);
  });
});

describe('the samples of the README and the guides', () => {
  const pages = repositorySamples();
  let root = '';
  let port = 0;

  before(async () => {
    port = await freePort();
    root = writeProject(pages, port);
    await compileProject(root, pages);
  });
  after(() => {
    if (root && !process.env.NUDGE_KEEP_DOC_SAMPLES) rmSync(root, { recursive: true, force: true });
  });

  it('are there: the README has a handler, a producer and a service started from code', () => {
    const readme = pages.get('README.md') ?? [];
    assert.deepEqual(
      ['serve', 'run', 'run-alone'].map((role) => readme.some((sample) => sample.role === role)),
      [true, true, true],
    );
  });

  it('import every module sample from another sample of its page', () => {
    const modules = [...pages.values()].flat().filter((sample) => sample.role === 'module');
    for (const sample of modules) {
      const imported = (pages.get(sample.page) ?? []).some(
        (other: Sample) => other !== sample && other.code.includes(`./${compiledName(sample.file)}'`),
      );
      assert.ok(
        imported,
        `${sample.page}:${sample.line}: ${sample.file} is imported by no sample of its page`,
      );
    }
  });

  for (const [page, samples] of pages) {
    if (samples.length === 0) continue;
    it(`run: ${page} (${samples.map((sample) => `${sample.file} ${sample.role}`).join(', ')})`, async () => {
      const pageRun = new PageRun(root, page, port);
      try {
        for (const sample of samples) await pageRun.step(sample);
      } catch (error) {
        await pageRun.stop().catch(() => undefined);
        throw error;
      }
      await pageRun.stop();
    });
  }
});
