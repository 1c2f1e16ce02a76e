import { MAX_TIMER_MS } from '@nudge/core';
import { acceptedForm, ENGINE_SETTINGS, type SettingTable } from '@nudge/engine/settings';
import { defaultText } from './default-text.js';
import { SERVER_SETTINGS } from './server-settings.js';
import { ENGINE_VARIABLE_SETTINGS } from './settings.js';

/** Where the settings reference lives, from the repository's root. */
export const SETTINGS_REFERENCE_PATH = 'docs/reference/settings.md';

/** The command that writes {@link SETTINGS_REFERENCE_PATH} again from the tables. */
export const SETTINGS_REFERENCE_COMMAND = 'pnpm docs:settings';

/** `text` in a Markdown table cell: no `|` ends the cell, no `*` starts emphasis. */
function cell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\*/g, '\\*');
}

/** One table of settings: a row each, with its variable (or none), option, default, form and doc. */
function settingsTable(table: SettingTable, option: (name: string) => string): string {
  const rows = Object.entries(table).map(([name, setting]) =>
    [
      setting.variable === undefined ? 'none' : `\`${setting.variable}\``,
      `\`${option(name)}\``,
      defaultText(setting),
      cell(acceptedForm(setting)),
      setting.doc,
    ].join(' | '),
  );
  return ['| Variable | Option | Default | Accepted form | Meaning |', '| --- | --- | --- | --- | --- |']
    .concat(rows.map((row) => `| ${row} |`))
    .join('\n');
}

const INTRO = `# Settings

<!-- Generated from the settings tables (packages/engine/src/settings/engine-settings.ts and
apps/server/src/settings/server-settings.ts) by \`${SETTINGS_REFERENCE_COMMAND}\`; do not edit by hand. -->

The server (\`nudge serve\`, \`node apps/server/dist/main.js\`, or \`pnpm serve\`) is configured only
through environment variables. They are read in one place,
[\`apps/server/src/config.ts\`](../../apps/server/src/config.ts), and checked before anything starts:
an invalid value stops the server with exit code 1 and one line on stderr that names the variable and
the accepted form, for example

\`\`\`text
INVALID_CONFIG: NUDGE_THREADS must be ${acceptedForm(ENGINE_SETTINGS.threads)} (got "abc")
\`\`\`

An empty or blank value counts as unset, so the default applies. Only \`NUDGE_HANDLERS\` is required.
Each setting is declared once, in a table of the engine or of the server; this page, the server's
checks, the engine's own checks of its options and \`nudge serve --help\` are all read from them.
Durations stop at ${MAX_TIMER_MS} ms (2^31 - 1, about 24.8 days): the longest delay a Node.js timer
honours.`;

const FROM_CODE = `## From code: \`startServer\` options

\`startServer\` from \`@nudge/server\` takes the same settings as typed options, so a service started
from code is configured, checked and defaulted exactly as one started by \`nudge serve\`. It reads no
environment variable itself. The server's settings are options by the names above; the engine's go in
one \`engine\` object, passed through to the engine:

\`\`\`ts
import { startServer } from '@nudge/server';

const server = await startServer({
  handlers: './handlers.mjs',
  databaseUrl: 'sqlite:./data/jobs.db',
  engine: { threads: 2, queues: [{ name: 'default' }, { name: 'emails', cap: 4 }] },
});
\`\`\`

Whole numbers are numbers (\`engine: { threads: 2 }\`), \`true\`/\`false\` are booleans
(\`engine: { listen: false }\`); \`engine.queues\`, \`engine.retention\` and \`engine.schedules\` take what
\`Engine.create\` takes (or, for \`queues\` and \`retention\`, the variable's text), and every other option
takes the variable's text: the URL, the path, \`host\`, \`logLevel\`, \`apiKeys\` (\`'KEY:admin'\`). Only
\`handlers\` is required; an option left out (or \`undefined\`) takes the default above. An invalid option
throws \`INVALID_CONFIG\` with the variable's message, naming the option:
\`engine.threads must be ${acceptedForm(ENGINE_SETTINGS.threads)} (got 0)\`; an unknown one throws a \`TypeError\`
that lists them. The engine's settings are also taken at the top level (\`threads: 2\`), as before
\`engine\` existed.

\`Engine.create\` from \`@nudge/engine\` takes the engine's settings by the same option names, with the
same defaults and ranges, and throws a \`RangeError\` naming the option at fault.`;

const OUTRO = `## OpenTelemetry

The standard \`OTEL_*\` variables are read by the OpenTelemetry SDK itself, not by nudge. The server
starts the SDK only when \`OTEL_TRACES_EXPORTER\` (other than \`none\`), \`OTEL_EXPORTER_OTLP_ENDPOINT\`
or \`OTEL_EXPORTER_OTLP_TRACES_ENDPOINT\` is set and \`OTEL_SDK_DISABLED\` is not \`true\`; then
\`OTEL_SERVICE_NAME\`, \`OTEL_EXPORTER_OTLP_PROTOCOL\`, the sampler and batch variables apply as the
SDK documents them. \`Engine.create\` takes \`tracing\` (an object, not a setting). See
[traces](../observability.md#traces).

## Examples

\`\`\`sh
# SQLite in ./data, handlers from ./handlers.js, port 3000
NUDGE_HANDLERS=./handlers.js node apps/server/dist/main.js

# PostgreSQL, 8 threads, listening on every interface
DATABASE_URL=postgres://nudge@db.internal:5432/nudge NUDGE_HANDLERS=/srv/app/handlers.js \\
NUDGE_THREADS=8 NUDGE_API_KEYS="$(openssl rand -hex 24):admin" HOST=0.0.0.0 node apps/server/dist/main.js
\`\`\`

More on API keys in [security.md](../security.md); on retention, poolers and wake-ups in
[operations.md](../guides/operations.md); on the bounded \`/metrics\` series in [metrics.md](metrics.md).
Error codes, including \`INVALID_CONFIG\`, \`HANDLERS_INVALID\` and \`SCHEMA_TOO_NEW\` that stop the server
at start, are listed in [errors.md](errors.md).`;

/** The engine's settings that have no variable: options of `Engine.create` only. */
function engineOnly(): SettingTable {
  return Object.fromEntries(
    Object.entries(ENGINE_SETTINGS).filter(([, setting]) => !('variable' in setting)),
  );
}

/**
 * The settings reference, `docs/reference/settings.md`, generated from the server's and the
 * engine's tables: fixed text around one table per group. A test compares the committed file with it.
 */
export function settingsReference(): string {
  return [
    INTRO,
    '## The server',
    'Settings of the service itself: the database, the handler module, the HTTP API, keys and logs. ' +
      '`startServer` takes them by their option names.',
    settingsTable(SERVER_SETTINGS, (name) => name),
    '## The engine',
    'Settings of the engine: threads, claims, polls, leases, timeouts, schedules and retention. ' +
      '`startServer` takes them in `engine` (`engine.threads`); `Engine.create` by the same names.',
    settingsTable(ENGINE_VARIABLE_SETTINGS, (name) => name),
    '### Options of `Engine.create` only',
    'These have no variable: the server leaves them at their defaults.',
    settingsTable(engineOnly(), (name) => name),
    FROM_CODE,
    OUTRO,
  ]
    .join('\n\n')
    .concat('\n');
}
