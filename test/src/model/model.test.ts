// The model-based test of the job lifecycle, flow control and durable steps (model-property.ts),
// a short budget per dialect, once with every command and once drawing mostly durable steps and
// signals; `pnpm test:model --runs N [--focus durable]` runs a longer one.
import { test } from 'node:test';
import { DIALECTS } from '../helpers/index.js';
import { checkModel } from './model-property.js';
import { parseKnownFaults } from './model-state.js';

/** Runs per dialect under `pnpm test`: a few seconds each. */
const RUNS = 25;

for (const dialect of DIALECTS) {
  test(`model: job lifecycle and flow control against three instances, ${dialect}`, async () => {
    await checkModel({ dialect, runs: RUNS, avoid: parseKnownFaults(process.env.NUDGE_MODEL_SKIP_KNOWN) });
  });
  test(`model: durable steps, sleeps and signals against three instances, ${dialect}`, async () => {
    await checkModel({
      dialect,
      runs: RUNS,
      focus: 'durable',
      avoid: parseKnownFaults(process.env.NUDGE_MODEL_SKIP_KNOWN),
    });
  });
}
