/**
 * The reference server's command line (`payments-service --port 8080 …`, also
 * `npm start -- --port 8080`): flags and environment variables to settings, as a pure
 * function so that it is tested without starting anything. A flag wins over its
 * environment variable; a store flag (`--database-url`, `--data-dir`) replaces both store
 * variables.
 */
import { existsSync } from "node:fs"
import { parseArgs } from "node:util"
import { parseDestinations, splitDestinations } from "../domain/webhook-destinations.js"
import { type StoreChoice, storeChoiceFromEnv, withTemplateFile } from "./services.js"

/** What the server runs with. */
export interface ServerSettings {
  readonly host: string
  readonly port: number
  /** The platforms file; undefined: the one sandbox platform. */
  readonly configPath: string | undefined
  /** Where configPath came from, for messages about the file. */
  readonly configSource: "--config" | "PAYMENTS_CONFIG"
  readonly store: StoreChoice
  /** A deterministic run's seed (--seed, PAYMENTS_SEED); undefined: random ids, real time. */
  readonly seed?: number
  /**
   * How long finished webhook deliveries and consumed events are kept, ms of the
   * platform's clock (--webhook-retention, PAYMENTS_WEBHOOK_RETENTION); false: for ever;
   * undefined: the default (7 days).
   */
  readonly webhookRetentionMillis?: number | false
  /**
   * Where webhooks may go, for every platform without `webhookDestinations` of its own
   * (--webhook-destinations, PAYMENTS_WEBHOOK_DESTINATIONS); undefined: by kind (sandbox
   * `loopback, public`, production `public`).
   */
  readonly webhookDestinations?: ReadonlyArray<string>
}

/**
 * What the command line asks for. `Invalid` carries the message for stderr and the exit
 * code: 2 for a wrong command line (unknown flag, bad or missing value), 1 for a wrong
 * environment variable (as `npm start` has always exited).
 */
export type CommandLine =
  | { readonly _tag: "Run"; readonly settings: ServerSettings }
  | { readonly _tag: "Help" }
  | { readonly _tag: "Version" }
  | { readonly _tag: "Invalid"; readonly message: string; readonly exitCode: 1 | 2 }

export const DEFAULT_HOST = "127.0.0.1"
export const DEFAULT_PORT = 8080

export const USAGE = `Usage: payments-service [options]

The payments-service reference server: the HTTP/JSON API on one sandbox platform
(or the platforms of --config), in memory unless a store is given.

Options (each flag wins over the environment variable in brackets):
  --port <n>            port to listen on, 0 to 65535 (0: any free one)
                        [PORT, default ${DEFAULT_PORT}]
  --host <address>      address to listen on [HOST, default ${DEFAULT_HOST}]
  --config <file>       JSON file of platforms [PAYMENTS_CONFIG]
  --data-dir <dir>      keep the data on disk with PGlite [PAYMENTS_DATA_DIR]
  --database-url <url>  keep the data in PostgreSQL, postgres://… [DATABASE_URL]
  --seed <n>            a deterministic run: ids from this seed (0 to 4294967295),
                        the clock standing at 2025-01-01T00:00:00Z (it moves only
                        with POST /sandbox/clock/advance), nothing in the background
                        [PAYMENTS_SEED]
  --webhook-retention <duration>
                        how long delivered (or finally failed) webhook deliveries
                        and consumed events are kept, on the platform's clock: a
                        whole number with d, h, m or s (7d, 36h), 0 (removed at the
                        next sweep) or off (kept for ever)
                        [PAYMENTS_WEBHOOK_RETENTION, default 7d]
  --webhook-destinations <list>
                        where webhooks may go, for platforms whose entry has no
                        webhookDestinations: comma-separated loopback, public,
                        private and IP ranges (10.20.0.0/16); link-local, metadata,
                        multicast and unspecified addresses never
                        [PAYMENTS_WEBHOOK_DESTINATIONS, default: sandbox platforms
                        loopback,public; production platforms public]
  -h, --help            print this help and exit
  --version             print the version and exit

Without --data-dir or --database-url (or their variables) the data lives in memory.
On PostgreSQL, NODE_OPTIONS=--max-semi-space-size=16 keeps GC pauses short under load.
Docs: docs/configuration.md in the package.`

