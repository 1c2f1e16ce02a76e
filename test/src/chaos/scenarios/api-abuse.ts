import { fileURLToPath } from 'node:url';
import { ERROR_CODES, type ErrorCode } from '@nudge/core';
import { spawnServer, type ServerProcess } from '@nudge/harness';
import type { Dialect } from '@nudge/store';
import {
  createMigratedDatabase,
  DIALECTS,
  openStore,
  rawQuery,
  type TestDatabase,
} from '@nudge/test-databases';
import type { ChaosSize, Scenario, ScenarioResult } from '../scenario.js';
import { probeBounds } from './api-abuse-bounds.js';
import { abuseCases } from './api-abuse-cases.js';
import {
  badKeyFlood,
  DEDUPE_HIT_FIELDS,
  DOT_SEGMENT_PATHS,
  dotSegmentCase,
  getRawPath,
  scopeCases,
  SECRET_PAYLOAD,
} from './api-abuse-scopes.js';
import {
  ADMIN,
  bearer,
  BODY_LIMIT_BYTES,
  codeOf,
  differences,
  enqueue,
  json,
  PRODUCER,
  READER,
  sameJson,
  send,
  sentJobs,
  UNICODE,
  type AbuseCase,
  type Answer,
  type JobFields,
} from './api-abuse-kit.js';

// Scenario 16: abusive requests over real HTTP to a real server. The handler module is the typed
// fixture because its kinds declare payload schemas (`sendEmail`, `report`); `plain` has none.
const HANDLERS = fileURLToPath(new URL('../../fixtures/handlers-typed.js', import.meta.url));
/** The limit of the second server, the one the burst goes to. */
const RATE_LIMIT_PER_MINUTE = 10;
/** Requests of one burst: 10 past the limit. */
const BURST = RATE_LIMIT_PER_MINUTE + 10;
/** Rounds of the whole mix: the first one request at a time, the others concurrently. */
const ROUNDS: Record<ChaosSize, number> = { test: 1, ci: 10, full: 100 };
const CONCURRENCY = 16;

/** What the run saw, filled as answers arrive. */
class Findings {
  readonly statuses = new Map<number, number>();
  readonly issues = new Map<string, string[]>();
  /** Jobs created by an accepted enqueue, by id, as they were sent. */
  readonly created = new Map<number, JobFields>();
  /** Every id an accepted enqueue answered with (created, or existing under its key). */
  readonly acceptedIds = new Set<number>();
  readonly existingByKey = new Map<string, number>();
  sent = 0;

  issue(check: string, text: string): void {
    this.issues.set(check, [...(this.issues.get(check) ?? []), text]);
  }

  /** Judges one answer. */
  record(c: AbuseCase, answer: Answer): void {
    this.sent += 1;
    this.statuses.set(answer.status, (this.statuses.get(answer.status) ?? 0) + 1);
    const code = codeOf(answer.body);
    const why = typeof code === 'string' ? code : (answer.failure ?? '');
    const said = `${c.method ?? 'POST'} ${c.path ?? '/jobs'} "${c.name}" answered ${answer.status} ${why}`;
    if (answer.status >= 500) this.issue('no 5xx', `${said}: ${json(answer.body)}`);
    const ok = answer.status >= 200 && answer.status < 300;
    if (answer.status === 0 && c.expect.includes('no answer')) return;
    if (!ok) {
      const known = typeof code === 'string' && code in ERROR_CODES;
      if (
        answer.status < 400 ||
        answer.status >= 500 ||
        !known ||
        ERROR_CODES[code as ErrorCode].status !== answer.status
      )
        this.issue('every rejection is a 4xx with a code', said);
    }
    if (!c.expect.includes(ok ? 'accepted' : (code as ErrorCode))) {
      this.issue('every case answered as the API documents', `${said}, expected ${c.expect.join(' or ')}`);
    }
    if (c.auth === bearer(PRODUCER) && json(answer.body).includes(SECRET_PAYLOAD.password))
      this.issue(READ_NOTHING, `${said}: the answer holds another producer's payload`);
    if (ok && (c.path ?? '/jobs') === '/jobs' && (c.method ?? 'POST') === 'POST')
      this.accept(c, answer, [answer.body]);
    if (ok && c.path === '/jobs/batch') this.accept(c, answer, (answer.body as { jobs: unknown[] }).jobs);
  }

