import type { EventEmitter } from 'node:events';

/** Resolves with the first `event` whose value passes `match`; rejects after `timeoutMs`. */
export function waitForEvent<T>(
  emitter: EventEmitter,
  event: string,
  match: (value: T) => boolean = () => true,
  timeoutMs = 15_000,
): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      emitter.off(event, listener);
      reject(new Error(`timed out after ${timeoutMs} ms waiting for "${event}"`));
    }, timeoutMs);
    const listener = (value: T): void => {
      if (!match(value)) return;
      clearTimeout(timer);
      emitter.off(event, listener);
      resolve(value);
    };
    emitter.on(event, listener);
  });
}

/** Polls `check` every `intervalMs` until it returns a value other than `undefined`. */
export async function waitUntil<T>(
  check: () => Promise<T | undefined> | T | undefined,
  timeoutMs = 15_000,
  intervalMs = 25,
  what = 'condition',
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