const options = {
  port: { type: "string" },
  host: { type: "string" },
  config: { type: "string" },
  "data-dir": { type: "string" },
  "database-url": { type: "string" },
  seed: { type: "string" },
  "webhook-retention": { type: "string" },
  "webhook-destinations": { type: "string" },
  help: { type: "boolean", short: "h" },
  version: { type: "boolean" }
} as const

const usageError = (message: string): CommandLine => ({
  _tag: "Invalid",
  message: `payments-service: ${message}\nRun payments-service --help for the options.`,
  exitCode: 2
})

/** node's parseArgs messages, shortened where they talk about positionals. */
const parseErrorMessage = (e: unknown): string => {
  const message = e instanceof Error ? e.message : String(e)
  const code = typeof e === "object" && e !== null && "code" in e ? e.code : undefined
  const quoted = /'([^']*)'/.exec(message)?.[1]
  if (code === "ERR_PARSE_ARGS_UNKNOWN_OPTION" && quoted !== undefined) return `unknown option ${quoted}`
  if (code === "ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL" && quoted !== undefined) return `unexpected argument ${quoted} (every option is a --flag)`
  return message
}

/** A non-empty trimmed value, or undefined for unset and empty (an empty variable counts as unset). */
const present = (value: string | undefined): string | undefined => {
  const trimmed = value?.trim()
  return trimmed === undefined || trimmed === "" ? undefined : trimmed
}

/** A port number from its text, or undefined when it is not one. */
const portOf = (text: string): number | undefined => {
  if (!/^\d{1,5}$/.test(text)) return undefined
  const port = Number(text)
  return port <= 65535 ? port : undefined
}

/** A seed from its text, or undefined when it is not one. */
const seedOf = (text: string): number | undefined => {
  if (!/^\d{1,10}$/.test(text)) return undefined
  const seed = Number(text)
  return seed <= 0xffff_ffff ? seed : undefined
}

const UNIT_MILLIS: Readonly<Record<string, number>> = { d: 86_400_000, h: 3_600_000, m: 60_000, s: 1000 }

/** A retention period from its text (`7d`, `36h`, `90m`, `3600s`, `0`, `off`), or undefined when it is not one. */
export const retentionOf = (text: string): number | false | undefined => {
  const t = text.trim().toLowerCase()
  if (t === "off") return false
  if (t === "0") return 0
  const match = /^(\d{1,6})([dhms])$/.exec(t)
  if (match === null) return undefined
  return Number(match[1]) * UNIT_MILLIS[match[2]!]!
}

