// Every relative link of the README, CONTRIBUTING.md, docs/ and the package READMEs names a file
// that exists, and a `#fragment` into a Markdown page names one of its headings, as GitHub makes
// their anchors. Moving or renaming a page or a heading fails here until its links follow.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { REPO_ROOT } from './doc-samples.js';

/** Every Markdown page the check reads, relative to the repository's root. */
function pages(): string[] {
  const docs = readdirSync(join(REPO_ROOT, 'docs'), { recursive: true })
    .map(String)
    .filter((name) => name.endsWith('.md'))
    .map((name) => join('docs', name));
  const readmes = ['packages', 'apps'].flatMap((folder) =>
    readdirSync(join(REPO_ROOT, folder))
      .map((name) => join(folder, name, 'README.md'))
      .filter((path) => existsSync(join(REPO_ROOT, path))),
  );
  return ['README.md', 'CONTRIBUTING.md', ...docs, ...readmes];
}

/** `markdown` without its fenced code blocks, so a `# comment` in a shell sample is no heading. */
const withoutCode = (markdown: string): string =>
  markdown.replace(/^(`{3,}|~{3,})[^\n]*\n[\s\S]*?^\1\s*$/gm, '');

/** The anchors GitHub gives the headings of `markdown` (github-slugger's rules). */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  for (const [, heading] of withoutCode(markdown).matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = (heading ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/\s/g, '-');
    let anchor = base;
    for (let n = 1; anchors.has(anchor); n++) anchor = `${base}-${n}`;
    anchors.add(anchor);
  }
  return anchors;
}

/** The relative links of `markdown` outside code: `[text](target)`, with the target's parts. */
function linksOf(markdown: string): { path: string; fragment: string }[] {
  const links = [];
  for (const [, target] of withoutCode(markdown).matchAll(/\]\(([^)\s]+)\)/g)) {
    if (!target || /^[a-z]+:/i.test(target)) continue;
    const [path = '', fragment = ''] = target.split('#');
    links.push({ path, fragment });
  }
  return links;
}

describe('links between the docs', () => {
  it('reads anchors as GitHub makes them', () => {
    const anchors = anchorsOf(
      "# The job's life\n## Wake-ups without `/nudge`\n```sh\n# not one\n```\n## A\n## A\n",
    );
    assert.deepEqual([...anchors], ['the-jobs-life', 'wake-ups-without-nudge', 'a', 'a-1']);
  });

  for (const page of pages()) {
    it(`resolve: ${page}`, () => {
      const markdown = readFileSync(join(REPO_ROOT, page), 'utf8');
      const broken: string[] = [];
      for (const { path, fragment } of linksOf(markdown)) {
        const target = path ? normalize(join(dirname(page), path)) : page;
        const file = join(REPO_ROOT, target);
        if (!existsSync(file)) {
          broken.push(`${path}: no such file`);
          continue;
        }
        if (!fragment || !file.endsWith('.md') || statSync(file).isDirectory()) continue;
        if (!anchorsOf(readFileSync(file, 'utf8')).has(fragment))
          broken.push(`${path}#${fragment}: no such heading`);
      }
      assert.deepEqual(broken, [], `${page} has broken links`);
    });
  }
});
