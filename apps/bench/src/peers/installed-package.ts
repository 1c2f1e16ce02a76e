import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The fields of an installed package's manifest the bench reads. */
export interface PackageManifest {
  readonly name: string;
  readonly version: string;
  readonly engines?: { readonly node?: string };
}

/**
 * The manifest of the package `name` as this app resolves it: found by walking up from its entry
 * point, since packages whose `exports` leave out `./package.json` (graphile-worker 0.18) cannot be
 * required by that path.
 * @throws Error when the package is not installed
 */
export function installedPackage(name: string): PackageManifest {
  let dir = dirname(createRequire(import.meta.url).resolve(name));
  for (;;) {
    try {
      const manifest = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as PackageManifest;
      if (manifest.name === name) return manifest;
    } catch {
      // No manifest here: look in the parent folder.
    }
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`no package.json of ${name} above its entry point`);
    dir = parent;
  }
}
