import type { Store } from './store.js';

/**
 * `store` with every method call reported to `onCall` by the method's name, before the call runs
 * (a call that throws is counted too). Each call is one statement or one transaction on the
 * database, a few are more, so the counts say which source makes an instance's database load:
 * the server exports them as `nudge_store_calls_total{method}`. Properties and getters
 * (`dialect`, `capabilities`) are read from `store` itself; a wrapper is made once per method
 * function, so a method replaced on the store (as a test's spy does) is the one called.
 */
export function countStoreCalls<S extends Store>(store: S, onCall: (method: string) => void): S {
  // Keyed by the method itself, not its name: a method replaced on the store gets a new wrapper.
  const wrappers = new WeakMap<object, unknown>();
  return new Proxy(store, {
    get(target, property) {
      // Read with the store as receiver: its getters use private fields a proxy cannot reach.
      const value: unknown = Reflect.get(target, property, target);
      if (typeof value !== 'function' || typeof property !== 'string') return value;
      let wrapper = wrappers.get(value);
      if (wrapper === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        wrapper = (...args: unknown[]): unknown => {
          onCall(property);
          return method.apply(target, args);
        };
        wrappers.set(value, wrapper);
      }
      return wrapper;
    },
  });
}
