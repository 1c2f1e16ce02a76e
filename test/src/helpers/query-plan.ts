import pg from 'pg';
import type { ClaimGroup } from '@nudge/store';
import { buildPgClaim } from '@nudge/store/statements';

/** A node of PostgreSQL's `EXPLAIN (FORMAT JSON)` plan, with the fields the tests read. */
export interface PlanNode {
  'Node Type': string;
  'Index Name'?: string;
  'Relation Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

/** `plan` and every node below it, depth first. */
export const planNodes = (plan: PlanNode): PlanNode[] => [plan, ...(plan.Plans ?? []).flatMap(planNodes)];

/** The rows a node read over all its loops, kept or filtered out. */
export const rowsRead = (node: PlanNode): number =>
  ((node['Actual Rows'] ?? 0) + (node['Rows Removed by Filter'] ?? 0)) * (node['Actual Loops'] ?? 1);

/** How {@link explainPgClaim} runs the claim. */
export interface ExplainClaimOptions {
  /** Connection options (`-c name=value …`), such as the store's planner settings. */
  readonly options?: string;
  /** `SET LOCAL plan_cache_mode` first; with a `name`, so the prepared statement may go generic. */
  readonly planCacheMode?: 'force_custom_plan' | 'force_generic_plan';
  /** The prepared statement's name (a named statement may use a generic plan). */
  readonly name?: string;
  /** `EXPLAIN (ANALYZE, BUFFERS)` rather than `EXPLAIN (ANALYZE)`. */
  readonly buffers?: boolean;
}

/**
 * Runs the PostgreSQL claim of `groups` (worker `w1`, 60 s lease) on `url` under `EXPLAIN
 * (ANALYZE, FORMAT JSON)` in a transaction it rolls back, and answers the plan's root.
 *
 * @throws AssertionError-like Error when the server answers no plan
 */
export async function explainPgClaim(
  url: string,
  groups: readonly ClaimGroup[],
  explain: ExplainClaimOptions = {},
): Promise<PlanNode> {
  const client = new pg.Client({
    connectionString: url,
    ...(explain.options === undefined ? {} : { options: explain.options }),
  });
  await client.connect();
  try {
    await client.query('BEGIN');
    if (explain.planCacheMode) await client.query(`SET LOCAL plan_cache_mode = ${explain.planCacheMode}`);
    const claim = buildPgClaim({ workerId: 'w1', leaseMs: 60_000, groups: [] }, groups);
    const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>({
      ...(explain.name === undefined ? {} : { name: explain.name }),
      text: `EXPLAIN (ANALYZE, ${explain.buffers ? 'BUFFERS, ' : ''}FORMAT JSON) ${claim.text}`,
      values: claim.values,
    });
    await client.query('ROLLBACK');
    const plan = rows[0]?.['QUERY PLAN'][0].Plan;
    if (!plan) throw new Error('EXPLAIN answered no plan');
    return plan;
  } finally {
    await client.end();
  }
}
