import { connect } from 'node:net';

/**
 * Asks the Redis server at `url` (`redis://host:port`) for its version with `INFO server`.
 * @returns the version, or `undefined` when nothing answers like Redis within `timeoutMs`
 */
export function redisVersion(url: string, timeoutMs = 2000): Promise<string | undefined> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname, port: Number(port || 6379) });
    let text = '';
    const finish = (version: string | undefined): void => {
      clearTimeout(timer);
      socket.destroy();
      resolve(version);
    };
    const timer = setTimeout(() => finish(undefined), timeoutMs);
    socket.on('connect', () => socket.write('INFO server\r\n'));
    socket.on('data', (chunk) => {
      text += chunk.toString('latin1');
      if (text.startsWith('-')) finish(undefined);
      const match = /redis_version:([^\r\n]+)\r\n/.exec(text);
      if (match) finish(match[1]);
    });
    socket.on('error', () => finish(undefined));
  });
}
