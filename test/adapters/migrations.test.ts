/**
 * The unique constraints are named once (src/ports/shared.ts): the migrations create a
 * unique index of each name, and every unique index they create is one of them or one
 * of the agents' id indexes (whose violation is a defect, never a StoreConflict).
 */
import { Effect, ManagedRuntime } from "effect"
import { SqlClient } from "effect/sql"
import { afterAll, describe, expect, it } from "vitest"
import { AGENT_ID_INDEXES } from "../../src/adapters/sql/agents.js"
import { TOKEN_CLIENT_ID_INDEX } from "../../src/adapters/sql/tokens.js"
import { MIGRATIONS, MIGRATIONS_TABLE, resolveMigrations, runMigrations } from "../../src/adapters/sql/migrations.js"
import { migrate } from "../../src/adapters/sql/store.js"
import { pgliteClientLayer } from "../../src/adapters/sql/pglite.js"
import { isUniqueConstraint, UniqueConstraints } from "../../src/ports/shared.js"

/**
 * One empty PGlite database for the file, migrated once (every migration on an empty
 * database is most of this file's time): what the listed migrations applied, what the
 * store's own `migrate` applied after them (nothing), and the unique indexes they made.
 * The carried migrations below then run on the same database.
 */
const database = ManagedRuntime.make(pgliteClientLayer(undefined))
afterAll(() => database.dispose())
let migrated: ReturnType<typeof migrateEmpty> | undefined
const migrateEmpty = () =>
  database.runPromise(Effect.gen(function*() {
    const first = yield* runMigrations([])
    const again = yield* migrate
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql.unsafe<{ readonly indexname: string }>(
      `select i.relname as indexname from pg_index x join pg_class i on i.oid = x.indexrelid join pg_namespace n on n.oid = i.relnamespace
       where x.indisunique and not x.indisprimary and n.nspname = 'public' order by 1`
    )
    return { first, again, uniqueIndexes: rows.map((r) => r.indexname) }
  }))
const freshlyMigrated = () => (migrated ??= migrateEmpty())

describe("unique constraints and the migrations", () => {
  it("every unique index the migrations create is a declared constraint, an agent id index or the token client id index, and every constraint has one", async () => {
    const created = (await freshlyMigrated()).uniqueIndexes
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

describe("migrations an area carries", () => {
  const listedNumbers = Object.keys(MIGRATIONS).map((id) => Number(id.split("_")[0]))
  const next = Math.max(...listedNumbers) + 1
  const create = (table: string) => [`create table ${table} (platform_id text collate "C" not null, id text collate "C" not null, primary key (platform_id, id))`]
  const resolvedIds = (listed: Parameters<typeof resolveMigrations>[0], carried: Parameters<typeof resolveMigrations>[1]) =>
    Effect.runPromise(Effect.map(resolveMigrations(listed, carried), (all) => all.map(([n, name]) => `${n}_${name}`)))
  const refusal = (listed: Parameters<typeof resolveMigrations>[0], carried: Parameters<typeof resolveMigrations>[1]) =>
    Effect.runPromise(Effect.flip(resolveMigrations(listed, carried)))

  it("the listed ones are numbered 1, 2, 3, … in order", async () => {
    expect(listedNumbers).toEqual(listedNumbers.map((_, i) => i + 1))
    const ids = await resolvedIds(MIGRATIONS, [])
    expect(ids).toEqual(Object.keys(MIGRATIONS))
  })

  it("merges the listed ones and the carried ones by number", async () => {
    const listed = { "1_a": Effect.void, "3_c": Effect.void }
    expect(await resolvedIds(listed, [{ id: "4_d", statements: [] }, { id: "2_b", statements: [] }])).toEqual(["1_a", "2_b", "3_c", "4_d"])
  })

  it("refuses a number twice, a gap, or an id that is not <number>_<name>", async () => {
    const listed = { "1_a": Effect.void, "2_b": Effect.void }
    const twice = await refusal(listed, [{ id: "2_widgets", statements: [] }])
    expect(twice.kind).toBe("Duplicates")
    expect(twice.message).toContain("2_widgets")
    const gap = await refusal(listed, [{ id: "4_widgets", statements: [] }])
    expect(gap.kind).toBe("BadState")
    expect(gap.message).toContain("No migration numbered 3")
    expect((await refusal(listed, [{ id: "widgets", statements: [] }])).kind).toBe("BadState")
    expect((await refusal(listed, [{ id: "03_widgets", statements: [] }])).kind).toBe("BadState")
  })

  it("a database with every listed migration applied runs only the new carried one, once; a refused list runs nothing", async () => {
    const { first, again } = await freshlyMigrated()
    const r = await database.runPromise(Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const carried = [{ id: `${next}_widgets`, statements: create("widgets") }]
      const added = yield* runMigrations(carried)
      const then = yield* runMigrations(carried)
      const refused = yield* Effect.flip(runMigrations([...carried, { id: `${next + 2}_gadgets`, statements: create("gadgets") }]))
      const recorded = yield* sql.unsafe<{ readonly migration_id: number; readonly name: string }>(
        `select migration_id, name from ${MIGRATIONS_TABLE} order by migration_id`
      )
      const gadgets = yield* sql.unsafe<{ readonly n: number }>(`select count(*)::int as n from pg_class where relname = 'gadgets'`)
      const widgets = yield* sql.unsafe<{ readonly n: number }>(`select count(*)::int as n from widgets`)
      // A newer version's migration recorded: this version refuses the database rather than serve it.
      yield* sql.unsafe(`insert into ${MIGRATIONS_TABLE} (migration_id, name) values (${next + 1}, 'from_a_newer_version')`)
      const newer = yield* Effect.flip(runMigrations(carried))
      yield* sql.unsafe(`delete from ${MIGRATIONS_TABLE} where migration_id = ${next + 1}`)
      const afterwards = yield* runMigrations(carried)
      return { first, again, added, then, refused, recorded, gadgets: gadgets[0]?.n, widgets: widgets[0]?.n, newer, afterwards }
    }))
    expect(r.first.map(([n, name]) => `${n}_${name}`)).toEqual(Object.keys(MIGRATIONS))
    expect(r.again).toEqual([])
    expect(r.added).toEqual([[next, "widgets"]])
    expect(r.then).toEqual([])
    expect(r.refused).toMatchObject({ _tag: "MigrationError", kind: "BadState" })
    expect(r.recorded.map((row) => `${row.migration_id}_${row.name}`)).toEqual([...Object.keys(MIGRATIONS), `${next}_widgets`])
    expect(r.gadgets).toBe(0)
    expect(r.widgets).toBe(0)
    expect(r.newer).toMatchObject({ _tag: "MigrationError", kind: "BadState" })
    expect(r.newer.message).toContain(`migration ${next + 1}_from_a_newer_version`)
    expect(r.afterwards).toEqual([])
  }, 120_000)
})
