import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { NudgeError } from '@nudge/core';
import { acceptedForm, defaultOf, ENGINE_SETTINGS } from '@nudge/engine';
import { envSchema, parseSettings, quote } from './env-schema.js';
import { SETTINGS } from './settings/settings.js';

const source = (texts: Record<string, string>) => ({
  texts,
  nameOf: (variable: string) => variable,
  show: (_variable: string, text: string) => quote(text),
});

describe('the environment schema, from the settings tables', () => {
  it('has one variable per setting with a variable, in the tables', () => {
    const variables = Object.keys(envSchema('/').shape);
    assert.deepEqual(
      variables,
      Object.values(SETTINGS).map((setting) => setting.variable),
    );
    for (const setting of Object.values(ENGINE_SETTINGS)) {
      if ('variable' in setting) assert.ok(variables.includes(setting.variable), setting.variable);
    }
  });

  it("refuses each whole number past its table's range, on one line naming the variable and the range", () => {
    for (const setting of Object.values(SETTINGS)) {
      if (setting.type !== 'wholeNumber') continue;
      const text = String(setting.max + 1);
      assert.throws(
        () =>
          parseSettings(envSchema('/'), source({ NUDGE_HANDLERS: 'file:h.mjs', [setting.variable]: text })),
        (error: unknown) => {
          assert.ok(error instanceof NudgeError);
          assert.equal(error.code, 'INVALID_CONFIG');
          assert.equal(error.message, `${setting.variable} must be ${acceptedForm(setting)} (got "${text}")`);
          return true;
        },
      );
    }
  });

  it("takes each table's default when unset", () => {
    const parsed = parseSettings(envSchema('/'), source({ NUDGE_HANDLERS: 'file:h.mjs' }));
    for (const setting of Object.values(SETTINGS)) {
      if (setting.type === 'text' && 'required' in setting) continue;
      assert.deepEqual(parsed[setting.variable], defaultOf(setting), setting.variable);
    }
  });
});
