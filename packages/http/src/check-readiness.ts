import { NudgeError, type Logger } from '@nudge/core';
import type { SchemaState, Store } from '@nudge/store';

/**
 * Checks that `store` can serve: the database answers a trivial query and its schema version is
 * exactly the newest this code knows.
 *
 * @returns the schema versions
 * @throws NudgeError `NOT_READY` saying which check failed; a database error is logged at `warn`
 *   with its cause and not repeated in the message
 */
export async function checkReadiness(store: Store, logger: Logger): Promise<SchemaState> {
  let schema: SchemaState;
  try {
    await store.ping();
    schema = await store.schemaState();
  } catch (error) {
    logger.warn({ err: error }, 'readiness check: the database query failed');
    throw new NudgeError(
      'NOT_READY',
      'the database does not answer: check that it is running and reachable (the server log has the error)',
      { cause: error },
    );
  }
  if (schema.applied < schema.latest) {
    throw new NudgeError(
      'NOT_READY',
      `the database schema is at version ${schema.applied} of ${schema.latest}: apply the migrations (the server does at start)`,
    );
  }
  if (schema.applied > schema.latest) {
    throw new NudgeError(
      'NOT_READY',
      `the database schema is at version ${schema.applied}, newer than this code knows (${schema.latest}): upgrade this instance`,
    );
  }
  return schema;
}
