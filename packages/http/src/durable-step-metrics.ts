import { Counter } from 'prom-client';
import type { EngineMetricsContext } from './engine-metrics.js';

/**
 * The metrics of durable steps, fed by the engine's events: steps recorded (by outcome), sleeps
 * and signal waits that ended attempts (by kind and queue), signals sent through this instance,
 * and signal waits that reached their deadline; `docs/reference/metrics.md` lists them.
 */
export function registerDurableStepMetrics({ registry, counter, on }: EngineMetricsContext): void {
  const registers = [registry];
  const steps = new Counter({
    name: 'nudge_steps_recorded_total',
    help: "Durable steps (ctx.step) this instance's attempts recorded, by outcome: succeeded, failed, or fenced (the attempt had lost its lease; nothing was written).",
    labelNames: ['outcome'],
    registers,
  });
  const sleeps = counter(
    'nudge_job_sleeps_total',
    'Attempts this instance ended uncharged for a durable sleep (ctx.sleep, ctx.sleepUntil).',
  );
  const waits = counter(
    'nudge_job_signal_waits_total',
    'Attempts this instance ended uncharged to wait for a signal (ctx.waitForSignal).',
  );
  const signals = new Counter({
    name: 'nudge_signals_sent_total',
    help: 'Signals sent through this instance (POST /jobs/:id/signals, Engine.sendSignal); a repeat of a signalId is not counted.',
    registers,
  });
  const timeouts = new Counter({
    name: 'nudge_signal_wait_timeouts_total',
    help: "Signal waits that reached their deadline without their signal, ended by this instance's promotion or by an attempt that found the deadline passed.",
    registers,
  });
  on('step:recorded', ({ write, written }) => {
    if (write.status === 'TIMED_OUT') {
      if (written) timeouts.inc();
      return;
    }
    steps.inc({ outcome: !written ? 'fenced' : write.status === 'SUCCEEDED' ? 'succeeded' : 'failed' });
  });
  on('job:suspended', ({ kind, queue, wait }) =>
    (wait.type === 'sleep' ? sleeps : waits).of(kind, queue).inc(),
  );
  on('signal:sent', () => signals.inc());
  on('schedule:done', ({ timedOut }) => {
    if (timedOut) timeouts.inc(timedOut);
  });
}
