/**
 * What a queue name may hold: 1 to 100 letters, digits, `_`, `.` or `-` (so that it fits in a URL
 * path and in the text form of a served-queue list, such as `default,emails:4`, where `:` starts
 * a cap, without escaping), but not `.` or `..`: as a path segment those name another route (a
 * browser or proxy collapses `/queues/../pause`), so no route could address the queue.
 */
export const QUEUE_NAME_PATTERN = '^(?!\\.{1,2}$)[A-Za-z0-9_.-]{1,100}$';

const QUEUE_NAME = new RegExp(QUEUE_NAME_PATTERN);

/** Whether `name` is a valid queue name (see {@link QUEUE_NAME_PATTERN}). */
export function isQueueName(name: string): boolean {
  return QUEUE_NAME.test(name);
}
