/**
 * The unique constraints are named once (src/ports/shared.ts): the migrations create a
 * unique index of each name, and every unique index they create is one of them or one
 * of the agents' id indexes (whose violation is a defect, never a StoreConflict).
 */
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { describe, expect, it } from "vitest"
import { AGENT_ID_INDEXES } from "../../src/adapters/sql/agents.js"
import { TOKEN_CLIENT_ID_INDEX } from "../../src/adapters/sql/tokens.js"
import { migrate } from "../../src/adapters/sql/migrations.js"
import { pgliteClientLayer } from "../../src/adapters/sql/pglite.js"
import { isUniqueConstraint, UniqueConstraints } from "../../src/ports/shared.js"

const uniqueIndexes = Effect.gen(function*() {
  yield* migrate
  const sql = yield* SqlClient.SqlClient
  const rows = yield* sql.unsafe<{ readonly indexname: string }>(
    `select i.relname as indexname from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
     where x.indisunique and not x.indisprimary and n.nspname = 'public' order by 1`
  )
  return rows.map((r) => r.indexname)
}).pipe(Effect.provide(pgliteClientLayer(undefined)))

describe("unique constraints and the migrations", () => {
  it("every unique index the migrations create is a declared constraint, an agent id index or the token client id index, and every constraint has one", async () => {
    const created = await Effect.runPromise(uniqueIndexes)
    const expected = [...Object.values(UniqueConstraints), ...Object.values(AGENT_ID_INDEXES), TOKEN_CLIENT_ID_INDEX].sort()
    expect(created).toEqual(expected)
    // Every migration on a fresh PGlite: tens of seconds on a loaded 2-core machine.
  }, 120_000)

  it("isUniqueConstraint knows exactly the declared names", () => {
    for (const name of Object.values(UniqueConstraints)) expect(isUniqueConstraint(name)).toBe(true)
    expect(isUniqueConstraint(AGENT_ID_INDEXES.tokens)).toBe(false)
    expect(isUniqueConstraint("customers_keyset")).toBe(false)
  })
})
