/**
 * Statements on the unit of work's own connection, sent directly.
 *
 * effect/sql's `sql.unsafe(text, params)` builds a Statement for every call, compiles it,
 * opens a scope to borrow a connection and makes a span for it; inside a unit of work the
 * connection is already known (the transaction's), and a payment sends several
 * statements. So, where tracing is off (the reference server turns it off: nothing
 * exports its spans, `src/http/app.ts`), a statement inside a transaction goes to that
 * connection's `execute` (the same prepared-statement path `sql.unsafe` ends in, with the
 * same text and parameters). Where tracing is on (an embedder's tracer, a test counting
 * statements by their spans), and outside a transaction, it goes through the client, span
 * and all.
 */
import { Context, Effect, References } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

/** A statement run in a fiber's context at hand (read by the caller's own step): see `makeRunStatement`. */
export type RunIn = <Row extends object>(
  context: Context.Context<never>,
  text: string,
  params: ReadonlyArray<unknown>
) => Effect.Effect<ReadonlyArray<Row>, SqlError>

export const makeRunIn = (sql: SqlClient.SqlClient): RunIn => <Row extends object>(context: Context.Context<never>, text: string, params: ReadonlyArray<unknown>) => {
  const tx = Context.getOrUndefined(context, sql.transactionService)
  return tx !== undefined && !Context.get(context, References.TracerEnabled)
    ? tx[0].execute(text, params, undefined)
    : sql.unsafe<Row>(text, params)
}

export const makeRunStatement = (sql: SqlClient.SqlClient) => {
  const runIn = makeRunIn(sql)
  return <Row extends object>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
    Effect.contextWith((context: Context.Context<never>) => runIn<Row>(context, text, params))
}
