import pg from 'pg';

/**
 * What {@link probePooler} found between this process and PostgreSQL:
 * - `direct`: the server applied the session settings sent at connection time;
 * - `rejected`: something refused the startup parameter (PgBouncer and most transaction poolers
 *   answer `unsupported startup parameter: …`);
 * - `dropped`: the connection opened but the settings never reached the server (a pooler set to
 *   ignore startup parameters, such as PgBouncer's `ignore_startup_parameters = options`).
 */
export type PoolerProbeResult = 'direct' | 'rejected' | 'dropped';

/** The setting the probe sends and reads back: `off` on the server proves the options arrived. */
const PROBE_SETTING = 'enable_sort';

/**
 * Opens one connection with a session setting in the startup packet (`options=-c enable_sort=off`)
 * and reads it back. A server reached directly applies it; a transaction pooler either rejects
 * the parameter or drops it, since a setting of one client's session cannot follow that client
 * across the server connections the pooler hands out. One connection and one query, once per
 * store.
 *
 * @throws Error whatever else opening the connection throws (an unreachable database, bad
 *   credentials): the caller's first query would have failed the same way; a connection that
 *   does not open within `connectTimeoutMs` as `timeout exceeded when trying to connect (… ms)`
 */
export async function probePooler(
  connectionString: string,
  connectTimeoutMs: number,
): Promise<PoolerProbeResult> {
  const client = new pg.Client({
    connectionString,
    connectionTimeoutMillis: connectTimeoutMs,
    options: `-c ${PROBE_SETTING}=off`,
  });
  client.on('error', () => undefined);
  try {
    await client.connect();
  } catch (error) {
    await client.end().catch(() => undefined);
    const { message } = error as Error;
    if (/unsupported startup parameter/i.test(message)) return 'rejected';
    // pg.Client says only "timeout expired"; say it as the pool does, naming the connection.
    if (message === 'timeout expired')
      throw new Error(`timeout exceeded when trying to connect (${connectTimeoutMs} ms)`, { cause: error });
    throw error;
  }
  try {
    const { rows } = await client.query<{ value: string }>(
      `SELECT current_setting('${PROBE_SETTING}') AS value`,
    );
    return rows[0]?.value === 'off' ? 'direct' : 'dropped';
  } finally {
    await client.end().catch(() => undefined);
  }
}
