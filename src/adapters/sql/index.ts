/**
 * The SQL adapters: one Store over effect/sql, on a PostgreSQL server
 * (`postgresStoreLayer`, several server processes may share one database) or on
 * PGlite in a data directory (`pgliteStoreLayer`, embedded, nothing to install).
 * Both apply the versioned migrations at start.
 */
import { PgClient, PgConnection } from "@effect/sql-pg"
import type { Platform } from "../../domain/platform.js"
import { RandomIdsLayer, seededIdsLayer } from "../memory/ids.js"
import { staticPlatformsLayer } from "../memory/platforms.js"
import { HttpWebhookSenderLayer } from "../webhook-http.js"
import { Effect, Layer, Redacted } from "effect"
import * as Reactivity from "effect/reactivity/Reactivity"
import { SqlClient } from "effect/sql"
import type { SqlError } from "effect/sql/SqlError"
import type { MigrationError } from "effect/sql/Migrator"
import { Store } from "../../ports/store.js"
import { dumpPgliteAfter, pgliteClientLayer, type PgliteOptions } from "./pglite.js"
import { SqlSandboxFaultStoreLayer } from "./sandbox-faults.js"
import { makeSqlStore, migrate } from "./store.js"
import { endLeasesLeftBehind } from "./webhooks.js"

export { MIGRATIONS, MIGRATIONS_TABLE } from "./migrations.js"
export { dumpPgliteAfter, makePgliteClient, pgliteClientLayer, type PgliteOptions } from "./pglite.js"
export { makeSqlStore, MAX_TRANSACTION_ATTEMPTS, migrate } from "./store.js"

/**
 * The URL as `postgres://user@host:port/database`, for banners and logs: no password
 * (neither in the user part nor as a `?password=` parameter) and no other parameters.
 */
export const describeDatabaseUrl = (url: string): string => {
  try {
    const u = new URL(url)
    const user = u.username === "" ? "" : `${u.username}@`
    return `${u.protocol}//${user}${u.host}${u.pathname}`
  } catch {
    return "(unparseable DATABASE_URL)"
  }
}

export interface PostgresOptions {
  /** `postgres://user:password@host:port/database` */
  readonly url: string
  /**
   * The units of work's own connections (default 16); the two pools beside them get half
   * as many each (at least 2 each), so the process opens at most twice this many in all
   * (at most 4 more than this when it is below 4).
   */
  readonly maxConnections?: number
}

/**
 * Session settings of both pools (PostgreSQL). Index scans instead of sequential scans: under
 * SERIALIZABLE a sequential scan predicate-locks the whole table, so a unit of work that
 * read one row of a small table (a customer, an account, a balance) conflicted with every
 * other unit of work writing any row of it, and unrelated payments aborted each other; an
 * index scan locks the rows (and index pages) it reads. Every query of the store filters
 * on an indexed prefix (`platform_id`, …), so none needs a sequential scan.
 */
const STEERING: Readonly<Record<string, string>> = {
  enable_seqscan: "off",
  // Every prepared statement runs its generic plan from its first execution. Under `auto`
  // PostgreSQL plans a statement's first five executions for their values, then keeps
  // re-planning it whenever a plan for the values at hand looks cheaper than the generic
  // one: over a large table a customer with few payments did, so a customer's first page
  // of transactions was planned afresh at every request (about 0.2 ms, more than running
  // it) once the table held 100,000 payments (docs/performance.md, "Measured at the end of
  // the day"). Every statement reads down an index on an indexed prefix whatever the
  // values (test/adapters/bounded-work.test.ts checks the generic plans of the lists too).
  plan_cache_mode: "force_generic_plan"
}

/** The `application_name` of the store's own connections its units of work run on (./direct.ts), as `pg_stat_activity` shows it. */
export const UNIT_OF_WORK_APPLICATION_NAME = "payments-service (units of work)"

/**
 * The size of each of the two pools (statements, turns and the units of work beyond the
 * store's own connections; the one-statement units of work on SERIALIZABLE sessions):
 * half of `maxConnections` each, so that a process opens at most twice `maxConnections`
 * connections in all, as before its units of work had connections of their own (up to
 * `maxConnections` of those): three processes with the default 16 stay within
 * PostgreSQL's default `max_connections` of 100 (docs/storage.md).
 */
const sideConnections = (options: PostgresOptions): number => Math.max(2, Math.ceil((options.maxConnections ?? 16) / 2))

