import { copyFileSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { WORKSPACE_ROOT, type PackedPackage } from '../packaging/pack-workspace.js';

/** The project's own files: the handler module, the producer, the in-process server, tsconfig. */
const PROJECT_FILES = join(WORKSPACE_ROOT, 'test', 'outside-install', 'project');

/** The packages the project installs by name; the others come in as their dependencies. */
const INSTALLED = ['@nudge/server', '@nudge/client'];

/**
 * Registry packages the project depends on, at the ranges the workspace uses: the database
 * libraries the producer enqueues with, and TypeScript with the types it checks against.
 */
const REGISTRY_DEPENDENCIES = {
  // npm takes 12 on Node.js 20 and 13 on 22+ (see docs/node-support.md).
  'better-sqlite3': '^12.9.0 || ^13.0.0',
  kysely: '~0.28.18',
  pg: '^8.16.0',
};
const REGISTRY_DEV_DEPENDENCIES = {
  '@types/better-sqlite3': '^7.6.13',
  '@types/node': '^20.19.0',
  '@types/pg': '^8.15.0',
  typescript: '~5.9.3',
};

/**
 * Writes a fresh npm project into `dir`: the files of `test/outside-install/project`, and a
 * package.json that takes `@nudge/server` and `@nudge/client` from their tarballs (`file:`) and
 * points every other nudge package at its tarball through `overrides`, so no workspace link and
 * no registry copy of a nudge package can be used. Everything else comes from the registry.
 */
export function writeOutsideProject(dir: string, packed: readonly PackedPackage[]): void {
  mkdirSync(dir, { recursive: true });
  for (const file of readdirSync(PROJECT_FILES)) copyFileSync(join(PROJECT_FILES, file), join(dir, file));
  const tarballOf = (name: string): string => {
    const pkg = packed.find((p) => p.name === name);
    if (!pkg) throw new Error(`${name} was not packed`);
    return `file:${pkg.tarball}`;
  };
  const dependencies = Object.fromEntries(INSTALLED.map((name) => [name, tarballOf(name)]));
  const overrides = Object.fromEntries(
    packed.filter(({ name }) => !INSTALLED.includes(name)).map(({ name }) => [name, tarballOf(name)]),
  );
  const manifest = {
    name: 'nudge-outside-install',
    private: true,
    type: 'module',
    dependencies: { ...dependencies, ...REGISTRY_DEPENDENCIES },
    devDependencies: REGISTRY_DEV_DEPENDENCIES,
    overrides,
  };
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
}
