import type { ThreadTracing } from './thread-messages.js';

/**
 * Imports the tracing setup module of a traced thread (`ThreadTracing.setupUrl`), before the
 * handler module, so that the thread's tracer provider is registered when the first attempt
 * starts its span. Does nothing for an untraced thread, or one without a setup module.
 * @throws whatever importing the module throws (the thread reports it as a load error)
 */
export async function setUpTracing(tracing: ThreadTracing | undefined): Promise<void> {
  if (tracing?.setupUrl !== undefined) await import(tracing.setupUrl);
}
