import type { NudgeClient } from '@nudge/client';

/**
 * Every `intervalMs`, counts the jobs `RUNNING` on the server (one `GET /jobs?status=RUNNING`,
 * at most 100) and reports the count, for the progress bar; the demo's database holds only the
 * demo's jobs. A failed read is skipped.
 *
 * @returns a function that stops the counting
 */
export function watchRunningJobs(
  client: NudgeClient,
  intervalMs: number,
  onCount: (running: number) => void,
): () => void {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  const tick = async (): Promise<void> => {
    try {
      const page = await client.list({ status: 'RUNNING', limit: 100 });
      if (!stopped) onCount(page.jobs.length);
    } catch {
      // Only a progress figure: the next tick tries again.
    }
    if (!stopped) timer = setTimeout(() => void tick(), intervalMs).unref();
  };
  void tick();
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}
