import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { NudgeError } from '@nudge/core';
import type { KindInfo } from './handler.js';
import { WorkerThread } from './worker-thread.js';

/** The `file:` URL of a handler module given as a path (relative to the working directory) or URL. */
export function handlersUrl(handlers: string): string {
  return handlers.startsWith('file:') ? handlers : pathToFileURL(resolve(handlers)).href;
}

/**
 * Loads the handler module in a short-lived worker thread (never in the calling thread, where its
 * imports and side effects do not belong) and returns its kinds with their execution class.
 *
 * @throws NudgeError `HANDLERS_INVALID` when the module cannot be loaded, exports no handler, or
 *   declares a kind wrongly
 */
export async function describeHandlers(
  handlers: string,
  maxOldGenerationSizeMb: number,
): Promise<readonly KindInfo[]> {
  const thread = new WorkerThread(
    { handlersUrl: handlersUrl(handlers), role: 'describe', maxOldGenerationSizeMb },
    {
      onResults: () => undefined,
      onProgress: () => undefined,
      onCulprit: () => undefined,
      onExit: () => undefined,
    },
  );
  try {
    return await thread.ready();
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new NudgeError('HANDLERS_INVALID', `cannot load handlers from ${handlers}: ${reason}`, {
      cause: error,
    });
  } finally {
    await thread.terminate();
  }
}
