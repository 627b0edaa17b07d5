/**
 * The same embedded operations as embed-memory.ts, on PostgreSQL: the shared sequence
 * in shared/onboard.ts is unchanged, only the Layer differs. Several processes of a
 * service may share the database (uniqueness and transactions are the database's).
 *
 *   DATABASE_URL=postgres://user:pass@host:5432/db npm run example:postgres
 *
 * examples/run-all.sh runs it on a throwaway cluster (examples/with-postgres.ts).
 */
import { NodeRuntime } from "@effect/platform-node"
import { Console, Effect, Layer } from "effect"
// Not a published subpath yet; in this repository: src/adapters/sql/index.ts
import { describeDatabaseUrl, postgresStoreLayer } from "../src/adapters/sql/index.js"
// published as: import { RandomIdsLayer } from "payments-service/memory"
import { RandomIdsLayer } from "../src/adapters/memory/index.js"
import { onboard, platform, summary } from "./shared/onboard.js"

const url = process.env["DATABASE_URL"]?.trim() ?? ""
if (url === "") {
  console.error("DATABASE_URL is not set: point it at a PostgreSQL database, e.g.\n" +
    "  DATABASE_URL=postgres://postgres@127.0.0.1:5432/payments npm run example:postgres\n" +
    "or run examples/run-all.sh, which starts a throwaway cluster.")
  process.exit(1)
}

// The SQL adapter provides only the Store; ids are not stored state, so they still come
// from the in-process generator. Building the layer applies the migrations, and closing
// it (when `main` ends) closes the connection pool, so the process can exit.
const services = Layer.mergeAll(postgresStoreLayer({ url }), RandomIdsLayer)

const main = onboard(platform).pipe(
  Effect.flatMap((result) => Console.log(`embedded, on ${describeDatabaseUrl(url)}\n${summary(result)}`)),
  Effect.provide(services)
)

NodeRuntime.runMain(main)
