import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { Command } from 'commander';
import { ENGINE_SETTINGS, acceptedForm } from '@nudge/engine';
import { DEFAULT_MAX_ATTEMPTS, MAX_ATTEMPTS_RANGE, PRIORITY_RANGE } from '@nudge/core';
import { SERVER_SETTINGS } from '../settings/server-settings.js';
import { createProgram } from './create-program.js';

/** The whole `--help` text of `nudge NAME`, with the text added after the options. */
function helpOf(name: string): string {
  const command = createProgram().commands.find((candidate: Command) => candidate.name() === name);
  assert.ok(command, name);
  let text = '';
  command.configureOutput({ writeOut: (chunk) => (text += chunk) });
  command.outputHelp();
  return text;
}

describe('nudge --help', () => {
  it('serve lists every variable with the range and default of its table', () => {
    const help = helpOf('serve');
    assert.match(
      help,
      /^ {2}NUDGE_LEASE_MS +a whole number of ms from 300 to 2147483647 \(default: 30000\)$/m,
    );
    assert.match(help, /^ {2}NUDGE_THREADS +a whole number from 1 to 1024 \(default: the number of CPUs/m);
    for (const setting of [...Object.values(ENGINE_SETTINGS), ...Object.values(SERVER_SETTINGS)]) {
      if (!('variable' in setting)) continue;
      assert.ok(help.includes(`  ${setting.variable} `), setting.variable);
      assert.ok(help.includes(acceptedForm(setting)), setting.variable);
    }
  });

  it("enqueue states the ranges of core's job contract", () => {
    const help = helpOf('enqueue').replace(/\s+/g, ' ');
    assert.ok(
      help.includes(`lower runs first, ${PRIORITY_RANGE.minimum} to ${PRIORITY_RANGE.maximum}`),
      help,
    );
    assert.ok(
      help.includes(
        `${MAX_ATTEMPTS_RANGE.minimum} to ${MAX_ATTEMPTS_RANGE.maximum} (default ${DEFAULT_MAX_ATTEMPTS})`,
      ),
      help,
    );
  });
});
