import assert from 'node:assert/strict';
import { test } from 'node:test';
import { readStartOptions } from './start-options.js';

test('readStartOptions passes the producer its arguments, without the -- that pnpm start forwards', () => {
  assert.deepEqual(readStartOptions(['--', '--dataset', 'flights-3m'], {}).producerArgs, [
    '--dataset',
    'flights-3m',
  ]);
  assert.deepEqual(readStartOptions(['--dataset', 'flights-10k'], {}).producerArgs, [
    '--dataset',
    'flights-10k',
  ]);
  assert.deepEqual(readStartOptions([], {}).producerArgs, []);
});

test('readStartOptions fills in the defaults and refuses a bad PORT', () => {
  const options = readStartOptions([], {});
  assert.equal(options.databaseUrl, 'sqlite:./data/nudge.db');
  assert.equal(options.port, '3000');
  assert.equal(options.exitAfterDemo, false);
  assert.throws(() => readStartOptions([], { PORT: 'http' }), /PORT must be a port/);
});
