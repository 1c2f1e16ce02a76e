// Handlers of the benchmark: no work, so the numbers measure the queue itself.

/** Returns at once. */
export async function noop(): Promise<null> {
  return null;
}
