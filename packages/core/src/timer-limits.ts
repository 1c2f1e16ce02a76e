/**
 * Longest delay a Node.js timer honours, in ms: 2^31 - 1 (2,147,483,647, about 24.8 days).
 * `setTimeout` and `setInterval` store the delay as a signed 32-bit integer; a longer one fires
 * after 1 ms instead (with a `TimeoutOverflowWarning`). Every duration that ends up in a timer (a
 * lease, a poll interval, a job timeout, a grace period) is bounded by it.
 */
export const MAX_TIMER_MS = 2_147_483_647;
