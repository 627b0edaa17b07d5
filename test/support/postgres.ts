/**
 * Throwaway PostgreSQL clusters for tests, from the Debian `postgresql` packages
 * (`/usr/lib/postgresql/<version>/bin`) or `pg_ctl`/`initdb` on PATH.
 *
 * One cluster per test run (see `postgres-global-setup.ts`), one database per test
 * file or suite (`createDatabase`), so suites never see each other's rows. The cluster
 * lives in a fresh temp directory, listens on a free loopback port and is tuned for
 * speed, not durability (`fsync=off`): nothing in it is meant to survive the run.
 */
import { execFile, execFileSync } from "node:child_process"
import { accessSync, appendFileSync, chownSync, constants, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { createServer } from "node:net"
import { tmpdir } from "node:os"
import { delimiter, join } from "node:path"
import { randomBytes } from "node:crypto"

export interface PostgresCluster {
  /** `postgres://postgres@127.0.0.1:PORT/postgres`: the maintenance database; tests should use `createDatabase`. */
  readonly url: string
  /** Superuser URL for creating databases (same cluster and database as `url`). */
  readonly adminUrl: string
  /** `pg_ctl stop -m immediate`, then removes the cluster's directory. Safe to call twice. */
  readonly stop: () => Promise<void>
}

const DEBIAN_ROOT = "/usr/lib/postgresql"
const SUPERUSER = "postgres"
const INSTALL_HINT =
  "PostgreSQL server binaries not found (looked for /usr/lib/postgresql/<version>/bin and pg_ctl/initdb on PATH). " +
  "The tests need a real PostgreSQL server; install it with `apt-get install postgresql` (as root, or with sudo)."

const isExecutable = (file: string): boolean => {
  try {
    accessSync(file, constants.X_OK)
    return true
  } catch {
    return false
  }
}

const onPath = (command: string): string | undefined =>
  (process.env["PATH"] ?? "")
    .split(delimiter)
    .filter((dir) => dir !== "")
    .map((dir) => join(dir, command))
    .find(isExecutable)

/** The directory holding `initdb`, `pg_ctl` and `psql`: the highest Debian version, else the one on PATH. */
export const postgresBinDir = (): string => {
  const versions = existsSync(DEBIAN_ROOT)
    ? readdirSync(DEBIAN_ROOT)
        .filter((name) => /^\d+(\.\d+)?$/.test(name))
        .filter((name) => ["postgres", "initdb", "pg_ctl"].every((bin) => isExecutable(join(DEBIAN_ROOT, name, "bin", bin))))
        .sort((a, b) => Number(b) - Number(a))
    : []
  const newest = versions[0]
  if (newest !== undefined) return join(DEBIAN_ROOT, newest, "bin")
  const pgCtl = onPath("pg_ctl")
  if (pgCtl !== undefined && onPath("initdb") !== undefined) return join(pgCtl, "..")
  throw new Error(INSTALL_HINT)
}

const binary = (binDir: string, name: string): string => {
  const inDir = join(binDir, name)
  if (isExecutable(inDir)) return inDir
  const found = onPath(name)
  if (found !== undefined) return found
  throw new Error(`${name} not found in ${binDir} or on PATH. ${INSTALL_HINT}`)
}

interface RunResult {
  readonly stdout: string
  readonly stderr: string
}

/**
 * The environment for PostgreSQL's programs: the run's, without libfaketime (the date
 * matrix in .ci/run runs the tests under `faketime`; the server keeps the real clock,
 * which it never lends to the app: every instant the app stores comes from the app).
 */
const serverEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(process.env).filter(([name]) => name !== "LD_PRELOAD" && !name.startsWith("FAKETIME")))

const run = (file: string, args: ReadonlyArray<string>, cwd?: string): Promise<RunResult> =>
  new Promise((resolve, reject) => {
    execFile(
      file,
      args,
      { encoding: "utf8", maxBuffer: 16 * 1024 * 1024, env: serverEnv(), ...(cwd === undefined ? {} : { cwd }) },
      (error, stdout, stderr) => {
        if (error === null) resolve({ stdout, stderr })
        else reject(new Error(`${[file, ...args].join(" ")} failed: ${error.message}\n${stderr}${stdout}`.trimEnd()))
      }
    )
  })

/**
 * initdb and postgres refuse to run as root; tests (and CI) run as root, so the server
 * side runs as the `postgres` system user, created when missing.
 */
interface RunAs {
  readonly wrap: (file: string, args: ReadonlyArray<string>) => [string, ReadonlyArray<string>]
  readonly chown: (path: string) => void
}

const currentUser: RunAs = { wrap: (file, args) => [file, args], chown: () => {} }

const postgresUser = async (): Promise<RunAs> => {
  const id = (flag: string) => execFileSync("id", [flag, SUPERUSER], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim()
  try {
    id("-u")
  } catch {
    await run("useradd", ["--system", "--user-group", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin", SUPERUSER])
  }
  const uid = Number(id("-u"))
  const gid = Number(id("-g"))
  const runuser = ["/usr/sbin/runuser", "/sbin/runuser", "/usr/bin/runuser"].find(isExecutable) ?? onPath("runuser")
  if (runuser === undefined) throw new Error("running as root but `runuser` (util-linux) is missing; cannot start PostgreSQL as the postgres user")
  return {
    wrap: (file, args) => [runuser, ["-u", SUPERUSER, "--", file, ...args]],
    chown: (path) => chownSync(path, uid, gid)
  }
}

const freeLoopbackPort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => (port > 0 ? resolve(port) : reject(new Error("could not find a free loopback port"))))
    })
  })

