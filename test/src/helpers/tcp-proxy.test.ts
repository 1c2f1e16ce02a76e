import { afterEach, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { createTcpProxy, type TcpProxy } from './tcp-proxy.js';

/** Connects to `port`; resolves once connected, rejects with the connection's error. */
function open(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });
}

/** Writes `text` and resolves with the echo, or rejects with the socket's error. */
function echo(socket: Socket, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    socket.once('data', (chunk) => resolve(chunk.toString()));
    socket.once('error', reject);
    socket.write(text);
  });
}

/** Resolves with the code of the error `socket` ends with. */
function endingError(socket: Socket): Promise<string | undefined> {
  return new Promise((resolve) =>
    socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code)),
  );
}

describe('TCP proxy', () => {
  let upstream: Server;
  let proxy: TcpProxy;
  beforeEach(async () => {
    upstream = createServer((socket) => socket.pipe(socket));
    await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
    const address = upstream.address();
    assert.ok(typeof address === 'object' && address);
    proxy = await createTcpProxy('127.0.0.1', address.port);
  });
  afterEach(async () => {
    await proxy.close();
    await new Promise((resolve) => upstream.close(resolve));
  });

  it('forwards both ways', async () => {
    const socket = await open(proxy.port);
    assert.equal(await echo(socket, 'ping'), 'ping');
    socket.destroy();
  });

  it('reset aborts open connections and every new one with ECONNRESET, until forward again', async () => {
    const socket = await open(proxy.port);
    assert.equal(await echo(socket, 'a'), 'a');
    const ended = endingError(socket);
    await proxy.setMode('reset');
    assert.equal(await ended, 'ECONNRESET', 'the open connection is reset');
    // Reset as soon as accepted: the RST may even arrive before the client saw its connect end.
    const late = connect(proxy.port, '127.0.0.1');
    assert.equal(await endingError(late), 'ECONNRESET', 'a new connection is reset');
    await proxy.setMode('forward');
    const again = await open(proxy.port);
    assert.equal(await echo(again, 'b'), 'b');
    again.destroy();
  });

  it('refuse closes the port: a new connection is refused', async () => {
    await proxy.setMode('refuse');
    await assert.rejects(open(proxy.port), { code: 'ECONNREFUSED' });
    await proxy.setMode('forward');
    const socket = await open(proxy.port);
    assert.equal(await echo(socket, 'c'), 'c');
    socket.destroy();
  });

  it('blackhole accepts and swallows: no reply, no close', async () => {
    await proxy.setMode('blackhole');
    const socket = await open(proxy.port);
    let answered = false;
    socket.on('data', () => (answered = true));
    socket.on('close', () => (answered = true));
    socket.write('lost');
    // The reply an echo would give arrives well within this when forwarding (see above).
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.equal(answered, false);
    socket.destroy();
  });
});
