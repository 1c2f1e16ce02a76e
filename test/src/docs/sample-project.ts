import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join, sep } from 'node:path';
import { promisify } from 'node:util';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import { REPO_ROOT, type Sample } from './doc-samples.js';

const run = promisify(execFile);

/** The address the samples use, as a reader's service has it by default. */
const DOCUMENTED_ADDRESS = /\b(?:127\.0\.0\.1|localhost):3000\b/g;

/** Longest a `run` sample may take, in ms. */
const RUN_TIMEOUT_MS = 60_000;

/** The folder of a page's samples, such as `docs-guides-handlers` for `docs/guides/handlers.md`. */
export const pageFolder = (page: string): string =>
  page
    .replace(/\.md$/, '')
    .replace(/[^\w]+/g, '-')
    .toLowerCase();

const isTypeScript = (file: string): boolean => /\.m?ts$/.test(file);

/** The file `tsc` makes of a sample: `handlers.ts` → `handlers.js`, `app.mts` → `app.mjs`. */
export const compiledName = (file: string): string => file.replace(/\.ts$/, '.js').replace(/\.mts$/, '.mjs');

/** A free TCP port on loopback, for the services the samples talk to. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  await new Promise((resolve) => server.close(resolve));
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return address.port;
}

/**
 * A scratch project under `test/output/` holding every sample, a folder per page, where the
 * workspace's packages resolve as an app's dependencies would (`@nudge/server`, `@nudge/client`,
 * `@sinclair/typebox`, `better-sqlite3`, `kysely`, `pg` from `test/node_modules`). The documented
 * address `127.0.0.1:3000` is rewritten to `port`, the port every page's service listens on.
 */
export function writeProject(pages: ReadonlyMap<string, readonly Sample[]>, port: number): string {
  const outputs = join(REPO_ROOT, 'test', 'output');
  mkdirSync(outputs, { recursive: true });
  const root = mkdtempSync(join(outputs, 'doc-samples-'));
  writeFileSync(join(root, 'package.json'), JSON.stringify({ type: 'module', private: true }));
  // The strictness of the project's own code (tsconfig.base.json), as an app would set it. The
  // JavaScript samples are checked too (imports, calls), without types for their parameters.
  const compilerOptions = {
    target: 'ES2022',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    noUncheckedIndexedAccess: true,
    noImplicitReturns: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: '.',
    outDir: 'dist',
  };
  const typescript = { compilerOptions, include: ['pages/**/*.ts', 'pages/**/*.mts'] };
  const javascript = {
    compilerOptions: { ...compilerOptions, allowJs: true, checkJs: true, noImplicitAny: false, noEmit: true },
    include: ['pages/**/*.js', 'pages/**/*.mjs'],
  };
  writeFileSync(join(root, 'tsconfig.json'), JSON.stringify(typescript, null, 2));
  writeFileSync(join(root, 'tsconfig.js.json'), JSON.stringify(javascript, null, 2));
  for (const [page, samples] of pages) {
    for (const folder of [
      join(root, 'pages', pageFolder(page)),
      join(root, 'dist', 'pages', pageFolder(page)),
    ]) {
      mkdirSync(folder, { recursive: true });
      for (const sample of samples) {
        const code = sample.code.replace(DOCUMENTED_ADDRESS, `127.0.0.1:${port}`);
        // The JavaScript runs as written; tsc compiles the TypeScript into dist/.
        if (folder.includes(`${sep}dist${sep}`) && isTypeScript(sample.file)) continue;
        writeFileSync(join(folder, sample.file), code);
      }
    }
  }
  return root;
}

/**
 * Type-checks the project with the workspace's TypeScript and compiles its TypeScript samples.
 * @throws Error quoting tsc's diagnostics (paths name the page's folder and the sample's file)
 */
export async function compileProject(
  root: string,
  pages: ReadonlyMap<string, readonly Sample[]>,
): Promise<void> {
  const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
  const files = [...pages.values()].flat().map((sample) => sample.file);
  const projects = [
    files.some(isTypeScript) && 'tsconfig.json',
    files.some((file) => !isTypeScript(file)) && 'tsconfig.js.json',
  ].filter((project) => project !== false);
  const failures = await Promise.all(
    projects.map((project) =>
      run(process.execPath, [tsc, '-p', join(root, project), '--pretty', 'false'], { cwd: root }).then(
        () => '',
        (error: { stdout?: string; stderr?: string }) => `${error.stdout ?? ''}${error.stderr ?? ''}`,
      ),
    ),
  );
  const diagnostics = failures.join('');
  if (diagnostics) throw new Error(`the samples do not type-check:\n${diagnostics}`);
}

