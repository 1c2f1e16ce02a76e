// The handler module of the outside-the-workspace project: plain ES module, one export per kind.
// nudge loads it in its worker threads (NUDGE_HANDLERS=./handlers.mjs, or startServer's `handlers`).

/** Adds two numbers. */
export async function add({ a, b }) {
  return { sum: a + b };
}

/** Greets someone, saying which attempt ran. */
export async function greet({ name }, ctx) {
  return { greeting: `hello, ${name}`, attempt: ctx.attempt };
}
