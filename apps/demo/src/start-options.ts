/** How `pnpm start` runs the demo; {@link readStartOptions} fills in every default. */
export interface StartOptions {
  /** Database of both the server and the producer. @defaultValue `sqlite:./data/nudge.db` */
  readonly databaseUrl: string;
  /** Port of the server; `0` picks a free one. @defaultValue `3000` */
  readonly port: string;
  /**
   * The server's LOG_LEVEL: `warn` unless set, since at `info` it logs every request and the
   * producer polls. The server prints its `listening on` line at any level.
   * @defaultValue `'warn'`
   */
  readonly serverLogLevel: string;
  /** Stop the server after the demo and exit with the producer's code (`NUDGE_DEMO_EXIT=1`). */
  readonly exitAfterDemo: boolean;
  /**
   * Arguments passed on to the producer, e.g. `--dataset flights-10k`; a leading `--` is dropped,
   * as `pnpm start -- --dataset flights-3m` passes it through.
   */
  readonly producerArgs: readonly string[];
}

/**
 * Reads the launcher's options from its arguments and environment (DATABASE_URL, PORT,
 * LOG_LEVEL, NUDGE_DEMO_EXIT); the one place the launcher reads them.
 *
 * @throws Error when PORT is not a port number
 */
export function readStartOptions(args: readonly string[], env: NodeJS.ProcessEnv): StartOptions {
  const port = env.PORT ?? '3000';
  const number = Number(port);
  if (!/^\d+$/.test(port) || number > 65_535)
    throw new Error(`PORT must be a port from 0 to 65535 (got "${port}")`);
  return {
    databaseUrl: env.DATABASE_URL ?? 'sqlite:./data/nudge.db',
    port,
    serverLogLevel: env.LOG_LEVEL ?? 'warn',
    exitAfterDemo: env.NUDGE_DEMO_EXIT === '1',
    producerArgs: args[0] === '--' ? args.slice(1) : [...args],
  };
}
