import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  ERROR_CODES,
  MAX_ATTEMPT_ERRORS,
  MAX_ERROR_CHARS,
  MAX_FOLLOW_UPS,
  MAX_JSON_DEPTH,
  MAX_PROGRESS_BYTES,
  MAX_RESULT_BYTES,
} from '@nudge/core';

/** `docs/reference/errors.md`, from the root of the repository, from `packages/http/dist/`. */
const DOC = new URL('../../../docs/reference/errors.md', import.meta.url);

/** Rows of the doc's table: `| `CODE` | status | meaning | what to do |`. */
function documentedCodes(): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of readFileSync(DOC, 'utf8').split('\n')) {
    const match = /^\|\s*`([A-Z_]+)`\s*\|\s*(\d{3})\s*\|/.exec(line);
    if (match?.[1] && match[2]) rows.set(match[1], Number(match[2]));
  }
  return rows;
}

describe('docs/reference/errors.md', () => {
  const documented = documentedCodes();

  it('lists every code of ERROR_CODES with its HTTP status', () => {
    for (const [code, { status }] of Object.entries(ERROR_CODES)) {
      assert.equal(
        documented.get(code),
        status,
        `docs/reference/errors.md: ${code} should be listed with status ${status}`,
      );
    }
  });

  it('lists no code that ERROR_CODES lacks', () => {
    for (const code of documented.keys()) {
      assert.ok(
        Object.hasOwn(ERROR_CODES, code),
        `docs/reference/errors.md lists ${code}, which ERROR_CODES lacks`,
      );
    }
  });
});

describe('docs/reference/errors.md limits', () => {
  it('gives the value of every limit constant', () => {
    const text = readFileSync(DOC, 'utf8');
    const limits = {
      MAX_JSON_DEPTH,
      MAX_RESULT_BYTES,
      MAX_ERROR_CHARS,
      MAX_ATTEMPT_ERRORS,
      MAX_PROGRESS_BYTES,
      MAX_FOLLOW_UPS,
    };
    for (const [name, value] of Object.entries(limits)) {
      const row = text.split('\n').find((line) => line.startsWith('|') && line.includes(`(\`${name}\`)`));
      assert.ok(row, `docs/reference/errors.md: the limits table should have a row for ${name}`);
      assert.ok(
        row.includes(`\`${value}\``),
        `docs/reference/errors.md: ${name} should be given as \`${value}\``,
      );
    }
  });
});