/** The settings (or help, version, an error) for these arguments (without node and the script) and this environment. */
export const parseCommandLine = (
  args: ReadonlyArray<string>,
  env: Readonly<Record<string, string | undefined>>
): CommandLine => {
  let values: {
    readonly port?: string | undefined
    readonly host?: string | undefined
    readonly config?: string | undefined
    readonly "data-dir"?: string | undefined
    readonly "database-url"?: string | undefined
    readonly seed?: string | undefined
    readonly "webhook-retention"?: string | undefined
    readonly "webhook-destinations"?: string | undefined
    readonly help?: boolean | undefined
    readonly version?: boolean | undefined
  }
  try {
    values = parseArgs({ args: [...args], options, strict: true, allowPositionals: false }).values
  } catch (e) {
    return usageError(parseErrorMessage(e))
  }
  if (values.help === true) return { _tag: "Help" }
  if (values.version === true) return { _tag: "Version" }

  // A flag given with an empty value is a mistake (an unset shell variable, most often).
  for (const name of ["port", "host", "config", "data-dir", "database-url", "seed", "webhook-retention", "webhook-destinations"] as const) {
    if (values[name] !== undefined && present(values[name]) === undefined) return usageError(`--${name} needs a value`)
  }

  let port = DEFAULT_PORT
  const portFlag = present(values.port)
  if (portFlag !== undefined) {
    const parsed = portOf(portFlag)
    if (parsed === undefined) return usageError(`--port must be a whole number from 0 to 65535, not ${JSON.stringify(portFlag)}`)
    port = parsed
  } else {
    const portEnv = present(env["PORT"])
    if (portEnv !== undefined) {
      const parsed = portOf(portEnv)
      if (parsed === undefined) {
        return { _tag: "Invalid", message: `PORT must be a whole number from 0 to 65535, not ${JSON.stringify(portEnv)}`, exitCode: 1 }
      }
      port = parsed
    }
  }

  const host = present(values.host) ?? present(env["HOST"]) ?? DEFAULT_HOST
  const configFlag = present(values.config)
  const configPath = configFlag ?? present(env["PAYMENTS_CONFIG"])
  const configSource = configFlag !== undefined ? "--config" : "PAYMENTS_CONFIG"

  const urlFlag = present(values["database-url"])
  const dirFlag = present(values["data-dir"])
  let store: StoreChoice
  if (urlFlag !== undefined && dirFlag !== undefined) return usageError("give --database-url or --data-dir, not both")
  if (urlFlag !== undefined) {
    if (!/^postgres(ql)?:\/\//.test(urlFlag)) return usageError("--database-url must be a postgres:// or postgresql:// URL")
    store = { kind: "postgres", url: urlFlag }
  } else if (dirFlag !== undefined) {
    store = withTemplateFile({ kind: "pglite", dataDir: dirFlag }, env)
  } else {
    const fromEnv = storeChoiceFromEnv(env)
    if (typeof fromEnv === "string") return { _tag: "Invalid", message: fromEnv, exitCode: 1 }
    store = fromEnv
  }
  if (store.kind === "pglite" && store.templateFile !== undefined && !existsSync(store.templateFile)) {
    return { _tag: "Invalid", message: `PAYMENTS_PGLITE_TEMPLATE names no file: ${store.templateFile}`, exitCode: 1 }
  }
  let seed: number | undefined
  const seedFlag = present(values.seed)
  const seedText = seedFlag ?? present(env["PAYMENTS_SEED"])
  if (seedText !== undefined) {
    seed = seedOf(seedText)
    if (seed === undefined) {
      const message = `must be a whole number from 0 to 4294967295, not ${JSON.stringify(seedText)}`
      return seedFlag !== undefined ? usageError(`--seed ${message}`) : { _tag: "Invalid", message: `PAYMENTS_SEED ${message}`, exitCode: 1 }
    }
  }
  let webhookRetentionMillis: number | false | undefined
  const retentionFlag = present(values["webhook-retention"])
  const retentionText = retentionFlag ?? present(env["PAYMENTS_WEBHOOK_RETENTION"])
  if (retentionText !== undefined) {
    webhookRetentionMillis = retentionOf(retentionText)
    if (webhookRetentionMillis === undefined) {
      const message = `must be a whole number with d, h, m or s (7d, 36h), 0 or off, not ${JSON.stringify(retentionText)}`
      return retentionFlag !== undefined
        ? usageError(`--webhook-retention ${message}`)
        : { _tag: "Invalid", message: `PAYMENTS_WEBHOOK_RETENTION ${message}`, exitCode: 1 }
    }
  }
  let webhookDestinations: ReadonlyArray<string> | undefined
  const destinationsFlag = present(values["webhook-destinations"])
  const destinationsText = destinationsFlag ?? present(env["PAYMENTS_WEBHOOK_DESTINATIONS"])
  if (destinationsText !== undefined) {
    const policy = parseDestinations(splitDestinations(destinationsText))
    if (typeof policy === "string") {
      return destinationsFlag !== undefined
        ? usageError(`--webhook-destinations: ${policy}`)
        : { _tag: "Invalid", message: `PAYMENTS_WEBHOOK_DESTINATIONS: ${policy}`, exitCode: 1 }
    }
    webhookDestinations = policy.entries
  }
  return {
    _tag: "Run",
    settings: {
      host,
      port,
      configPath,
      configSource,
      store,
      ...(seed === undefined ? {} : { seed }),
      ...(webhookRetentionMillis === undefined ? {} : { webhookRetentionMillis }),
      ...(webhookDestinations === undefined ? {} : { webhookDestinations })
    }
  }
}
