/**
 * Reading PostgreSQL's plans in tests (`EXPLAIN (ANALYZE, FORMAT JSON)`): the bounded-work
 * checks of the SQL stores (test/adapters/bounded-work.test.ts, payment-reads-contract,
 * webhook-claim-bounded) count the rows a statement's scans read.
 */
import { Effect } from "effect"
import type { SqlClient } from "effect/sql"

export interface PlanNode {
  readonly "Node Type": string
  readonly "Relation Name"?: string
  readonly "Index Name"?: string
  readonly "Actual Rows"?: number
  readonly "Actual Loops"?: number
  readonly "Parent Relationship"?: string
  readonly "Rows Removed by Filter"?: number
  readonly "Rows Removed by Index Recheck"?: number
  readonly "Heap Fetches"?: number
  readonly "Shared Hit Blocks"?: number
  readonly "Shared Read Blocks"?: number
  readonly Plans?: ReadonlyArray<PlanNode>
}

/**
 * Rows the plan's scans read, returned and filtered out, over every loop, and whether one
 * scanned a table whole: the scans of `table` (its relation or an index named after it),
 * or of every table when undefined; with `pageOnly`, not those under an InitPlan (a list's
 * total beside its page).
 */
export const rowsRead = (node: PlanNode, pageOnly = false, table?: string): { rows: number; seqScan: boolean } => {
  const own = table === undefined
    ? node["Relation Name"] !== undefined
    : node["Relation Name"] === table || (node["Index Name"] ?? "").startsWith(table)
  let rows = own
    ? ((node["Actual Rows"] ?? 0) + (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)) * (node["Actual Loops"] ?? 1)
    : 0
  let seqScan = own && node["Node Type"] === "Seq Scan"
  for (const child of node.Plans ?? []) {
    if (pageOnly && child["Parent Relationship"] === "InitPlan") continue
    const r = rowsRead(child, pageOnly, table)
    rows += r.rows
    seqScan ||= r.seqScan
  }
  return { rows, seqScan }
}

/**
 * `EXPLAIN` (`options`, default `analyze, format json`) of `text`'s generic plan: prepared
 * with `plan_cache_mode = force_generic_plan` (set locally: run it in a transaction) and
 * executed with `params` written as literals, as a store's session runs it from a prepared
 * statement's sixth execution (src/adapters/sql/index.ts).
 */
let prepared = 0
export const explainGeneric = (sql: SqlClient.SqlClient, text: string, params: ReadonlyArray<unknown>, options = "analyze, format json") =>
  Effect.gen(function*() {
    const name = `explain_generic_${++prepared}`
    yield* sql.unsafe("set local plan_cache_mode = force_generic_plan")
    yield* sql.unsafe(`prepare ${name} as ${text}`)
    const literals = params.map((v) => typeof v === "number" ? String(v) : `'${String(v).replaceAll("'", "''")}'`).join(", ")
    const rows = yield* sql.unsafe<{ readonly "QUERY PLAN": ReadonlyArray<{ readonly Plan: PlanNode }> }>(
      `explain (${options}) execute ${name}${params.length === 0 ? "" : `(${literals})`}`
    )
    yield* sql.unsafe(`deallocate ${name}`)
    yield* sql.unsafe("set local plan_cache_mode = auto")
    return rows[0]?.["QUERY PLAN"][0]?.Plan
  })

/** A plan as an indented outline, one node a line (type, relation or index, rows × loops, rows removed): an assertion's message. */
export const planOutline = (node: PlanNode, depth = 0): string => {
  const where = node["Index Name"] ?? node["Relation Name"] ?? ""
  const removed = (node["Rows Removed by Filter"] ?? 0) + (node["Rows Removed by Index Recheck"] ?? 0)
  const line = `${"  ".repeat(depth)}${node["Node Type"]}${where === "" ? "" : ` ${where}`} ${node["Actual Rows"] ?? "?"}×${node["Actual Loops"] ?? 1}${removed === 0 ? "" : ` (-${removed})`}`
  return [line, ...(node.Plans ?? []).map((child) => planOutline(child, depth + 1))].join("\n")
}
