import { strict as assert } from 'node:assert';
import { describe, it } from 'node:test';
import { ServerLogEcho } from './server-log-echo.js';

describe('ServerLogEcho', () => {
  it('echoes the first warnings in full, then counts the rest, and ignores info lines', (t) => {
    const printed: string[] = [];
    t.mock.method(console, 'error', (line: string) => printed.push(line));
    const echo = new ServerLogEcho('[nudge 0]', 2);
    echo.onLine('{"level":30,"msg":"listening"}', 'stdout');
    for (let i = 0; i < 4; i += 1) echo.onLine(`{"level":40,"msg":"lease lost ${i}"}`, 'stdout');
    echo.onLine('crash', 'stderr');
    echo.flush();
    assert.deepEqual(printed, [
      '  [nudge 0] {"level":40,"msg":"lease lost 0"}',
      '  [nudge 0] {"level":40,"msg":"lease lost 1"}',
      '  [nudge 0] … and 3 more warning or error lines',
    ]);
  });
});
