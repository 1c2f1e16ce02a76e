import { createServer, connect, type Server, type Socket } from 'node:net';

/** How a {@link TcpProxy} treats traffic. */
export type ProxyMode = 'forward' | 'blackhole' | 'refuse' | 'reset';

/** A TCP proxy on 127.0.0.1 in front of a real server, to cut the network under a client. */
export interface TcpProxy {
  /** The port clients connect to. */
  readonly port: number;
  /**
   * `forward`: pass bytes both ways. `blackhole`: accept connections and swallow every byte
   * without answering or closing (a partition, or a server that hangs). `refuse`: stop
   * listening and drop every connection (a closed port). `reset`: abort every connection with a
   * TCP RST, and every new one as soon as it is accepted (a firewall or load balancer rejecting
   * the flow).
   */
  setMode(mode: ProxyMode): Promise<void>;
  /**
   * Arms a cut for the next client write (while forwarding) that contains `marker`: that write
   * is forwarded, the server's reply is swallowed until `replyEnds(reply)` says it is whole, and
   * then the connection is closed. The server finished the request; the client never learns how
   * (an ambiguous commit). Each cut's swallowed reply is appended to {@link cutReplies}.
   */
  cutAfterReply(marker: string, replyEnds: (reply: Buffer) => boolean): void;
  /** The replies swallowed by {@link cutAfterReply}'s cuts, in order, each whole. */
  readonly cutReplies: readonly Buffer[];
  close(): Promise<void>;
}

/** A cut armed by {@link TcpProxy.cutAfterReply}. */
interface Cut {
  readonly marker: Buffer;
  readonly replyEnds: (reply: Buffer) => boolean;
}

/** Starts a proxy to `targetHost:targetPort` on a free port, forwarding. */
export async function createTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  let mode: ProxyMode = 'forward';
  let armed: Cut | undefined;
  const cutReplies: Buffer[] = [];
  const pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  const server: Server = createServer((client) => {
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    pairs.add(pair);
    client.on('error', () => undefined);
    client.on('close', () => {
      pairs.delete(pair);
      pair.upstream?.destroy();
    });
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    if (mode !== 'forward') {
      client.on('data', () => undefined);
      return;
    }
    const upstream = connect(targetPort, targetHost);
    pair.upstream = upstream;
    upstream.on('error', () => client.destroy());
    upstream.on('close', () => client.destroy());
    // The cut this connection is swallowing the reply for, and the reply so far.
    let cutting: { cut: Cut; reply: Buffer } | undefined;
    client.on('data', (chunk) => {
      if (mode !== 'forward') return;
      if (armed && !cutting && chunk.includes(armed.marker)) {
        cutting = { cut: armed, reply: Buffer.alloc(0) };
        armed = undefined;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (mode !== 'forward') return;
      if (!cutting) {
        client.write(chunk);
        return;
      }
      cutting.reply = Buffer.concat([cutting.reply, chunk]);
      if (!cutting.cut.replyEnds(cutting.reply)) return;
      cutReplies.push(cutting.reply);
      client.destroy();
      upstream.destroy();
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
  const dropAll = (reset = false): void => {
    for (const pair of pairs) {
      if (reset) pair.client.resetAndDestroy();
      else pair.client.destroy();
      pair.upstream?.destroy();
    }
    pairs.clear();
  };
  return {
    port,
    cutReplies,
    cutAfterReply: (marker, replyEnds) => {
      armed = { marker: Buffer.from(marker), replyEnds };
    },
    setMode: async (next) => {
      const wasListening = server.listening;
      mode = next;
      if (next === 'reset') {
        dropAll(true);
        if (!wasListening) await listen(port);
      } else if (next === 'refuse') {
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
