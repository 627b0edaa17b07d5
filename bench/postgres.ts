/**
 * The bench's throwaway PostgreSQL cluster (test/support/postgres.ts: initdb on a free
 * loopback port, fsync off, as the postgres user when root), its databases, and the
 * cluster's CPU time read from /proc (the postmaster and every process under it), so
 * the bench can say what each request cost on the database side too.
 */
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { dirname, join } from "node:path"
import pg from "pg"
import { createDatabase, startPostgresCluster } from "../test/support/postgres.js"
import { onCleanUp, removeAtExit } from "./cleanup.js"

export interface BenchCluster {
  readonly adminUrl: string
  /** A fresh database on the cluster; its URL. */
  readonly database: (name: string) => Promise<string>
  /** CPU time (user + system) of all the cluster's processes so far, microseconds (Linux /proc); undefined elsewhere. */
  readonly cpuMicros: (() => Promise<number>) | undefined
  /** Runs one query as the superuser on `url`. */
  readonly query: <R extends pg.QueryResultRow>(url: string, text: string, params?: ReadonlyArray<unknown>) => Promise<Array<R>>
  readonly stop: () => Promise<void>
}

const clockTicks = (() => {
  try {
    return Number(execFileSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).trim()) || 100
  } catch {
    return 100
  }
})()

/** [ppid, own utime+stime, reaped children's cutime+cstime] in ticks, from /proc/<pid>/stat. */
const statOf = (pid: string): readonly [number, number, number] | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    const f = text.slice(text.lastIndexOf(")") + 2).split(" ")
    return [Number(f[1]), Number(f[11]) + Number(f[12]), Number(f[13]) + Number(f[14])]
  } catch {
    return undefined
  }
}

/** The postmaster's own CPU, its reaped children's, and every live child's (backends, walwriter, …). */
const clusterTicks = (postmaster: number): number => {
  const own = statOf(String(postmaster))
  if (own === undefined) throw new Error(`PostgreSQL postmaster ${postmaster} is gone`)
  let ticks = own[1] + own[2]
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue
    const s = statOf(entry)
    if (s !== undefined && s[0] === postmaster) ticks += s[1] + s[2]
  }
  return ticks
}

const query = async <R extends pg.QueryResultRow>(url: string, text: string, params: ReadonlyArray<unknown> = []): Promise<Array<R>> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<R>(text, [...params])).rows
  } finally {
    await client.end()
  }
}

/**
 * BENCH_PG_CLUSTER_SETTINGS=name=value,…: more settings for the bench's cluster (its
 * postgresql.conf, so also those only a restart sets), e.g. shared_buffers=2GB; the default
 * is test/support/postgres.ts's (PostgreSQL's own, shared_buffers 128 MB).
 */
export const benchClusterSettings = (text: string | undefined = process.env["BENCH_PG_CLUSTER_SETTINGS"]): Record<string, string> =>
  Object.fromEntries((text ?? "").split(",").map((s) => s.trim()).filter((s) => s !== "").map((s) => {
    const m = /^([a-z_][a-z0-9_.]*)=([A-Za-z0-9_.-]+)$/.exec(s)
    if (m === null) throw new Error(`BENCH_PG_CLUSTER_SETTINGS: "${s}" is not name=value`)
    return [m[1]!, m[2]!] as const
  }))

export const startBenchCluster = async (settings: Readonly<Record<string, string>> = benchClusterSettings()): Promise<BenchCluster> => {
  const cluster = await startPostgresCluster(settings)
  const stop = onCleanUp(() => cluster.stop())
  try {
    const [row] = await query<{ setting: string }>(cluster.adminUrl, "select setting from pg_settings where name = 'data_directory'")
    const dataDir = row!.setting
    // The cluster's own directory (data/ and the log); stop() removes it, this covers a crash mid-stop.
    removeAtExit(dirname(dataDir))
    const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
    return {
      adminUrl: cluster.adminUrl,
      database: (name) => createDatabase(cluster.adminUrl, name),
      cpuMicros: existsSync("/proc/self/stat") ? async () => (clusterTicks(postmaster) * 1_000_000) / clockTicks : undefined,
      query,
      stop
    }
  } catch (e) {
    await stop()
    throw e
  }
}
