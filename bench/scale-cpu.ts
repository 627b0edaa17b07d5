/**
 * CPU time of one request, for `npm run bench:scale`'s single-request figures: read from
 * outside the measured processes, so reading it costs them nothing.
 *
 * On Linux each thread's run time is in /proc/<pid>/task/<tid>/schedstat (nanoseconds,
 * the scheduler's own account: not the 10 ms ticks of /proc/<pid>/stat), so the server
 * child's CPU (every thread: the JavaScript thread, the collector's helpers, libuv's
 * pool) and the PostgreSQL cluster's, process by process (`clusterMeter`: the backends
 * serving the app apart from the rest), can be read around each request. Elsewhere the child's CPU is asked over IPC (`cpuOf`, which
 * the child spends a little CPU answering) and there is no database figure.
 */
import type { ChildProcess } from "node:child_process"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { cpuOf } from "./http.js"

/** Whether this machine has per-thread schedstat. */
export const hasSchedstat = existsSync("/proc/self/task") && existsSync(`/proc/self/task/${process.pid}/schedstat`)

/** Run time so far of each thread or process file, nanoseconds. */
export type CpuSnapshot = ReadonlyMap<string, number>

const runNanosOf = (file: string): number | undefined => {
  try {
    return Number(readFileSync(file, "utf8").split(" ")[0])
  } catch {
    return undefined
  }
}

const snapshotOf = (files: ReadonlyArray<string>): CpuSnapshot => {
  const out = new Map<string, number>()
  for (const f of files) {
    const n = runNanosOf(f)
    if (n !== undefined && Number.isFinite(n)) out.set(f, n)
  }
  return out
}

/** Microseconds run between two snapshots, by the threads present in both (a thread that came or went in between: its part within the window is lost). */
export const microsBetween = (a: CpuSnapshot, b: CpuSnapshot): number => {
  let ns = 0
  for (const [f, after] of b) {
    const before = a.get(f)
    if (before !== undefined && after >= before) ns += after - before
  }
  return ns / 1000
}

/** A process tree's CPU, read from outside; `refresh` lists its threads again (between rounds, not inside a sample). */
export interface CpuMeter {
  readonly snapshot: () => CpuSnapshot
  readonly refresh: () => void
}

const threadFiles = (pid: number): Array<string> => {
  try {
    return readdirSync(`/proc/${pid}/task`).map((t) => `/proc/${pid}/task/${t}/schedstat`)
  } catch {
    return []
  }
}

/** The threads of one process. */
export const processMeter = (pid: number): CpuMeter => {
  let files = threadFiles(pid)
  return { snapshot: () => snapshotOf(files), refresh: () => { files = threadFiles(pid) } }
}

const parentOf = (pid: string): number | undefined => {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, "utf8")
    return Number(text.slice(text.lastIndexOf(")") + 2).split(" ")[1])
  } catch {
    return undefined
  }
}

/**
 * The server child's CPU around a request, in microseconds: `begin` before it, `end`
 * after it. Through schedstat where there is one, else over IPC.
 */
export interface ServerCpu {
  readonly begin: () => Promise<CpuSnapshot | number>
  readonly end: (began: CpuSnapshot | number) => Promise<number>
  readonly refresh: () => void
}

export const serverCpu = (child: ChildProcess): ServerCpu => {
  if (hasSchedstat && child.pid !== undefined) {
    const meter = processMeter(child.pid)
    return {
      begin: () => Promise.resolve(meter.snapshot()),
      end: (began) => Promise.resolve(typeof began === "number" ? 0 : microsBetween(began, meter.snapshot())),
      refresh: meter.refresh
    }
  }
  return {
    begin: () => cpuOf(child),
    end: async (began) => (await cpuOf(child)) - (typeof began === "number" ? began : 0),
    refresh: () => {}
  }
}

/**
 * The PostgreSQL cluster's CPU, process by process, so that a request's database CPU can
 * be the CPU of the backends serving the app's connections, and what the rest of the
 * cluster did meanwhile (the checkpointer, the WAL and background writers, autovacuum,
 * other databases' backends, the postmaster) is reported beside it rather than inside it.
 *
 * Each snapshot lists the postmaster's children afresh (/proc/<pid>/task/<pid>/children,
 * else a scan of /proc), and reads each one's /proc/<pid>/schedstat (run time in
 * nanoseconds; PostgreSQL's processes are single-threaded). A process in the later
 * snapshot but not in the earlier one started inside the window, so its whole run time
 * counts (an autovacuum worker, a backend the pool opened); one that exited inside the
 * window is lost. Who each process is comes from `pg_stat_activity` (`backend_type`,
 * `datname`, `application_name`), read by `refresh` (between rounds, never inside a
 * sample); a process started since is named by its process title
 * ("postgres: <user> <database> <host>(<port>) …" for a client backend).
 */
