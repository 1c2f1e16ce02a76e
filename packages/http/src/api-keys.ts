import { createHash, timingSafeEqual } from 'node:crypto';

/** Scopes an API key may hold. `admin` includes the others. */
export const API_SCOPES = ['enqueue', 'read', 'admin'] as const;

/** One of {@link API_SCOPES}. */
export type ApiScope = (typeof API_SCOPES)[number];

/** A key the API accepts, and what it may do. */
export interface ApiKey {
  /** The secret sent as `Authorization: Bearer <key>`. */
  readonly key: string;
  /** What the key may do; `admin` includes `enqueue` and `read`. */
  readonly scopes: readonly ApiScope[];
}

/** Characters a key may hold: printable ASCII except `:` and `,` (the separators) and space. */
const KEY_PATTERN = /^[\x21-\x2b\x2d-\x39\x3b-\x7e]+$/;

/** Shortest key accepted, in characters. */
export const MIN_API_KEY_LENGTH = 16;

/**
 * Parses a list of API keys (the text the server reads from `NUDGE_API_KEYS`): entries
 * `key:scope+scope` separated by commas, such as `k1…:admin,k2…:enqueue+read`. Blank entries are ignored; an empty text gives no keys.
 *
 * @throws Error naming the entry at fault: a key shorter than {@link MIN_API_KEY_LENGTH}
 *   characters or with other characters than printable ASCII (no space, `:` or `,`), a missing
 *   or unknown scope, or a key listed twice
 */
export function parseApiKeys(text: string): ApiKey[] {
  const keys: ApiKey[] = [];
  const seen = new Set<string>();
  text.split(',').forEach((raw, index) => {
    const entry = raw.trim();
    if (entry === '') return;
    const where = `entry ${index + 1}`;
    const colon = entry.lastIndexOf(':');
    if (colon <= 0) throw new Error(`${where} must be KEY:SCOPE[+SCOPE] (scopes: ${API_SCOPES.join(', ')})`);
    const key = entry.slice(0, colon);
    if (!KEY_PATTERN.test(key)) {
      throw new Error(`${where}: the key must be printable ASCII without spaces, ":" or ","`);
    }
    if (key.length < MIN_API_KEY_LENGTH) {
      throw new Error(
        `${where}: the key has ${key.length} characters; use at least ${MIN_API_KEY_LENGTH} (e.g. \`openssl rand -hex 24\`)`,
      );
    }
    if (seen.has(key)) throw new Error(`${where}: the key is listed twice`);
    seen.add(key);
    const scopes = entry.slice(colon + 1).split('+');
    for (const scope of scopes) {
      if (!(API_SCOPES as readonly string[]).includes(scope)) {
        throw new Error(
          `${where}: unknown scope ${JSON.stringify(scope)} (scopes: ${API_SCOPES.join(', ')})`,
        );
      }
    }
    keys.push({ key, scopes: [...new Set(scopes as ApiScope[])] });
  });
  return keys;
}

/** Whether `scopes` allow `needed`: `admin` allows everything. */
export function allows(scopes: readonly ApiScope[], needed: ApiScope): boolean {
  return scopes.includes('admin') || scopes.includes(needed);
}

/** A configured key, ready for constant-time lookups. */
export interface KnownKey {
  /** `key-1`, `key-2`…: the key's position in the list, safe to log and to rate-limit by. */
  readonly name: string;
  /**
   * The key's id, recorded on the jobs it enqueues: {@link apiKeyId} of the key. Unlike `name` it
   * stays the same when the list is reordered or another key is removed.
   */
  readonly id: string;
  readonly scopes: readonly ApiScope[];
  readonly digest: Buffer;
}

function digestOf(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/** Hex digits of a key's SHA-256 that make its id (64 bits: no two keys of a list share one). */
const ID_HEX_DIGITS = 16;

/**
 * A key's id: the first 16 hex digits of the SHA-256 of the key (`printf %s "$KEY" | sha256sum |
 * cut -c1-16`). It names the key in stored jobs and in answers without revealing it (like any
 * fingerprint it could confirm a guessed key, which is why keys must be random, as `openssl rand
 * -hex 24` makes them); a key that is replaced gets a new id.
 */
export function apiKeyId(key: string): string {
  return digestOf(key).toString('hex').slice(0, ID_HEX_DIGITS);
}

/**
 * Looks presented keys up among the configured ones in constant time: both sides are SHA-256
 * digests (equal length), compared with `crypto.timingSafeEqual`, and every configured key is
 * compared whatever the outcome, so the time taken says nothing of how much of a key matched.
 */
export class ApiKeyRing {
  readonly #keys: readonly KnownKey[];

  constructor(keys: readonly ApiKey[]) {
    this.#keys = keys.map(({ key, scopes }, i) => {
      const digest = digestOf(key);
      return { name: `key-${i + 1}`, id: digest.toString('hex').slice(0, ID_HEX_DIGITS), scopes, digest };
    });
  }

  /** Whether any key is configured (else the API is open). */
  get enabled(): boolean {
    return this.#keys.length > 0;
  }

  /** The configured key equal to `presented`, or `undefined`. */
  find(presented: string): KnownKey | undefined {
    const digest = digestOf(presented);
    let found: KnownKey | undefined;
    for (const known of this.#keys) {
      if (timingSafeEqual(known.digest, digest) && found === undefined) found = known;
    }
    return found;
  }
}
