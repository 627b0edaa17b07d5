/**
 * Chooses the store the reference server runs on, from its configuration:
 * - `DATABASE_URL=postgres://…`: PostgreSQL (several server processes may share it);
 * - `PAYMENTS_DATA_DIR=./dir`: PGlite on disk (embedded, persists across restarts);
 * - neither: in memory (the default; nothing persists).
 * Both set is a configuration error.
 */
import { readFileSync } from "node:fs"
import { Layer } from "effect"
import { memoryLayer } from "../adapters/memory/index.js"
import { webhookSenderLayer } from "../adapters/webhook-http.js"
import { pgliteLayer, postgresLayer } from "../adapters/sql/index.js"
import type { Platform } from "../domain/platform.js"
import type { Ids } from "../ports/ids.js"
import type { Platforms } from "../ports/platforms.js"
import type { Store } from "../ports/store.js"

export type StoreChoice =
  | { readonly kind: "memory" }
  | { readonly kind: "postgres"; readonly url: string }
  | {
    readonly kind: "pglite"
    readonly dataDir: string | undefined
    readonly template?: Blob
    /** A file holding such a dump (PAYMENTS_PGLITE_TEMPLATE), read when the store starts. */
    readonly templateFile?: string
  }

/**
 * PAYMENTS_PGLITE_TEMPLATE: a file holding a dump of a migrated PGlite database
 * (`pgliteTemplate` from payments-service/sql, written out): a NEW data directory starts
 * from it instead of running every migration on an empty database (the migrations then
 * run as always, applying only what the dump lacks); a directory that holds a database
 * ignores it. The test suite starts its many throwaway servers this way.
 */
export const withTemplateFile = (
  choice: { readonly kind: "pglite"; readonly dataDir: string | undefined },
  env: Readonly<Record<string, string | undefined>>
): StoreChoice => {
  const file = env["PAYMENTS_PGLITE_TEMPLATE"]?.trim() ?? ""
  return file === "" ? choice : { ...choice, templateFile: file }
}

/** The store named by the environment, or a message saying what is wrong with it. */
export const storeChoiceFromEnv = (env: Readonly<Record<string, string | undefined>>): StoreChoice | string => {
  const url = env["DATABASE_URL"]?.trim() ?? ""
  const dir = env["PAYMENTS_DATA_DIR"]?.trim() ?? ""
  if (url !== "" && dir !== "") return "Set DATABASE_URL or PAYMENTS_DATA_DIR, not both"
  if (url !== "") {
    if (!/^postgres(ql)?:\/\//.test(url)) return "DATABASE_URL must be a postgres:// or postgresql:// URL"
    return { kind: "postgres", url }
  }
  if (dir !== "") return withTemplateFile({ kind: "pglite", dataDir: dir }, env)
  return { kind: "memory" }
}

/**
 * Store, Ids and Platforms for the chosen store, and webhooks sent over HTTP. `seed` makes
 * ids deterministic (tests). `webhookDestinations`: where webhooks may go for platforms
 * without a list of their own (--webhook-destinations; docs/webhooks.md#destinations).
 */
export const servicesFor = (
  choice: StoreChoice,
  platforms: ReadonlyArray<Platform>,
  { webhookDestinations, ...options }: { readonly seed?: number; readonly webhookDestinations?: ReadonlyArray<string> } = {}
): Layer.Layer<Store | Ids | Platforms, unknown> =>
  Layer.merge(
    choice.kind === "postgres"
      ? postgresLayer(platforms, { url: choice.url, ...options })
      : choice.kind === "pglite"
      ? pgliteLayer(platforms, {
        ...options,
        ...(choice.dataDir === undefined ? {} : { dataDir: choice.dataDir }),
        template: choice.template ?? (choice.templateFile === undefined ? undefined : new Blob([readFileSync(choice.templateFile)]))
      })
      : memoryLayer(platforms, options),
    // Webhooks go out over HTTP, through the destination guard (the store layers have the
    // default one already; this one, with the server's destinations, wins).
    webhookSenderLayer(webhookDestinations === undefined ? {} : { fallback: webhookDestinations })
  )
