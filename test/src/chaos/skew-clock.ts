// A preload for the chaos instances (`NODE_OPTIONS=--import <file URL of skew-clock.js>`): shifts
// the process's wall clock as seen through `Date` (`Date.now()`, `new Date()`, `Date()`) by
// NUDGE_CHAOS_CLOCK_OFFSET_MS, as a host whose clock is wrong would. The monotonic clocks
// (`performance.now()`, `performance.timeOrigin`) are left alone: the ledger's timestamps stay
// true, and the service's timers never read `Date` anyway.

/** The shift of `Date`, in ms (negative: behind). */
const offsetMs = Number(process.env.NUDGE_CHAOS_CLOCK_OFFSET_MS ?? 0);

if (offsetMs !== 0 && Number.isFinite(offsetMs)) {
  const RealDate = Date;
  const realNow = Date.now.bind(Date);
  const SkewedDate = function (this: unknown, ...args: unknown[]): Date | string {
    const skewed = new RealDate(realNow() + offsetMs);
    if (new.target === undefined) return skewed.toString();
    return Reflect.construct(RealDate, args.length === 0 ? [skewed.getTime()] : args, new.target) as Date;
  } as unknown as DateConstructor;
  // One prototype: every date, however made (structured clones, native code), is `instanceof Date`.
  Object.defineProperty(SkewedDate, 'prototype', { value: RealDate.prototype });
  Object.setPrototypeOf(SkewedDate, RealDate); // Date.parse, Date.UTC
  SkewedDate.now = () => realNow() + offsetMs;
  globalThis.Date = SkewedDate;
}

export {};