  private accept(c: AbuseCase, answer: Answer, views: unknown[]): void {
    const sent = sentJobs(c);
    views.forEach((view, i) => {
      const v = view as JobFields & { id: number; created?: boolean };
      const job = sent[i]!;
      this.acceptedIds.add(v.id);
      const keyId = `${String(job.kind)}\u0000${String(job.idempotencyKey)}`;
      const created = v.created ?? answer.status === 201;
      if (!created) {
        const fields = Object.keys(v).sort();
        if (c.auth === bearer(PRODUCER) && !sameJson(fields, DEDUPE_HIT_FIELDS))
          this.issue(
            READ_NOTHING,
            `"${c.name}" job ${i}: an enqueue-only key was shown ${fields.join(', ')}`,
          );
        // A throttle window's or a debounce's job: no idempotency key to compare.
        if (job.deduped === true) return;
        const first = this.existingByKey.get(keyId);
        if (job.idempotencyKey === null || (first !== undefined && first !== v.id))
          this.issue(
            'accepted strings stored and returned unchanged',
            `"${c.name}" job ${i}: answered an existing job ${v.id} under another key`,
          );
        return;
      }
      this.created.set(v.id, job);
      if (job.idempotencyKey !== null) this.existingByKey.set(keyId, v.id);
      const changed = differences(job, v);
      if (changed.length > 0)
        this.issue(
          'accepted strings stored and returned unchanged',
          `"${c.name}" job ${v.id}: the answer changed ${changed.join(', ')}`,
        );
    });
  }
}

async function countJobs(db: TestDatabase): Promise<number> {
  const [row] = await rawQuery<{ n: number | string }>(db, 'SELECT count(*) AS n FROM nudge_jobs');
  return Number(row?.n);
}

