// The tarballs users install, checked as npm would see them: `pnpm -r pack` of every package that
// is not private, then publint and Are the Types Wrong on each tarball, and our own checks of what
// is inside (no `workspace:` specifier left, no compiled test or test helper, every import declared).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { publint } from 'publint';
import ts from 'typescript';
import { formatMessage } from 'publint/utils';
import { packWorkspace, WORKSPACE_ROOT, type PackageJson, type PackedPackage } from './pack-workspace.js';

/** The packages users install; everything else in the workspace must stay private. */
const INSTALLABLE = [
  '@nudge/client',
  '@nudge/core',
  '@nudge/dashboard',
  '@nudge/engine',
  '@nudge/http',
  '@nudge/server',
  '@nudge/store',
];

/** Resolutions the `esm-only` profile of attw does not require (nudge ships ES modules only). */
const IGNORED_RESOLUTIONS = new Set(['node10', 'node16-cjs']);

/** Files that are for tests only and must not ship. */
const TEST_ONLY = /(\.test\.|\.tsbuildinfo$|\.map$)/;

/** The files of an unpacked package, relative to its folder. */
function filesOf(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(dir.length + 1));
}

/** The package a bare import specifier names (`@scope/name/sub` → `@scope/name`), or none. */
function importedPackage(specifier: string): string | undefined {
  if (specifier.startsWith('.') || specifier.startsWith('node:') || builtinModules.includes(specifier))
    return;
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

describe('packed packages', () => {
  let dir: string;
  let packed: PackedPackage[];
  before(() => {
    dir = mkdtempSync(join(tmpdir(), 'nudge-pack-'));
    packed = packWorkspace(dir);
    for (const pkg of packed) {
      const into = join(dir, pkg.name.replace('/', '+'));
      execFileSync('mkdir', ['-p', into]);
      execFileSync('tar', ['xzf', pkg.tarball, '-C', into]);
    }
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  /** The unpacked folder of `pkg` (`package/` inside its tarball). */
  const unpacked = (pkg: PackedPackage): string => join(dir, pkg.name.replace('/', '+'), 'package');
  const manifestOf = (pkg: PackedPackage): PackageJson =>
    JSON.parse(readFileSync(join(unpacked(pkg), 'package.json'), 'utf8')) as PackageJson;

  it('are exactly the packages users install', () => {
    assert.deepEqual(packed.map(({ name }) => name).sort(), INSTALLABLE);
  });

  it('pass publint (warnings count as errors)', async () => {
    for (const pkg of packed) {
      const tarball = readFileSync(pkg.tarball);
      const { messages, pkg: manifest } = await publint({
        pack: { tarball: tarball.buffer.slice(tarball.byteOffset, tarball.byteOffset + tarball.byteLength) },
        level: 'warning',
        strict: true,
      });
      const lines = messages.map(
        (m) => `${m.type}: ${formatMessage(m, manifest, { color: false }) ?? m.code}`,
      );
      assert.deepEqual(lines, [], `${pkg.name}:\n${lines.join('\n')}`);
    }
  });

  it('pass Are the Types Wrong (esm-only profile)', () => {
    const attw = join(WORKSPACE_ROOT, 'test', 'node_modules', '.bin', 'attw');
    for (const pkg of packed) {
      try {
        execFileSync(attw, [pkg.tarball, '--profile', 'esm-only', '--format', 'json'], { encoding: 'utf8' });
      } catch (error) {
        const { stdout } = error as { stdout?: string };
        const report = JSON.parse(stdout || '{}') as {
          problems?: Record<string, { resolutionKind?: string }[]>;
        };
        const problems = Object.values(report.problems ?? {})
          .flat()
          .filter(({ resolutionKind }) => !resolutionKind || !IGNORED_RESOLUTIONS.has(resolutionKind));
        assert.fail(`${pkg.name}: attw found ${JSON.stringify(problems, null, 2) || String(error)}`);
      }
    }
  });

  it('name versions, not workspace: specifiers', () => {
    for (const pkg of packed) {
      const manifest = manifestOf(pkg);
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
        for (const [name, spec] of Object.entries((manifest[field] ?? {}) as Record<string, string>)) {
          assert.doesNotMatch(spec, /^workspace:/, `${pkg.name} ${field}.${name}`);
        }
      }
    }
  });

  it('need no private workspace package at run time (test databases, demo, test helpers)', () => {
    const privates = ['packages', 'apps']
      .flatMap((dir) => readdirSync(join(WORKSPACE_ROOT, dir)).map((name) => join(WORKSPACE_ROOT, dir, name)))
      .concat(join(WORKSPACE_ROOT, 'test'))
      .map((dir) => join(dir, 'package.json'))
      .filter((path) => existsSync(path))
      .map((path) => JSON.parse(readFileSync(path, 'utf8')) as PackageJson)
      .filter((manifest) => manifest.private === true)
      .map((manifest) => manifest.name);
    assert.ok(privates.includes('@nudge/test-databases'), privates.join(', '));
    for (const pkg of packed) {
      const manifest = manifestOf(pkg);
      for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
        const names = Object.keys(manifest[field] ?? {});
        assert.deepEqual(
          names.filter((name) => privates.includes(name)),
          [],
          `${pkg.name} ${field}`,
        );
      }
    }
  });

  it('ship no compiled test, test helper, source map or build info, and a README and LICENSE', () => {
    for (const pkg of packed) {
      const files = filesOf(unpacked(pkg));
      assert.deepEqual(
        files.filter((file) => TEST_ONLY.test(file)),
        [],
        pkg.name,
      );
      assert.ok(files.includes('README.md'), `${pkg.name} has no README.md`);
      assert.ok(files.includes('LICENSE'), `${pkg.name} has no LICENSE`);
      assert.equal(
        readFileSync(join(unpacked(pkg), 'LICENSE'), 'utf8'),
        readFileSync(join(WORKSPACE_ROOT, 'LICENSE'), 'utf8'),
        `${pkg.name}'s LICENSE is not the repository's`,
      );
    }
  });

  it('declare every package their shipped modules import as a dependency', () => {
    for (const pkg of packed) {
      const manifest = manifestOf(pkg);
      const declared = new Set([
        manifest.name,
        ...Object.keys(manifest.dependencies ?? {}),
        ...Object.keys(manifest.peerDependencies ?? {}),
      ]);
      const undeclared: string[] = [];
      for (const file of filesOf(unpacked(pkg)).filter((f) => /\.(js|d\.ts)$/.test(f))) {
        const text = readFileSync(join(unpacked(pkg), file), 'utf8');
        // TypeScript's own scanner: a regular expression also matched string literals such as
        // `'from', name` inside compiled SQL builders.
        const imports = ts.preProcessFile(text, true, true).importedFiles.map((ref) => ref.fileName);
        for (const specifier of imports) {
          const name = importedPackage(specifier);
          if (name && !declared.has(name)) undeclared.push(`${file} imports ${specifier}`);
        }
      }
      assert.deepEqual(undeclared, [], `${pkg.name} imports packages it does not declare`);
    }
  });

  it('install no database driver with @nudge/client (the store lists them as optional peers)', () => {
    const manifests = new Map(packed.map((pkg) => [pkg.name, manifestOf(pkg)]));
    const drivers = ['pg', 'better-sqlite3'];
    // The packages `npm install @nudge/client` brings, through the workspace's own packages.
    const seen = new Set<string>();
    const pulled: string[] = [];
    const visit = (name: string): void => {
      if (seen.has(name)) return;
      seen.add(name);
      const manifest = manifests.get(name);
      if (manifest === undefined) return;
      for (const dep of Object.keys(manifest.dependencies ?? {})) {
        if (drivers.includes(dep)) pulled.push(`${name} depends on ${dep}`);
        visit(dep);
      }
      const meta = (manifest.peerDependenciesMeta ?? {}) as Record<string, { optional?: boolean }>;
      for (const dep of Object.keys(manifest.peerDependencies ?? {})) {
        if (drivers.includes(dep) && meta[dep]?.optional !== true) pulled.push(`${name} needs peer ${dep}`);
      }
    };
    visit('@nudge/client');
    assert.ok(seen.has('@nudge/store'), '@nudge/client takes its enqueue SQL from @nudge/store/sql');
    assert.deepEqual(pulled, []);
    // The server does install them: it opens the databases.
    const server = manifests.get('@nudge/server');
    assert.ok(server);
    for (const driver of drivers) assert.ok(Object.keys(server.dependencies ?? {}).includes(driver), driver);
  });

  it('ship what they read at run time: migrations, the dashboard page, the CLI', () => {
    const byName = new Map(packed.map((pkg) => [pkg.name, filesOf(unpacked(pkg))]));
    const store = byName.get('@nudge/store') ?? [];
    for (const dialect of ['postgres', 'sqlite']) {
      const source = readdirSync(join(WORKSPACE_ROOT, 'packages', 'store', 'migrations', dialect)).sort();
      const shipped = store.filter((f) => f.startsWith(`migrations/${dialect}/`)).map((f) => f.split('/')[2]);
      assert.deepEqual(shipped.sort(), source, `@nudge/store's ${dialect} migrations`);
    }
    assert.ok(byName.get('@nudge/dashboard')?.includes('public/index.html'));
    assert.ok(byName.get('@nudge/server')?.includes('dist/cli/main.js'));
    assert.ok(byName.get('@nudge/engine')?.includes('dist/threads/thread-entry.js'));
  });
});