/** A job as `GET /jobs` lists it, the fields the checks read. */
interface ListedJob {
  readonly id: number;
  readonly kind: string;
  readonly status: string;
  readonly lastError: string | null;
}

/**
 * Runs one page's samples in order, from its compiled folder: `serve` starts the real service
 * (`nudge serve`, `apps/server/dist/main.js`) on a fresh SQLite file, `run` runs a sample against
 * it, `run-alone` runs a sample with no service. Before a service stops, every job it holds must
 * have run without an error: none `FAILED`, none with a `lastError`.
 */
export class PageRun {
  readonly #folder: string;
  readonly #port: number;
  #server: ServerProcess | undefined;
  #served = '';

  constructor(root: string, page: string, port: number) {
    this.#folder = join(root, 'dist', 'pages', pageFolder(page));
    this.#port = port;
  }

  /** Runs `sample` as its role says. @throws Error naming the sample when it fails */
  async step(sample: Sample): Promise<void> {
    const where = `${sample.page}:${sample.line} (${sample.file})`;
    switch (sample.role) {
      case 'module':
        return;
      case 'serve':
        await this.stop();
        rmSync(join(this.#folder, 'data'), { recursive: true, force: true });
        this.#served = where;
        this.#server = await spawnServer({
          cwd: this.#folder,
          env: {
            NUDGE_HANDLERS: `./${compiledName(sample.file)}`,
            DATABASE_URL: 'sqlite:./data/nudge.db',
            PORT: String(this.#port),
            NUDGE_THREADS: '2',
            LOG_LEVEL: 'warn',
          },
        }).catch((error: unknown) => {
          throw new Error(`${where}: the service did not start: ${(error as Error).message}`);
        });
        return;
      case 'run-alone':
        await this.stop();
        return this.#run(sample, where);
      case 'run':
        if (!this.#server) throw new Error(`${where}: a run sample with no serve sample before it`);
        return this.#run(sample, where);
    }
  }

  async #run(sample: Sample, where: string): Promise<void> {
    try {
      const { stdout } = await run(process.execPath, [compiledName(sample.file)], {
        cwd: this.#folder,
        timeout: RUN_TIMEOUT_MS,
      });
      // What the sample printed, to compare with the comments on the page.
      if (process.env.NUDGE_DOC_SAMPLES_OUTPUT) console.log(`${where}:\n${stdout}`);
    } catch (error) {
      const { stdout, stderr, message } = error as { stdout?: string; stderr?: string; message: string };
      throw new Error(`${where} failed: ${message}\n${stdout ?? ''}${stderr ?? ''}${this.#serverOutput()}`);
    }
  }

  #serverOutput(server = this.#server): string {
    if (!server) return '';
    const { stdout, stderr } = server.output();
    return `\nthe service's output:\n${stdout}${stderr}`;
  }

  /** Checks the running service's jobs, then stops it; it must exit 0. */
  async stop(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    const failed = await this.#failedJobs(server.url).catch((error: Error) => [
      `cannot list the jobs: ${error.message}`,
    ]);
    const code = await server.stop();
    if (failed.length > 0)
      throw new Error(`jobs of the service of ${this.#served} failed:\n${failed.join('\n')}`);
    if (code !== 0)
      throw new Error(`the service of ${this.#served} exited with ${code}${this.#serverOutput(server)}`);
  }

  /** The jobs of the service at `url` that failed or hold an error, one line each. */
  async #failedJobs(url: string): Promise<string[]> {
    const response = await fetch(`${url}/jobs?limit=100`);
    const { jobs } = (await response.json()) as { jobs: ListedJob[] };
    return jobs
      .filter((job) => job.status === 'FAILED' || job.lastError !== null)
      .map((job) => `${job.id} ${job.kind} ${job.status}: ${job.lastError ?? ''}`);
  }
}
