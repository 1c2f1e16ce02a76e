import { readFileSync } from 'node:fs';

/**
 * The nudge version, from the server package's `package.json` (read once, at import): what the
 * instance registry records and `nudge --version` prints.
 */
export const NUDGE_VERSION: string = (
  JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
