import { createServer, connect, type Server, type Socket } from 'node:net';

/** How a {@link TcpProxy} treats traffic. */
export type ProxyMode = 'forward' | 'blackhole' | 'refuse';

/** A TCP proxy on 127.0.0.1 in front of a real server, to cut the network under a client. */
export interface TcpProxy {
  /** The port clients connect to. */
  readonly port: number;
  /**
   * `forward`: pass bytes both ways. `blackhole`: accept connections and swallow every byte
   * without answering or closing (a partition, or a server that hangs). `refuse`: stop
   * listening and drop every connection (a closed port).
   */
  setMode(mode: ProxyMode): Promise<void>;
  close(): Promise<void>;
}

/** Starts a proxy to `targetHost:targetPort` on a free port, forwarding. */
export async function createTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  const server: Server = createServer((client) => {
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (mode !== 'forward') {
      client.on('data', () => undefined);
      return;
    }
    const upstream = connect(targetPort, targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    client.on('data', (chunk) => {
      if (mode === 'forward') upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode === 'forward') client.write(chunk);
    });
  });
  const listen = (port: number) =>
    new Promise<number>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => {
        server.off('error', reject);
        const address = server.address();
        resolve(typeof address === 'object' && address ? address.port : port);
      });
    });
  const port = await listen(0);
  const dropAll = (): void => {
    for (const pair of pairs) {
      pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    setMode: async (next) => {
      const wasListening = server.listening;
      mode = next;
      if (next === 'refuse') {
        dropAll();
        if (wasListening) await new Promise<void>((resolve) => server.close(() => resolve()));
      } else if (!wasListening) {
        await listen(port);
      }
    },
    close: async () => {
      dropAll();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
