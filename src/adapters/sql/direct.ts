/**
 * Statements on the unit of work's own connection, sent directly.
 *
 * effect/sql's `sql.unsafe(text, params)` builds a Statement for every call, compiles it,
 * opens a scope to borrow a connection and makes a span for it; inside a unit of work the
 * connection is already known (the transaction's), and a payment sends a dozen
 * statements or more. So a statement inside a transaction goes to that connection's
 * `execute` (the same prepared-statement path `sql.unsafe` ends in, with the same text
 * and parameters); outside one, through the client as before.
 */
import { Effect, Option } from "effect"
import type { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"

export const makeRunStatement = (sql: SqlClient.SqlClient) =>
  <Row extends object>(text: string, params: ReadonlyArray<unknown>): Effect.Effect<ReadonlyArray<Row>, SqlError> =>
    Effect.flatMap(Effect.serviceOption(sql.transactionService), (tx) =>
      Option.isSome(tx) ? tx.value[0].execute(text, params, undefined) : sql.unsafe<Row>(text, params))
