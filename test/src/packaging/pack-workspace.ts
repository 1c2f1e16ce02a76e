import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository's root folder. */
export const WORKSPACE_ROOT = resolve(fileURLToPath(new URL('../../..', import.meta.url)));

/** The folders `pnpm-workspace.yaml` lists packages in (`apps/*`, `packages/*`). */
const PACKAGE_FOLDERS = ['apps', 'packages'];

/** The fields of a package.json the packaging checks read. */
export interface PackageJson {
  readonly name: string;
  readonly version: string;
  readonly private?: boolean;
  readonly dependencies?: Readonly<Record<string, string>>;
  readonly peerDependencies?: Readonly<Record<string, string>>;
  readonly devDependencies?: Readonly<Record<string, string>>;
  readonly [field: string]: unknown;
}

/** A workspace package that is not `private`: one users install. */
export interface InstallablePackage {
  readonly name: string;
  /** Its folder, absolute. */
  readonly dir: string;
  readonly manifest: PackageJson;
}

/** A packed package: its tarball, as `pnpm pack` wrote it. */
export interface PackedPackage extends InstallablePackage {
  /** Absolute path of the `.tgz`. */
  readonly tarball: string;
  /** Size of the tarball, in bytes. */
  readonly bytes: number;
}

/** Every package of the workspace that is not `private`, by folder name order. */
export function installablePackages(): InstallablePackage[] {
  return PACKAGE_FOLDERS.flatMap((folder) =>
    readdirSync(join(WORKSPACE_ROOT, folder))
      .sort()
      .map((name) => join(WORKSPACE_ROOT, folder, name))
      .map((dir) => ({
        dir,
        manifest: JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageJson,
      }))
      .filter(({ manifest }) => manifest.private !== true)
      .map(({ dir, manifest }) => ({ name: manifest.name, dir, manifest })),
  );
}

/** `@nudge/server` 0.1.0 → `nudge-server-0.1.0.tgz`, the name `pnpm pack` gives. */
export function tarballName(manifest: PackageJson): string {
  return `${manifest.name.replace(/^@/, '').replace('/', '-')}-${manifest.version}.tgz`;
}

/**
 * Packs every installable package into `destination` with `pnpm -r pack` (which rewrites
 * `workspace:` specifiers to versions), from the build already in `dist/`.
 * @throws Error when `pnpm pack` fails or a tarball is missing
 */
export function packWorkspace(destination: string): PackedPackage[] {
  const packages = installablePackages();
  const filters = packages.flatMap(({ name }) => ['--filter', name]);
  execFileSync('pnpm', ['-r', ...filters, 'pack', '--pack-destination', destination], {
    cwd: WORKSPACE_ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  return packages.map((pkg) => {
    const tarball = join(destination, tarballName(pkg.manifest));
    return { ...pkg, tarball, bytes: statSync(tarball).size };
  });
}
