import { createSocket, type Socket } from 'node:dgram';
import { encodeReport, type ReportMessage } from './report-message.js';

/** Environment variable that carries the UDP port the bench client listens on. */
export const REPORT_PORT_VARIABLE = 'BENCH_REPORT_PORT';

let socket: Socket | undefined;
let port: number | undefined;

function reportPort(): number {
  if (port !== undefined) return port;
  const value = Number(process.env[REPORT_PORT_VARIABLE]);
  if (!Number.isInteger(value) || value < 1 || value > 65_535) {
    throw new Error(`${REPORT_PORT_VARIABLE} must be the bench client's UDP port (got "${String(value)}")`);
  }
  port = value;
  return value;
}

/**
 * Sends one report to the bench client at `127.0.0.1:$BENCH_REPORT_PORT` and resolves once the
 * datagram has left (a failure is logged, not thrown). Works the same in a child process and in a
 * worker thread (each has its own socket, which does not keep the thread alive).
 *
 * Handlers must await it: a pool thread that parks between tasks (Piscina waits on `Atomics`)
 * turns its event loop only while a task is pending, so an unawaited send may never leave.
 * @throws Error when `BENCH_REPORT_PORT` is not a port
 */
export function sendReport(message: ReportMessage): Promise<void> {
  const target = reportPort();
  if (!socket) {
    socket = createSocket('udp4');
    socket.unref();
  }
  const sending = socket;
  return new Promise((resolve) => {
    sending.send(encodeReport(message), target, '127.0.0.1', (error) => {
      if (error) console.error(`bench report ${message.run}:${message.seq} not sent: ${error.message}`);
      resolve();
    });
  });
}
