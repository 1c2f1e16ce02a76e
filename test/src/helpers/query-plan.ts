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
