import type { Handler } from './handler.js';

/**
 * Reads the handlers a module exports: every exported function is a handler named by its export
 * name, and a default export that is an object adds its function-valued keys (for kinds that are
 * not identifiers, such as `reports.daily`).
 *
 * @throws Error when the module cannot be imported or exports no handler
 */
export async function loadHandlers(handlersUrl: string): Promise<Map<string, Handler>> {
  const module = (await import(handlersUrl)) as Record<string, unknown>;
  const handlers = new Map<string, Handler>();
  for (const [name, value] of Object.entries(module)) {
    if (name !== 'default' && typeof value === 'function') handlers.set(name, value as Handler);
  }
  const fallback = module.default;
  if (fallback !== null && typeof fallback === 'object') {
    for (const [name, value] of Object.entries(fallback)) {
      if (typeof value === 'function') handlers.set(name, value as Handler);
    }
  }
  if (handlers.size === 0) {
    throw new Error(`${handlersUrl} exports no handler: export async functions named by job kind`);
  }
  return handlers;
}
