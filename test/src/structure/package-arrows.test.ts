// The workspace's dependency arrows point inward: apps/ may use packages/, never the reverse; core
// (the job contract) uses no other package; store (the database seam) knows neither the engine nor
// the HTTP layer. Checked in each package.json and in every import of every source file, so a new
// arrow the wrong way fails here before it can tangle the build order. Core holds no SQL (the
// statements live in the store), and the store's driver-free `sql` folder, which the client SDK
// imports as `@nudge/store/sql`, imports nothing but core and itself.
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

interface Workspace {
  /** `packages` or `apps`. */
  readonly area: string;
  readonly dir: string;
  readonly name: string;
  readonly dependencies: string[];
}

function workspaces(area: string): Workspace[] {
  return readdirSync(join(ROOT, area), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => {
      const dir = join(ROOT, area, entry.name);
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
        name: string;
        dependencies?: Record<string, string>;
        devDependencies?: Record<string, string>;
        peerDependencies?: Record<string, string>;
      };
      const dependencies = Object.keys({
        ...manifest.dependencies,
        ...manifest.devDependencies,
        ...manifest.peerDependencies,
      });
      return { area, dir, name: manifest.name, dependencies };
    });
}

/** Every `.ts` file under `dir/src`, as paths. */
function sourceFiles(dir: string): string[] {
  return (readdirSync(join(dir, 'src'), { recursive: true }) as string[])
    .filter((file) => file.endsWith('.ts'))
    .map((file) => join(dir, 'src', file));
}

/** The module specifiers a file imports or re-exports (static and dynamic). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
    if (match[1] !== undefined) found.push(match[1]);
  }
  return found;
}

const packages = workspaces('packages');
const apps = workspaces('apps');
const appNames = new Set(apps.map((app) => app.name));
const appsDir = resolve(ROOT, 'apps') + sep;

/** Names `spec` a workspace package, `@nudge/x/sub` → `@nudge/x`; undefined for anything else. */
function workspaceName(spec: string): string | undefined {
  const match = /^(@nudge\/[^/]+)/.exec(spec);
  return match?.[1];
}

/** The arrows each package may not draw, beyond "no app": by package name. */
const FORBIDDEN: Record<string, (target: string) => boolean> = {
  '@nudge/core': (target) => target !== '@nudge/core',
  '@nudge/store': (target) => target === '@nudge/engine' || target === '@nudge/http',
};

function wrongArrows(pkg: Workspace): string[] {
  const forbidden = FORBIDDEN[pkg.name] ?? (() => false);
  const wrong: string[] = [];
  for (const dep of pkg.dependencies) {
    if (appNames.has(dep) || (dep.startsWith('@nudge/') && forbidden(dep))) {
      wrong.push(`${pkg.name}/package.json depends on ${dep}`);
    }
  }
  for (const file of sourceFiles(pkg.dir)) {
    const where = relative(ROOT, file);
    for (const spec of importsOf(file)) {
      const target = workspaceName(spec);
      if (target !== undefined && (appNames.has(target) || forbidden(target))) {
        wrong.push(`${where} imports ${spec}`);
      }
      if (spec.startsWith('.') && resolve(file, '..', spec).startsWith(appsDir)) {
        wrong.push(`${where} imports ${spec}, a file under apps/`);
      }
    }
  }
  return wrong;
}

/** SQL statements in `file`'s code, comments left out: the first words of each one found. */
function sqlIn(file: string): string[] {
  const code = readFileSync(file, 'utf8')
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/^\s*\/\/.*$/gm, '');
  const found: string[] = [];
  for (const match of code.matchAll(
    /\b(INSERT\s+INTO|DELETE\s+FROM|UPDATE\s+\w+\s+SET|SELECT\s[^'`]*?\sFROM|BEGIN|COMMIT|ROLLBACK)\b/g,
  )) {
    found.push(`${relative(ROOT, file)}: ${match[0]}`);
  }
  return found;
}

describe('the workspace arrows point inward', () => {
  it('finds the workspaces it checks (a check of nothing would pass)', () => {
    assert.ok(packages.some((pkg) => pkg.name === '@nudge/core'));
    assert.ok(packages.some((pkg) => pkg.name === '@nudge/store'));
    assert.ok(appNames.has('@nudge/server'));
    assert.ok(appNames.has('@nudge/harness'), 'the harness is dev tooling, so it lives under apps/');
  });

  for (const pkg of packages) {
    it(`${pkg.name} depends on no app${FORBIDDEN[pkg.name] ? ' and no package outside its layer' : ''}`, () => {
      assert.deepEqual(wrongArrows(pkg), []);
    });
  }

  it('@nudge/core holds no SQL: the statements live in the store', () => {
    const core = packages.find((pkg) => pkg.name === '@nudge/core');
    assert.ok(core);
    assert.deepEqual(sourceFiles(core.dir).flatMap(sqlIn), []);
  });

  it('sees SQL where there is some (a check of nothing would pass)', () => {
    const store = packages.find((pkg) => pkg.name === '@nudge/store');
    assert.ok(store);
    const folder = join(store.dir, 'src', 'sql') + sep;
    const found = sourceFiles(store.dir)
      .filter((file) => file.startsWith(folder))
      .flatMap(sqlIn);
    assert.ok(found.some((hit) => hit.endsWith('INSERT INTO')));
    assert.ok(found.some((hit) => hit.endsWith('COMMIT')));
  });

  it("the store's sql folder (@nudge/store/sql) imports no driver and no other part of the store", () => {
    const store = packages.find((pkg) => pkg.name === '@nudge/store');
    assert.ok(store);
    const folder = join(store.dir, 'src', 'sql') + sep;
    const files = sourceFiles(store.dir).filter((file) => file.startsWith(folder));
    assert.ok(files.length > 0);
    const wrong = files.flatMap((file) =>
      importsOf(file)
        .filter((spec) =>
          spec.startsWith('.')
            ? !resolve(file, '..', spec).startsWith(folder)
            : spec !== '@nudge/core' && !spec.startsWith('node:'),
        )
        .map((spec) => `${relative(ROOT, file)} imports ${spec}`),
    );
    assert.deepEqual(wrong, []);
  });

  it('sees a wrong arrow when one is drawn', () => {
    const core = packages.find((pkg) => pkg.name === '@nudge/core');
    assert.ok(core);
    const tangled: Workspace = {
      ...core,
      dependencies: [...core.dependencies, '@nudge/store', '@nudge/server'],
    };
    assert.deepEqual(wrongArrows(tangled).slice(0, 2), [
      '@nudge/core/package.json depends on @nudge/store',
      '@nudge/core/package.json depends on @nudge/server',
    ]);
  });
});
