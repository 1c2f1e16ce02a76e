import { createSocket, type Socket } from 'node:dgram';
import { performance } from 'node:perf_hooks';
import { decodeReport } from './report-message.js';
import { RunTally } from './run-tally.js';

/** Largest receive buffer asked for, in bytes; Linux caps it at `net.core.rmem_max`. */
const RECEIVE_BUFFER_BYTES = 32 * 1024 * 1024;

/**
 * The bench client's UDP socket on `127.0.0.1`: handlers of every system send one datagram per
 * job run, and this process timestamps each on receipt with `performance.now()`, its own clock.
 * Reports are routed to the {@link RunTally} of their measurement; others are counted as stray.
 */
export class ReportListener {
  readonly #socket: Socket;
  readonly #tallies = new Map<string, RunTally>();
  /** Datagrams that named no open measurement. */
  strayReports = 0;

  private constructor(socket: Socket) {
    this.#socket = socket;
    socket.on('message', (datagram) => {
      const atMs = performance.now();
      const message = decodeReport(datagram);
      const tally = message && this.#tallies.get(message.run);
      if (!message || !tally || !tally.record(message.seq, atMs)) this.strayReports += 1;
    });
  }

  /** Binds a free port on loopback with as large a receive buffer as the kernel grants. */
  static async open(): Promise<ReportListener> {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => {
        socket.off('error', reject);
        resolve();
      });
    });
    try {
      socket.setRecvBufferSize(RECEIVE_BUFFER_BYTES);
    } catch {
      // The default buffer still works; only a burst larger than it could be dropped.
    }
    return new ReportListener(socket);
  }

  /** The port handlers send to (pass it in `BENCH_REPORT_PORT`). */
  get port(): number {
    return this.#socket.address().port;
  }

  /** Receive buffer the kernel granted, in bytes. */
  get receiveBufferBytes(): number {
    return this.#socket.getRecvBufferSize();
  }

  /** Starts counting the reports of a measurement of `jobs` jobs numbered `0 … jobs − 1`. */
  track(jobs: number): RunTally {
    const tally = new RunTally(jobs, () => this.#tallies.delete(tally.run));
    this.#tallies.set(tally.run, tally);
    return tally;
  }

  /** Closes the socket. */
  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#socket.close(() => resolve()));
  }
}
