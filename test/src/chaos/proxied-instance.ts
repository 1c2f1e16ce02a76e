import { createTcpProxy, type TcpProxy } from '../helpers/tcp-proxy.js';
import type { ChaosCluster, Instance } from './cluster.js';

/** An instance whose every database connection goes through a proxy the scenario controls. */
export interface ProxiedInstance {
  readonly instance: Instance;
  readonly proxy: TcpProxy;
}

/**
 * Starts instance `name` of a PostgreSQL `cluster` with its `DATABASE_URL` (tagged with its
 * `application_name`, see {@link ChaosCluster.databaseUrl}) pointed at a new forwarding proxy to
 * the cluster's server; `env` is passed on. The caller closes the proxy.
 * @throws Error when the instance does not start (the proxy is closed then)
 */
export async function startProxied(
  cluster: ChaosCluster,
  name: string,
  env: Record<string, string> = {},
): Promise<ProxiedInstance> {
  const target = new URL(cluster.db.url);
  const proxy = await createTcpProxy(target.hostname, Number(target.port || 5432));
  const url = new URL(cluster.databaseUrl(name));
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  try {
    const instance = await cluster.start(name, { ...env, DATABASE_URL: url.toString() });
    return { instance, proxy };
  } catch (error) {
    await proxy.close();
    throw error;
  }
}
