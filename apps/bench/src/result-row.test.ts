import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { formatMarkdownTable } from './markdown-table.js';
import { RESULT_COLUMNS, resultCells } from './result-row.js';

describe('resultCells', () => {
  it('lays a row out in column order, with dashes where no job ran', () => {
    const cells = resultCells({
      scenario: 'pg-limit',
      system: 'PostgreSQL alone',
      metric: 'jobs/s',
      value: '9,000',
      ratio: 'nudge drain = 10 %',
      lost: undefined,
      duplicate: undefined,
      runs: 3,
    });
    assert.equal(cells.length, RESULT_COLUMNS.length);
    assert.deepEqual(cells.slice(5), ['—', '—', '3', '']);
  });

  it('fits the table formatter', () => {
    const row = {
      scenario: 'drain',
      system: 'nudge',
      metric: 'jobs/s',
      value: '1',
      ratio: '',
      lost: 0,
      duplicate: 0,
      runs: 1,
    };
    const table = formatMarkdownTable(RESULT_COLUMNS, [resultCells(row)]);
    assert.match(
      table.split('\n')[2] ?? '',
      /^\| drain +\| nudge +\| jobs\/s +\| +1 \| +\| +0 \| +0 \| +1 \| +\|$/,
    );
  });
});
