import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { formatMarkdownTable } from './markdown-table.js';

describe('formatMarkdownTable', () => {
  it('pads every column to its widest cell and right-aligns numeric columns', () => {
    const text = formatMarkdownTable(
      [{ title: 'system' }, { title: 'jobs/s', align: 'right' }],
      [
        ['nudge', '1,234'],
        ['graphile-worker', '12'],
      ],
    );
    assert.equal(
      text,
      [
        '| system          | jobs/s |',
        '| --------------- | -----: |',
        '| nudge           |  1,234 |',
        '| graphile-worker |     12 |',
      ].join('\n'),
    );
  });

  it('escapes pipes and line breaks and fills missing cells', () => {
    const text = formatMarkdownTable([{ title: 'a' }, { title: 'b' }], [['x|y\nz']]);
    assert.equal(text.split('\n')[2], '| x\\|y z |     |');
  });

  it('keeps the separator at least three dashes wide', () => {
    const text = formatMarkdownTable([{ title: 'n', align: 'right' }], [['1']]);
    assert.equal(text, ['|   n |', '| --: |', '|   1 |'].join('\n'));
  });
});
