import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { NudgeError } from '@nudge/core';
import type { KindInfo } from '../handlers/handler.js';
import { WorkerThread } from './worker-thread.js';

/** The `file:` URL of a handler module given as a path (relative to the working directory) or URL. */
export function handlersUrl(handlers: string): string {
  return handlers.startsWith('file:') ? handlers : pathToFileURL(resolve(handlers)).href;
}

/** What a handler module declares. */
export interface HandlerModuleDescription {
  readonly kinds: readonly KindInfo[];
  /** Its `schedules` export as data; `undefined` without one. */
  readonly schedules: unknown;
}

/**
 * Loads the handler module in a short-lived worker thread (never in the calling thread, where its
 * imports and side effects do not belong) and returns its kinds with their execution class, and
 * its `schedules` export.
 *
 * @throws NudgeError `HANDLERS_INVALID` when the module cannot be loaded, exports no handler, or
 *   declares a kind wrongly
 */
export async function describeHandlers(
  handlers: string,
  maxOldGenerationSizeMb: number,
): Promise<HandlerModuleDescription> {
  const thread = new WorkerThread(
    { handlersUrl: handlersUrl(handlers), role: 'describe', maxOldGenerationSizeMb },
    {
      onResults: () => undefined,
      onProgress: () => undefined,
      onLogs: () => undefined,
      onCulprit: () => undefined,
      onStrayError: () => undefined,
      onStepWrite: () => undefined,
      onExit: () => undefined,
    },
  );
  try {
    const kinds = await thread.ready();
    return { kinds, schedules: thread.moduleSchedules };
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new NudgeError('HANDLERS_INVALID', `cannot load handlers from ${handlers}: ${reason}`, {
      cause: error,
    });
  } finally {
    await thread.terminate();
  }
}
