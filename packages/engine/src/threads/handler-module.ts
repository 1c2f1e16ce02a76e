import type { PayloadCheck } from '../payload-check.js';
import type { Handler, KindInfo } from '../handlers/handler.js';
import { checkDeclaration } from './kind-declaration.js';

/** A loaded kind: its handler, how it runs, what it declares, and its payload check. */
export interface LoadedKind extends KindInfo {
  readonly handler: Handler;
  /** Checks a payload against the kind's `schema`; absent without one. */
  readonly check: PayloadCheck | undefined;
}

function definition(name: string, value: unknown): LoadedKind | undefined {
  if (typeof value === 'function') {
    return { kind: name, handler: value as Handler, execution: 'cpu', check: undefined };
  }
  if (value === null || typeof value !== 'object') return undefined;
  const { handler, execution } = value as { handler?: unknown; execution?: unknown };
  if (handler === undefined && execution === undefined) return undefined;
  if (typeof handler !== 'function') {
    throw new Error(`export "${name}" declares a kind but its "handler" is not a function`);
  }
  return { ...checkDeclaration(name, value as Record<string, unknown>), handler: handler as Handler };
}

/**
 * Reads the kinds a handler module exports. Each named export that is a function is a `cpu`
 * kind named by the export; an object `{ handler, execution, … }` declares the kind's options
 * (see `KindDeclaration`); a default export that is an object adds its keys the same way (for
 * kinds that are not identifiers, such as `reports.daily`, and for `export default
 * defineHandlers({ … })`). Other exports are ignored.
 *
 * @throws Error when the module cannot be imported, exports no handler, or an object declaring a
 *   kind has no `handler` function or a declaration field that is wrong (named with its kind)
 */
export async function loadHandlerModule(handlersUrl: string): Promise<Map<string, LoadedKind>> {
  const module = (await import(handlersUrl)) as Record<string, unknown>;
  const kinds = new Map<string, LoadedKind>();
  for (const [name, value] of Object.entries(module)) {
    const loaded = name === 'default' ? undefined : definition(name, value);
    if (loaded) kinds.set(name, loaded);
  }
  const fallback = module.default;
  if (fallback !== null && typeof fallback === 'object') {
    for (const [name, value] of Object.entries(fallback)) {
      const loaded = definition(name, value);
      if (loaded) kinds.set(name, loaded);
    }
  }
  if (kinds.size === 0) {
    throw new Error(
      `${handlersUrl} exports no handler: export a function per job kind, or { handler, execution }`,
    );
  }
  return kinds;
}

/**
 * The module's `schedules` export (recurring jobs; see `CronSchedule`) as JSON data, so it can
 * cross to the main thread; `undefined` when there is none.
 * @throws Error when the export cannot be written as JSON
 */
export async function readSchedulesExport(handlersUrl: string): Promise<unknown> {
  const { schedules } = (await import(handlersUrl)) as { schedules?: unknown };
  if (schedules === undefined) return undefined;
  try {
    return JSON.parse(JSON.stringify(schedules)) as unknown;
  } catch (error) {
    throw new Error(`the "schedules" export is not JSON data: ${(error as Error).message}`);
  }
}
