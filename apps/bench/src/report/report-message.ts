/**
 * What a handler reports to the bench client in one UDP datagram: that job `seq` of measurement
 * `run` ran (at its start or its end, depending on the kind). The text form, `run:seq`, is small
 * enough for any datagram and cheap to parse.
 */
export interface ReportMessage {
  /** Identifies one measurement; reports of other measurements are ignored. */
  readonly run: string;
  /** The job's number within the measurement, from 0. */
  readonly seq: number;
}

/** The datagram for `message`. */
export function encodeReport(message: ReportMessage): Buffer {
  return Buffer.from(`${message.run}:${message.seq}`, 'latin1');
}

/** The message in `datagram`, or `undefined` when it is not one (a stray packet). */
export function decodeReport(datagram: Buffer): ReportMessage | undefined {
  const text = datagram.toString('latin1');
  const colon = text.lastIndexOf(':');
  if (colon <= 0) return undefined;
  const digits = text.slice(colon + 1);
  if (!/^\d{1,9}$/.test(digits)) return undefined;
  return { run: text.slice(0, colon), seq: Number(digits) };
}
