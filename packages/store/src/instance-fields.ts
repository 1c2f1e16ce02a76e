import type { ExecutionClass } from '@nudge/core';
import type { InstanceInput, InstanceQueue } from './instance-types.js';

/** The JSON columns of an instance row, as stored text, defaults applied. */
export interface InstanceFields {
  readonly version: string | null;
  /** `[{"name": …, "cap"?: …}]`. */
  readonly queues: string;
  /** `{"cpu"?: n, "async"?: n}`. */
  readonly slots: string;
}

/** The optional fields of `input` as stored (only the known keys, so the row stays small). */
export function instanceFields(input: InstanceInput): InstanceFields {
  const queues = (input.queues ?? [{ name: '*' }]).map(({ name, cap }) =>
    cap === undefined ? { name } : { name, cap },
  );
  const slots: Partial<Record<ExecutionClass, number>> = {};
  if (input.slots?.cpu !== undefined) slots.cpu = input.slots.cpu;
  if (input.slots?.async !== undefined) slots.async = input.slots.async;
  return { version: input.version ?? null, queues: JSON.stringify(queues), slots: JSON.stringify(slots) };
}

/** A stored queue list read back; tolerates a hand-edited row by dropping malformed entries. */
export function toInstanceQueues(value: unknown): InstanceQueue[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((entry: unknown): InstanceQueue[] => {
    if (typeof entry !== 'object' || entry === null) return [];
    const { name, cap } = entry as { name?: unknown; cap?: unknown };
    if (typeof name !== 'string') return [];
    return [typeof cap === 'number' ? { name, cap } : { name }];
  });
}

/** Stored slots read back (only whole-number counts of known classes). */
export function toInstanceSlots(value: unknown): Partial<Record<ExecutionClass, number>> {
  const slots: Partial<Record<ExecutionClass, number>> = {};
  if (typeof value !== 'object' || value === null) return slots;
  const { cpu, async } = value as { cpu?: unknown; async?: unknown };
  if (typeof cpu === 'number') slots.cpu = cpu;
  if (typeof async === 'number') slots.async = async;
  return slots;
}
