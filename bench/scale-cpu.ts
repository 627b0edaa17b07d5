/**
 * CPU time of one request, for `npm run bench:scale`'s single-request figures: read from
 * outside the measured processes, so reading it costs them nothing.
 *
 * On Linux each thread's run time is in /proc/<pid>/task/<tid>/schedstat (nanoseconds,
 * the scheduler's own account: not the 10 ms ticks of /proc/<pid>/stat), so the server
 * child's CPU (every thread: the JavaScript thread, the collector's helpers, libuv's
 * pool) and the PostgreSQL cluster's (the postmaster and every process under it) can be
 * read around each request. Elsewhere the child's CPU is asked over IPC (`cpuOf`, which
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

/** A process and its children, with their threads (the PostgreSQL cluster: its postmaster and every backend and helper). */
export const treeMeter = (root: number): CpuMeter => {
  const list = () => {
    const files = threadFiles(root)
    for (const entry of readdirSync("/proc")) {
      if (/^\d+$/.test(entry) && parentOf(entry) === root) files.push(...threadFiles(Number(entry)))
    }
    return files
  }
  let files = list()
  return { snapshot: () => snapshotOf(files), refresh: () => { files = list() } }
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
