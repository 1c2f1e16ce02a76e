import { readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ENGINE_SETTINGS } from '@nudge/engine';
import { CONFIG_VARIABLES } from '../config.js';
import {
  SETTINGS_REFERENCE_COMMAND,
  SETTINGS_REFERENCE_PATH,
  settingsReference,
} from './settings-reference.js';
import { SETTING_VARIABLES } from './settings.js';

const committed = (): string =>
  readFileSync(new URL(`../../../../${SETTINGS_REFERENCE_PATH}`, import.meta.url), 'utf8');

describe(SETTINGS_REFERENCE_PATH, () => {
  it('is what the settings tables generate', () => {
    assert.ok(
      committed() === settingsReference(),
      `${SETTINGS_REFERENCE_PATH} is stale: the settings tables changed; run \`${SETTINGS_REFERENCE_COMMAND}\` and commit the file`,
    );
  });

  it('lists every variable loadConfig reads with its option, and every option of the engine', () => {
    const doc = settingsReference();
    const rows = [...doc.matchAll(/^\| (`[A-Z_]+`|none) \| `([A-Za-z]+)` \|/gm)].map(
      ([, variable, option]) => [option, variable],
    );
    const withVariables = rows.filter(([, variable]) => variable !== 'none');
    assert.deepEqual(
      withVariables.map(([, variable]) => variable?.slice(1, -1)).sort(),
      [...CONFIG_VARIABLES].sort(),
    );
    for (const [option, variable] of withVariables) {
      assert.equal(`\`${SETTING_VARIABLES[option as keyof typeof SETTING_VARIABLES]}\``, variable, option);
    }
    for (const option of Object.keys(ENGINE_SETTINGS)) {
      assert.ok(
        rows.some(([name]) => name === option),
        option,
      );
    }
  });

  it('shows each range as the table declares it, and no host-dependent default', () => {
    const doc = settingsReference();
    assert.match(
      doc,
      /\| `NUDGE_LEASE_MS` \| `leaseMs` \| `30000` \| a whole number of ms from 300 to 2147483647 \|/,
    );
    assert.match(doc, /\| `NUDGE_THREADS` \| `threads` \| the number of CPUs/);
  });
});