/** The Store on a PostgreSQL server; migrates at start. */
export const postgresStoreLayer = (options: PostgresOptions): Layer.Layer<Store, SqlError | MigrationError> =>
  // The sandbox fault rules live in the same database (a reference: not in the type).
  Layer.merge(SqlSandboxFaultStoreLayer, Layer.effect(
    Store,
    Effect.gen(function*() {
      yield* migrate
      // Sessions whose default isolation is SERIALIZABLE: a statement that is a unit of
      // work by itself runs there without BEGIN/COMMIT round trips (one-round-trip.ts).
      const serializable = {
        url: Redacted.make(options.url),
        applicationName: "payments-service",
        startupParameters: { default_transaction_isolation: "serializable", ...STEERING }
      }
      const serializableSessions = yield* PgClient.make({ ...serializable, maxConnections: sideConnections(options) })
        .pipe(Effect.provide(Reactivity.layer))
      return yield* makeSqlStore(
        { kind: "postgres", description: `PostgreSQL ${describeDatabaseUrl(options.url)}` },
        {
          serializableSessions,
          // Top-level units of work run on up to as many connections of the store's own as
          // the pool has (opened as needed, closed after a minute or two idle), each used by
          // one unit of work at a time, on which BEGIN and COMMIT share writes with
          // statements (./direct.ts `PipelinedConnection`). Not the pool's: its pinned
          // connections run one cycle at a time; and the pool keeps its connections for
          // everything else.
          keptConnections: {
            connections: options.maxConnections ?? 16,
            // As long as the pool keeps an idle connection (its default `idleTimeout`): a
            // connection of the store's own takes none of the pool's, and a new one costs
            // a connection and its authentication.
            idleMillis: 60_000,
            connect: PgConnection.make({ ...serializable, applicationName: UNIT_OF_WORK_APPLICATION_NAME, multiplex: true }),
            // Theirs default to SERIALIZABLE: a unit of work whose only statement is its last sends it alone.
            serializableSessions: true
          }
        }
      )
    })
  )).pipe(
    Layer.provide(PgClient.layer({
      url: Redacted.make(options.url),
      maxConnections: sideConnections(options),
      applicationName: "payments-service",
      startupParameters: STEERING
    }))
  )

/**
 * The Store on PGlite kept in `dataDir` (created if missing), or in memory when undefined;
 * migrates at start. `options.template` (from `pgliteTemplate`) starts a new database
 * already migrated, which many short-lived stores (a test suite's) want.
 */
export const pgliteStoreLayer = (dataDir: string | undefined, options: PgliteOptions = {}): Layer.Layer<Store, SqlError | MigrationError | Error> =>
  pgliteStoreOnClient(dataDir).pipe(Layer.provide(pgliteClientLayer(dataDir, options)))

/**
 * `pgliteStoreLayer` over a PGlite SqlClient provided by the caller (`pgliteClientLayer`
 * of the same `dataDir`), for a caller that keeps the client too (the scale bench's fill
 * runs its statements on the store's own connection).
 */
export const pgliteStoreOnClient = (dataDir: string | undefined) =>
  Layer.merge(
    SqlSandboxFaultStoreLayer,
    Layer.effect(
      Store,
      Effect.gen(function*() {
        yield* migrate
        // This process owns the data directory (its lock): a lease in it is a dead process's.
        if (dataDir !== undefined) yield* Effect.flatMap(Effect.service(SqlClient.SqlClient), endLeasesLeftBehind)
        return yield* makeSqlStore({ kind: "pglite", description: dataDir === undefined ? "PGlite in memory" : `PGlite in ${dataDir}` })
      })
    )
  )

/** A dump of a PGlite database with every migration applied: `pgliteStoreLayer`'s `template`. */
export const pgliteTemplate: Effect.Effect<Blob, SqlError | MigrationError> = dumpPgliteAfter(migrate)

/** Ids, Platforms and webhook delivery over HTTP: what every store needs beside it. */
const idsAndPlatforms = (platforms: ReadonlyArray<Platform>, seed: number | undefined) =>
  Layer.mergeAll(seed === undefined ? RandomIdsLayer : seededIdsLayer(seed), staticPlatformsLayer(platforms), HttpWebhookSenderLayer)

/** Store (PostgreSQL), Ids and Platforms: the counterpart of `memoryLayer` from `payments-service/memory`. */
export const postgresLayer = (platforms: ReadonlyArray<Platform>, options: PostgresOptions & { readonly seed?: number }) =>
  Layer.merge(postgresStoreLayer(options), idsAndPlatforms(platforms, options.seed))

/** Store (PGlite in `dataDir`, or in memory when undefined), Ids and Platforms. */
export const pgliteLayer = (
  platforms: ReadonlyArray<Platform>,
  options: PgliteOptions & { readonly dataDir?: string; readonly seed?: number } = {}
) => Layer.merge(pgliteStoreLayer(options.dataDir, options), idsAndPlatforms(platforms, options.seed))