/** Sends `cases` `CONCURRENCY` at a time. */
async function sendConcurrently(url: string, cases: readonly AbuseCase[], findings: Findings): Promise<void> {
  let next = 0;
  const worker = async () => {
    for (let c = cases[next++]; c !== undefined; c = cases[next++]) findings.record(c, await send(url, c));
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/** The check that an enqueue-only key sees nothing of a job it did not create. */
const READ_NOTHING = "an enqueue-only key reads nothing of another producer's job";
/** The check that requests without a valid key are rate-limited too. */
const BAD_KEYS_LIMITED = 'a flood of bad keys past the rate limit answers 429 RATE_LIMITED';

/**
 * Sends a burst with the admin key and a flood of bad or missing keys at once to the rate-limited
 * server, and checks that what passed the limit was refused: the key's by its budget, the bad
 * keys' by their address's.
 */
async function burst(url: string, round: number, findings: Findings): Promise<void> {
  const flood = badKeyFlood(BURST);
  const floodAnswers = Promise.all(flood.map((c) => send(url, c)));
  const cases = Array.from({ length: BURST }, (_, i) =>
    enqueue('burst past the rate limit', { kind: 'plain', payload: { round, i, text: UNICODE.emoji } }, [
      'accepted',
      'RATE_LIMITED',
    ]),
  );
  const answers = await Promise.all(cases.map((c) => send(url, c)));
  answers.forEach((answer, i) => findings.record(cases[i]!, answer));
  const limitedOf = (all: readonly Answer[]) =>
    all.filter((a) => a.status === 429 && codeOf(a.body) === 'RATE_LIMITED').length;
  const limited = limitedOf(answers);
  if (limited < BURST - RATE_LIMIT_PER_MINUTE)
    findings.issue(
      'a burst past the rate limit answers 429 RATE_LIMITED',
      `round ${round}: ${limited} of ${BURST} limited`,
    );
  const refused = await floodAnswers;
  refused.forEach((answer, i) => findings.record(flood[i]!, answer));
  if (limitedOf(refused) < BURST - RATE_LIMIT_PER_MINUTE)
    findings.issue(BAD_KEYS_LIMITED, `round ${round}: ${limitedOf(refused)} of ${BURST} bad keys limited`);
  const probe: AbuseCase = {
    name: 'health probe while limited',
    method: 'GET',
    path: '/healthz',
    auth: null,
    expect: ['accepted'],
  };
  findings.record(probe, await send(url, probe));
}

/** Compares every created job with its row and its `GET /jobs/:id`; returns how many differ or are missing. */
async function verifyStored(db: TestDatabase, url: string, findings: Findings): Promise<number> {
  const rows = await rawQuery<Record<string, unknown>>(
    db,
    'SELECT id, kind, queue, payload, idempotency_key FROM nudge_jobs',
  );
  const byId = new Map(rows.map((row) => [Number(row.id), row]));
  let lost = 0;
  for (const [id, sent] of findings.created) {
    const row = byId.get(id);
    const stored = row && {
      kind: row.kind,
      queue: row.queue,
      payload:
        typeof row.payload === 'string' && db.dialect === 'sqlite'
          ? (JSON.parse(row.payload) as unknown)
          : row.payload,
      idempotencyKey: row.idempotency_key,
    };
    const changed = stored ? differences(sent, stored) : ['the row'];
    if (changed.length > 0) {
      lost += 1;
      findings.issue(
        'accepted strings stored and returned unchanged',
        `job ${id}: stored ${changed.join(', ')} differ(s) from what was sent`,
      );
    }
    const answer = await send(url, {
      name: `read job ${id}`,
      method: 'GET',
      path: `/jobs/${id}`,
      expect: ['accepted'],
    });
    const returned = differences(sent, answer.body as JobFields);
    if (answer.status !== 200 || returned.length > 0)
      findings.issue(
        'accepted strings stored and returned unchanged',
        `GET /jobs/${id} answered ${answer.status}, ${returned.join(', ')} differ(s)`,
      );
  }
  for (const id of findings.acceptedIds)
    if (!byId.has(id)) findings.issue('rejected requests wrote 0 rows', `accepted job ${id} has no row`);
  if (rows.length !== findings.acceptedIds.size)
    findings.issue(
      'rejected requests wrote 0 rows',
      `${rows.length} rows, ${findings.acceptedIds.size} jobs accepted`,
    );
  return lost;
}

/** Queue names that are properties of `Object.prototype`: jobs go in them, and must run. */
const PROTOTYPE_QUEUES = ['__proto__', 'constructor', 'toString'];

/** Whether every job in {@link PROTOTYPE_QUEUES} finished within `timeoutMs`. */
async function prototypeQueuesDrained(db: TestDatabase, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const [row] = await rawQuery<{ n: number | string }>(
      db,
      `SELECT count(*) AS n FROM nudge_jobs WHERE queue IN (?, ?, ?) AND status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED')`,
      PROTOTYPE_QUEUES,
    );
    if (Number(row?.n) === 0) return true;
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * After the abuse: no prototype of this process is polluted; the server still enqueues a plain
 * job with the defaults (a polluted `Object.prototype.queue` or `priority` would show there), runs
 * the jobs of queues named `__proto__`, `constructor` and `toString`, and lists them in `/stats`.
 */
async function pollutionProbe(db: TestDatabase, url: string, findings: Findings): Promise<void> {
  const probe: AbuseCase = {
    name: 'plain job after the abuse',
    body: '{"kind":"plain"}',
    expect: ['accepted'],
  };
  const answer = await send(url, probe);
  findings.record(probe, answer);
  const view = answer.body as Record<string, unknown>;
  const defaults =
    view.queue === 'default' && view.priority === 0 && view.maxAttempts === 5 && sameJson(view.payload, {});
  const health = await send(url, {
    name: 'healthz',
    method: 'GET',
    path: '/healthz',
    auth: null,
    expect: [],
  });
  const local =
    ({} as Record<string, unknown>).polluted === undefined && Object.keys(Object.prototype).length === 0;
  if (answer.status !== 201 || !defaults || health.status !== 200 || !local)
    findings.issue(
      'no prototype pollution',
      `probe answered ${answer.status} ${json(answer.body)}, /healthz ${health.status}, this process clean: ${local}`,
    );
  // Concurrent rounds may deliver a round's resume of queue __proto__ before its pause.
  const resume: AbuseCase = {
    name: 'resume queue __proto__',
    path: '/queues/__proto__/resume',
    expect: ['accepted'],
  };
  findings.record(resume, await send(url, resume));
  if (!(await prototypeQueuesDrained(db, 15_000))) {
    const left = await rawQuery<{ queue: string; status: string; n: number | string }>(
      db,
      `SELECT queue, status, count(*) AS n FROM nudge_jobs WHERE status NOT IN ('SUCCEEDED', 'FAILED', 'CANCELLED') GROUP BY queue, status`,
    );
    findings.issue(
      'no prototype pollution',
      `jobs in queues ${PROTOTYPE_QUEUES.join(', ')} did not run within 15 s; unfinished: ${JSON.stringify(left)}`,
    );
  }
  const stats = await send(url, { name: 'stats', method: 'GET', path: '/stats', expect: [] });
  const byQueue = (stats.body as { byQueue?: object } | undefined)?.byQueue ?? {};
  const missing = PROTOTYPE_QUEUES.filter((queue) => !Object.hasOwn(byQueue, queue));
  if (stats.status !== 200 || missing.length > 0)
    findings.issue(
      'no prototype pollution',
      `GET /stats answered ${stats.status} without queues ${missing.join(', ')}`,
    );
}

async function run(dialect: Dialect, size: ChaosSize): Promise<ScenarioResult> {
  const db = await createMigratedDatabase(dialect);
  const servers: ServerProcess[] = [];
  try {
    await (await openStore(db)).close();
    const env = {
      DATABASE_URL: db.url,
      NUDGE_HANDLERS: HANDLERS,
      NUDGE_THREADS: '1',
      NUDGE_ASYNC_THREADS: '1',
      NUDGE_BODY_LIMIT_BYTES: String(BODY_LIMIT_BYTES),
      NUDGE_API_KEYS: `${ADMIN}:admin,${READER}:read,${PRODUCER}:enqueue`,
      LOG_LEVEL: 'fatal',
    };
    const [open, limited] = await Promise.all([
      spawnServer({ env: { ...env, NUDGE_RATE_LIMIT_PER_MINUTE: '0' } }),
      spawnServer({ env: { ...env, NUDGE_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT_PER_MINUTE) } }),
    ]);
    servers.push(open, limited);
    const findings = new Findings();
    const cases = [...abuseCases(), ...scopeCases()];
    // The first round one request at a time, counting rows around each refused one.
    let rows = await countJobs(db);
    for (const c of cases) {
      const answer = await send(open.url, c);
      findings.record(c, answer);
      const now = await countJobs(db);
      if (!(answer.status >= 200 && answer.status < 300) && now !== rows)
        findings.issue(
          'rejected requests wrote 0 rows',
          `"${c.name}" answered ${answer.status} but rows went from ${rows} to ${now}`,
        );
      rows = now;
    }
    for (const path of DOT_SEGMENT_PATHS)
      findings.record(dotSegmentCase(path), await getRawPath(open.url, path));
    await burst(limited.url, 1, findings);
    for (let round = 2; round <= ROUNDS[size]; round += 1) {
      await Promise.all([sendConcurrently(open.url, cases, findings), burst(limited.url, round, findings)]);
    }
    await pollutionProbe(db, open.url, findings);
    let tableThere = true;
    await countJobs(db).catch(() => (tableThere = false));
    const lost = tableThere ? await verifyStored(db, open.url, findings) : findings.created.size;
    // After the stored jobs were checked: the probe's own jobs are not cases.
    const bounds = await probeBounds(open.url, size);
    for (const text of bounds.issues) findings.issue('every answer keeps to its documented bound', text);
    const checkNames = [
      'every rejection is a 4xx with a code',
      'no 5xx',
      'rejected requests wrote 0 rows',
      'accepted strings stored and returned unchanged',
      'no prototype pollution',
      'every case answered as the API documents',
      'a burst past the rate limit answers 429 RATE_LIMITED',
      READ_NOTHING,
      BAD_KEYS_LIMITED,
      'every answer keeps to its documented bound',
    ];
    for (const [check, texts] of findings.issues)
      console.error(`${dialect}: ${check}:\n  ${texts.slice(0, 20).join('\n  ')}`);
    const count = (from: number, to: number) =>
      [...findings.statuses]
        .filter(([status]) => status >= from && status < to)
        .reduce((n, [, k]) => n + k, 0);
    return {
      scenario: 16,
      title: apiAbuse.title,
      dialect,
      jobs: findings.sent,
      lost,
      fencingViolations: 0,
      duplicatesExplained: 0,
      duplicatesUnexplained: 0,
      worstRecoveryMs: null,
      recoveryBoundMs: null,
      checks: {
        'nudge_jobs still there': tableThere,
        ...Object.fromEntries(checkNames.map((name) => [name, !findings.issues.has(name)])),
      },
      notes: {
        '2xx': count(200, 300),
        '4xx': count(400, 500),
        '5xx': count(500, 600),
        unanswered: count(0, 1),
        'jobs created': findings.created.size,
        ...bounds.notes,
      },
    };
  } finally {
    await Promise.all(servers.map((server) => server.stop()));
    await db.drop();
  }
}

/**
 * Scenario 16: API abuse. Two servers on one database, with API keys, a small body limit and (on
 * the second) a rate limit of 10 a minute, get oversized and malformed bodies, wrong types,
 * unknown kinds, payloads that fail their kind's schema, prototype keys, SQL-looking and unusual
 * Unicode strings, bad keys, an enqueue-only key meeting the admin's jobs through an idempotency
 * key, a throttle window and a debounce, queue names `.` and `..`, paths with dot segments, and a
 * burst and a flood of bad keys past the limit. Every refusal is a 4xx with a code and writes
 * nothing; every accepted job is stored and returned as sent; the enqueue-only key reads and
 * changes nothing of the admin's jobs; nothing answers 5xx. Then
 * thousands of queue names and a scrape, and big payloads and their list: each answer keeps to
 * its documented bound.
 */
export const apiAbuse: Scenario = {
  id: 16,
  title: 'API abuse: oversized, malformed, prototype, SQL and Unicode bodies, bad keys, rate limit',
  dialects: DIALECTS,
  run,
};