export interface PgProcess {
  /** `pg_stat_activity.backend_type` ("client backend", "checkpointer", "autovacuum worker", …), "postmaster", or "unknown". */
  readonly backendType: string
  readonly database: string | undefined
  readonly applicationName: string | undefined
}

/** Run time so far (nanoseconds) of each of the cluster's processes, by pid. */
export type ClusterSnapshot = ReadonlyMap<number, number>

/** The cluster's CPU in one window, microseconds. */
export interface ClusterCpu {
  /** Every process of the cluster (those that exited inside the window excepted). */
  readonly total: number
  /** Client backends connected to each database. */
  readonly byDatabase: ReadonlyMap<string, number>
  /** By who: `labelOf` of each process (client backends of a database as "client backend <database> (<application_name>)"). */
  readonly byLabel: ReadonlyMap<string, number>
}

export interface ClusterMeter {
  readonly snapshot: () => ClusterSnapshot
  /** Reads `pg_stat_activity` again: who each process is. */
  readonly refresh: () => Promise<void>
  readonly between: (a: ClusterSnapshot, b: ClusterSnapshot) => ClusterCpu
}

export const labelOf = (p: PgProcess): string =>
  p.backendType === "client backend" ? `client backend ${p.database ?? "?"} (${p.applicationName === undefined || p.applicationName === "" ? "no application_name" : p.applicationName})` : p.backendType

const childrenOf = (pid: number): Array<number> => {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim().split(/\s+/).filter((s) => s !== "").map(Number)
  } catch {
    const out: Array<number> = []
    for (const entry of readdirSync("/proc")) if (/^\d+$/.test(entry) && parentOf(entry) === pid) out.push(Number(entry))
    return out
  }
}

/** A process started since the last `refresh`: who it is, from its title (update_process_title is on by default on Linux). */
const fromTitle = (pid: number): PgProcess => {
  let title = ""
  try {
    title = readFileSync(`/proc/${pid}/cmdline`, "utf8").replace(/\0+$/, "").replace(/\0/g, " ")
  } catch {
    return { backendType: "unknown", database: undefined, applicationName: undefined }
  }
  const client = /^postgres: \S+ (\S+) [\d.:a-f[\]]+\(\d+\)/.exec(title)
  if (client !== null) return { backendType: "client backend", database: client[1], applicationName: "started in the window" }
  const autovacuum = /^postgres: autovacuum worker(?: (\S+))?/.exec(title)
  if (autovacuum !== null) return { backendType: "autovacuum worker", database: autovacuum[1], applicationName: undefined }
  const other = /^postgres: ([a-z ]+?)(?:\s{2,}|$)/.exec(title)
  return { backendType: other?.[1]?.trim() ?? "unknown", database: undefined, applicationName: undefined }
}

/**
 * `activity`: the rows of `select pid, backend_type, datname, application_name from
 * pg_stat_activity`, asked on a connection of its own (which is itself a client backend
 * of the maintenance database).
 */
export const clusterMeter = (
  postmaster: number,
  activity: () => Promise<ReadonlyArray<{ pid: number; backend_type: string | null; datname: string | null; application_name: string | null }>>
): ClusterMeter => {
  let known = new Map<number, PgProcess>()
  const snapshot = (): ClusterSnapshot => {
    const out = new Map<number, number>()
    for (const pid of [postmaster, ...childrenOf(postmaster)]) {
      const n = runNanosOf(`/proc/${pid}/schedstat`)
      if (n !== undefined && Number.isFinite(n)) out.set(pid, n)
    }
    return out
  }
  const who = (pid: number): PgProcess => {
    if (pid === postmaster) return { backendType: "postmaster", database: undefined, applicationName: undefined }
    let p = known.get(pid)
    if (p === undefined) known.set(pid, p = fromTitle(pid))
    return p
  }
  return {
    snapshot,
    refresh: async () => {
      const next = new Map<number, PgProcess>()
      for (const r of await activity()) {
        next.set(Number(r.pid), { backendType: r.backend_type ?? "unknown", database: r.datname ?? undefined, applicationName: r.application_name ?? undefined })
      }
      known = next
    },
    between: (a, b) => {
      let total = 0
      const byDatabase = new Map<string, number>()
      const byLabel = new Map<string, number>()
      for (const [pid, after] of b) {
        const before = a.get(pid) ?? 0
        if (after < before) continue
        const us = (after - before) / 1000
        total += us
        const p = who(pid)
        if (p.backendType === "client backend" && p.database !== undefined) byDatabase.set(p.database, (byDatabase.get(p.database) ?? 0) + us)
        const label = labelOf(p)
        byLabel.set(label, (byLabel.get(label) ?? 0) + us)
      }
      return { total, byDatabase, byLabel }
    }
  }
}
