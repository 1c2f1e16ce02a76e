import pg from 'pg';

/**
 * A `pg.Client` that runs every query unnamed: a query config's `name` (which would make pg
 * prepare the statement once per connection and reuse it) is dropped before it is sent. A
 * transaction pooler hands each transaction whichever server connection is free, where a
 * statement prepared on another one does not exist (`prepared statement "…" does not exist`).
 * Each query then costs a parse and a plan on the server, as any unnamed query does.
 */
export class UnpreparedClient extends pg.Client {}

// eslint-disable-next-line @typescript-eslint/unbound-method -- called below with the client as `this`
const namedQuery = pg.Client.prototype.query;

// Replacing the method keeps pg's many overloads intact for callers; only a config object with
// a name changes.
Object.defineProperty(UnpreparedClient.prototype, 'query', {
  configurable: true,
  writable: true,
  value: function query(this: pg.Client, config: unknown, ...rest: unknown[]): unknown {
    const unnamed =
      config !== null && typeof config === 'object' && 'name' in config && !('submit' in config)
        ? { ...config, name: undefined }
        : config;
    return Reflect.apply(namedQuery, this, [unnamed, ...rest]);
  },
});
