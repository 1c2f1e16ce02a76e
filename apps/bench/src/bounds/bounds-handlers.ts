// The handler module of the bounds probe (`NUDGE_HANDLERS`): one kind that does nothing, so the
// probe measures the service's answers, not its jobs.

/** Returns at once. */
export function noop(): null {
  return null;
}
