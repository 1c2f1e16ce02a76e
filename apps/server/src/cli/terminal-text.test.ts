import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { terminalSafe } from './terminal-text.js';
import { formatTable } from './format-table.js';

describe('terminalSafe', () => {
  it('escapes line breaks, tabs, escape sequences, C1 controls and bidi marks; keeps the rest', () => {
    assert.equal(terminalSafe('a\nb\rc\td'), 'a\\nb\\rc\\td');
    assert.equal(terminalSafe('\u001b[31mred\u0007'), '\\u001b[31mred\\u0007');
    assert.equal(terminalSafe('\u009b2J \u007f'), '\\u009b2J \\u007f');
    assert.equal(terminalSafe('abc\u202edef\u2066'), 'abc\\u202edef\\u2066');
    assert.equal(terminalSafe('plain \\n, ünïcode ✓'), 'plain \\n, ünïcode ✓');
  });

  it('keeps a table to one line a row whatever its cells hold', () => {
    const table = formatTable(['ID', 'ERROR'], [['1', 'boom\nID  ERROR']]);
    assert.deepEqual(table.split('\n'), ['ID  ERROR', '1   boom\\nID  ERROR']);
  });
});
