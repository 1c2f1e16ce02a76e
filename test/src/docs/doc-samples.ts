import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root, from `test/dist/docs/`. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));

/**
 * What the samples test does with a sample:
 * - `module`: writes and type-checks it; another sample of the same page must import it;
 * - `serve`: stops the page's running service, if any, and starts `nudge serve` with this file
 *   as `NUDGE_HANDLERS`, on a fresh SQLite file (`./data/nudge.db`, the default);
 * - `run`: runs it with `node` while the service started by the last `serve` runs; it must exit 0;
 * - `run-alone`: stops the page's service first, then runs it (a sample that starts its own).
 */
export type SampleRole = 'module' | 'serve' | 'run' | 'run-alone';

/** One fenced TypeScript or JavaScript block of a page, with the marker before it. */
export interface Sample {
  /** The page, relative to the repository's root, such as `docs/guides/handlers.md`. */
  readonly page: string;
  /** 1-based line of the opening fence. */
  readonly line: number;
  /** The file name the marker gives it, such as `handlers.ts`. */
  readonly file: string;
  readonly role: SampleRole;
  readonly code: string;
}

/** The languages whose blocks must run. Other blocks (`sh`, `sql`, `text`…) are not run here. */
const CODE_LANGUAGES = new Set(['ts', 'typescript', 'js', 'javascript', 'mjs']);

/** `<!-- sample FILE [ROLE] -->` on the line before a block. */
const MARKER = /^<!-- sample ([\w.-]+\.(?:ts|mts|js|mjs))(?: (module|serve|run|run-alone))? -->$/;

/**
 * Every TypeScript or JavaScript block of `markdown`, each named by the `<!-- sample FILE ROLE -->`
 * marker on the line before it (invisible on the rendered page); without a role a sample is a
 * `module`.
 * @throws Error naming the page and line of a code block without a marker, of a marker with no
 *   code block after it, of a file name used twice, or of a fence left open
 */
export function samplesOf(markdown: string, page: string): Sample[] {
  const lines = markdown.split('\n');
  const samples: Sample[] = [];
  let marker: { file: string; role: SampleRole; line: number } | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const found = MARKER.exec(line.trim());
    if (found?.[1]) {
      marker = { file: found[1], role: (found[2] as SampleRole | undefined) ?? 'module', line: i + 1 };
      continue;
    }
    const fence = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(line);
    if (!fence) {
      if (marker)
        throw new Error(`${page}:${marker.line}: a sample marker must come right before its code block`);
      continue;
    }
    const close = fence[2] ?? '```';
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !(lines[i] ?? '').trim().startsWith(close); i++) body.push(lines[i] ?? '');
    if (i >= lines.length) throw new Error(`${page}:${start + 1}: a code block is never closed`);
    const language = (fence[3] ?? '').toLowerCase();
    if (!CODE_LANGUAGES.has(language)) {
      if (marker) throw new Error(`${page}:${marker.line}: a sample marker before a \`${language}\` block`);
      continue;
    }
    if (!marker) {
      throw new Error(
        `${page}:${start + 1}: a \`${language}\` block without a <!-- sample FILE ROLE --> marker before it; every TypeScript and JavaScript sample is run by test/src/docs`,
      );
    }
    if (samples.some((sample) => sample.file === marker?.file)) {
      throw new Error(`${page}:${marker.line}: the sample file ${marker.file} is named twice on this page`);
    }
    const indent = (fence[1] ?? '').length;
    samples.push({
      page,
      line: start + 1,
      file: marker.file,
      role: marker.role,
      code: `${body.map((text) => text.slice(indent)).join('\n')}\n`,
    });
    marker = undefined;
  }
  if (marker) throw new Error(`${page}:${marker.line}: a sample marker with no code block after it`);
  return samples;
}

/** The pages whose samples must run: the README and every guide. */
export function samplePages(): string[] {
  const guides = join(REPO_ROOT, 'docs', 'guides');
  return [
    'README.md',
    ...readdirSync(guides)
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => relative(REPO_ROOT, join(guides, name))),
  ];
}

/** The samples of every page of {@link samplePages}, page by page. */
export function repositorySamples(): Map<string, Sample[]> {
  return new Map(
    samplePages().map((page) => [page, samplesOf(readFileSync(join(REPO_ROOT, page), 'utf8'), page)]),
  );
}
