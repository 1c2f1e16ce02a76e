// `pnpm test:model [--runs N] [--seed S --path P --replay-path R] [--dialect sqlite|postgres]
// [--commands N] [--focus all|durable]`: the model test (model-property.ts) with a budget of one's
// choosing; `--focus durable` draws mostly durable steps and signals (command-tables.ts); exits 1
// on a violation. NUDGE_MODEL_SKIP_KNOWN=1 avoids the store's known faults (or names some of them,
// comma-separated: debounce-retry, dependent-retry). PostgreSQL from TEST_DATABASE_URL, else a
// throwaway server.
import { parseArgs } from 'node:util';
import type { Dialect } from '@nudge/store';
import { DIALECTS } from '../helpers/index.js';
import { COMMAND_TABLES, type CommandFocus } from './command-tables.js';
import { checkModel } from './model-property.js';
import { parseKnownFaults, type KnownFault } from './model-state.js';

const USAGE =
  'usage: pnpm test:model [--runs N] [--seed S --path P --replay-path R] [--dialect sqlite|postgres] [--commands N] [--focus all|durable]';

function fail(reason: string): never {
  console.error(`${reason}\n${USAGE}`);
  process.exit(2);
}

let values: {
  runs?: string;
  seed?: string;
  path?: string;
  'replay-path'?: string;
  dialect?: string;
  commands?: string;
  focus?: string;
  help?: boolean;
};
try {
  values = parseArgs({
    options: {
      runs: { type: 'string', default: '100' },
      seed: { type: 'string' },
      path: { type: 'string' },
      'replay-path': { type: 'string' },
      dialect: { type: 'string' },
      commands: { type: 'string' },
      focus: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  }).values;
} catch (error) {
  fail((error as Error).message);
}
if (values.help) {
  console.log(USAGE);
  process.exit(0);
}
const whole = (name: string, text: string | undefined, min: number): number | undefined => {
  if (text === undefined) return undefined;
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < min) fail(`--${name} must be a whole number from ${min} (got ${text})`);
  return n;
};
const runs = whole('runs', values.runs, 1) ?? 100;
const seed = values.seed === undefined ? undefined : Number(values.seed);
if (seed !== undefined && !Number.isInteger(seed)) fail(`--seed must be an integer (got ${values.seed})`);
const maxCommands = whole('commands', values.commands, 1);
if (values.dialect && !DIALECTS.includes(values.dialect as Dialect))
  fail(`--dialect must be sqlite or postgres (got ${values.dialect})`);
const dialects = values.dialect ? [values.dialect as Dialect] : DIALECTS;
if (values.focus !== undefined && !(values.focus in COMMAND_TABLES))
  fail(`--focus must be one of ${Object.keys(COMMAND_TABLES).join(', ')} (got ${values.focus})`);
const focus = values.focus as CommandFocus | undefined;
let avoid: ReadonlySet<KnownFault>;
try {
  avoid = parseKnownFaults(process.env.NUDGE_MODEL_SKIP_KNOWN);
} catch (error) {
  fail((error as Error).message);
}

let embedded: { stop(): Promise<void> } | undefined;
if (dialects.includes('postgres') && !process.env.TEST_DATABASE_URL) {
  const { ThrowawayPostgres } = await import('@nudge/test-databases/throwaway-postgres');
  console.error('TEST_DATABASE_URL is unset: starting a throwaway PostgreSQL');
  const server = await ThrowawayPostgres.start();
  embedded = server;
  process.env.TEST_DATABASE_URL = server.url;
}
let failed = false;
try {
  for (const dialect of dialects) {
    process.stderr.write(
      `model on ${dialect}${focus ? ` (${focus})` : ''}, ${runs} runs${avoid.size > 0 ? ` (avoiding ${[...avoid].join(', ')})` : ''}: `,
    );
    try {
      const result = await checkModel({
        dialect,
        runs,
        avoid,
        ...(seed === undefined ? {} : { seed }),
        ...(values.path === undefined ? {} : { path: values.path }),
        ...(values['replay-path'] === undefined ? {} : { replayPath: values['replay-path'] }),
        ...(maxCommands === undefined ? {} : { maxCommands }),
        ...(focus === undefined ? {} : { focus }),
      });
      process.stderr.write(`ok, seed ${result.seed} (${(result.elapsedMs / 1000).toFixed(1)} s)\n`);
    } catch (error) {
      failed = true;
      process.stderr.write(`FAILED\n${(error as Error).message}\n`);
    }
  }
} finally {
  await embedded?.stop();
}
process.exitCode = failed ? 1 : 0;