const tail = (file: string, lines = 30): string => {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
  } catch {
    return "(no server log)"
  }
}

// Clusters not yet stopped; stopped synchronously if the process exits without calling `stop`
// (a crashed or interrupted run), so no postmaster outlives the test run.
const live = new Set<() => void>()
let exitHookInstalled = false
const installExitHook = () => {
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.on("exit", () => {
    for (const stopNow of [...live]) stopNow()
  })
}

/**
 * `settings`: more lines for the cluster's postgresql.conf (name → value, written quoted),
 * e.g. `{ shared_buffers: "1GB" }` for the scale bench (bench/postgres.ts); the tests keep
 * PostgreSQL's defaults.
 */
export const startPostgresCluster = async (settings: Readonly<Record<string, string>> = {}): Promise<PostgresCluster> => {
  const binDir = postgresBinDir()
  const initdb = binary(binDir, "initdb")
  const pgCtl = binary(binDir, "pg_ctl")
  const as = process.getuid?.() === 0 ? await postgresUser() : currentUser

  const root = mkdtempSync(join(tmpdir(), "payments-pg-"))
  const dataDir = join(root, "data")
  const logFile = join(root, "server.log")
  as.chown(root)
  const server = (file: string, args: ReadonlyArray<string>) => {
    const [wrapped, wrappedArgs] = as.wrap(file, args)
    return run(wrapped, wrappedArgs, root)
  }
  const stopArgs = ["stop", "-D", dataDir, "-m", "immediate", "-w", "-t", "30"]

  let started = false
  const stopNow = () => {
    live.delete(stopNow)
    try {
      if (started) {
        const [file, args] = as.wrap(pgCtl, stopArgs)
        execFileSync(file, args, { cwd: root, stdio: "ignore", env: serverEnv() })
      }
    } catch {
      // already stopped; the directory goes either way
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  }
  live.add(stopNow)
  installExitHook()

  try {
    await server(initdb, ["-D", dataDir, "-U", SUPERUSER, "--auth=trust", "--no-sync", "--encoding=UTF8", "--locale=C"])
    // Quoted settings go in the file (pg_ctl passes -o through a shell); the port goes on the command line.
    const quote = (value: string) => `'${value.replaceAll("\\", "\\\\").replaceAll("'", "''")}'`
    appendFileSync(
      join(dataDir, "postgresql.conf"),
      [
        "",
        "# test harness (test/support/postgres.ts): throwaway, loopback only, speed over durability",
        "listen_addresses = '127.0.0.1'",
        `unix_socket_directories = ${quote(root)}`,
        "max_connections = 200",
        "fsync = off",
        "synchronous_commit = off",
        "full_page_writes = off",
        "logging_collector = off",
        ...Object.entries(settings).map(([name, value]) => `${name} = ${quote(value)}`),
        ""
      ].join("\n")
    )

    // The port is free when probed but may be taken before postgres binds it: retry with another.
    let port = 0
    for (let attempt = 1; ; attempt++) {
      port = await freeLoopbackPort()
      try {
        await server(pgCtl, ["start", "-D", dataDir, "-l", logFile, "-w", "-t", "30", "-o", `-p ${port}`])
        started = true
        break
      } catch (error) {
        const log = tail(logFile)
        if (attempt < 5 && /could not bind|address already in use/i.test(log)) continue
        throw new Error(`PostgreSQL did not start: ${error instanceof Error ? error.message : String(error)}\n--- server log ---\n${log}`)
      }
    }

    const url = `postgres://${SUPERUSER}@127.0.0.1:${port}/postgres`
    let stopping: Promise<void> | undefined
    const stop = () => {
      stopping ??= (async () => {
        live.delete(stopNow)
        try {
          await server(pgCtl, stopArgs)
        } finally {
          rmSync(root, { recursive: true, force: true })
        }
      })()
      return stopping
    }
    return { url, adminUrl: url, stop }
  } catch (error) {
    stopNow()
    throw error
  }
}

/** Runs SQL with psql (`-X`: no ~/.psqlrc; stops at the first error) and returns its unaligned, tuples-only output. */
export const psql = async (url: string, sql: string): Promise<string> => {
  const { stdout } = await run(binary(postgresBinDir(), "psql"), ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", url, "-c", sql])
  return stdout.trim()
}

const quoteIdentifier = (name: string) => `"${name.replaceAll('"', '""')}"`

/**
 * Creates a fresh database (by default uniquely named `test_…`) on `adminUrl`'s cluster and
 * returns its URL: empty, or a copy of `template` (`CREATE DATABASE … TEMPLATE`, a file
 * copy: much cheaper than running the migrations again).
 */
export const createDatabase = async (adminUrl: string, name?: string, options: { readonly template?: string } = {}): Promise<string> => {
  const database = name ?? `test_${Date.now().toString(36)}_${process.pid}_${randomBytes(4).toString("hex")}`
  const template = options.template === undefined ? "" : ` TEMPLATE ${quoteIdentifier(options.template)}`
  await psql(adminUrl, `CREATE DATABASE ${quoteIdentifier(database)}${template}`)
  const url = new URL(adminUrl)
  url.pathname = `/${encodeURIComponent(database)}`
  return url.toString()
}

/** Marks `database` a template nobody connects to, so `CREATE DATABASE … TEMPLATE` may copy it at any time. */
export const freezeTemplate = (adminUrl: string, database: string): Promise<string> =>
  psql(adminUrl, `ALTER DATABASE ${quoteIdentifier(database)} WITH IS_TEMPLATE true ALLOW_CONNECTIONS false`)
