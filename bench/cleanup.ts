/**
 * What the bench must undo however it ends: server children, the throwaway PostgreSQL
 * cluster, temp directories. Tasks run last-registered first, once, on a normal end
 * (`cleanUp()` in a `finally`), on SIGINT / SIGTERM, and (synchronous parts only:
 * killing children, removing directories) when the process exits any other way.
 */
import type { ChildProcess } from "node:child_process"
import { rmSync } from "node:fs"

type Task = () => Promise<void> | void

/** Registered and not started yet, in registration order. */
const pending: Array<() => Promise<void>> = []
/** Started (by their owner or by `cleanUp`) and not finished. */
const running = new Set<Promise<void>>()
const children = new Set<ChildProcess>()
const dirs = new Set<string>()

/**
 * Registers `task`; returns a function that runs it now (and unregisters it). Every
 * call returns the same promise, so an owner and a concurrent `cleanUp` (Ctrl-C in the
 * middle of a run) both wait for the one run of it.
 */
export const onCleanUp = (task: Task): (() => Promise<void>) => {
  let promise: Promise<void> | undefined
  const run = (): Promise<void> => {
    if (promise === undefined) {
      const i = pending.indexOf(run)
      if (i >= 0) pending.splice(i, 1)
      const p = Promise.resolve().then(task)
      promise = p
      running.add(p)
      const forget = () => void running.delete(p)
      p.then(forget, forget)
    }
    return promise
  }
  pending.push(run)
  return run
}

/** Kills `child` (SIGKILL) if the bench exits without stopping it. */
export const trackChild = (child: ChildProcess) => {
  children.add(child)
  child.once("exit", () => children.delete(child))
}

/** Removes `dir` when the process exits, if it is still there (a fallback for a directory another task owns). */
export const removeAtExit = (dir: string) => void dirs.add(dir)

/** Removes `dir` at clean-up (and at exit in any case). */
export const trackDir = (dir: string): (() => Promise<void>) => {
  dirs.add(dir)
  return onCleanUp(() => {
    rmSync(dir, { recursive: true, force: true })
    dirs.delete(dir)
  })
}

/**
 * Runs every registered task not started yet, last registered first, and waits for
 * those already running; a failing task is reported and the rest still run.
 */
export const cleanUp = async () => {
  for (let run = pending.at(-1); run !== undefined; run = pending.at(-1)) {
    try {
      await run()
    } catch (e) {
      console.error(`bench clean-up: ${e instanceof Error ? e.message : String(e)}`)
    }
  }
  await Promise.allSettled([...running])
}

/** A bench script's end: `main`, then every clean-up task, then exit 0 (a failure of `main` still cleans up, then ends the process with it). */
export const runThenExit = async (main: () => Promise<void>): Promise<void> => {
  try {
    await main()
  } finally {
    await cleanUp()
  }
  process.exit(0)
}

let ending = false
/** True once a signal or a crash started the final clean-up: start nothing new. */
export const isEnding = () => ending

/** Cleans up, then exits with `code`; a second signal while cleaning up does not cut it short. */
const cleanUpAndExit = (why: string, code: number) => {
  if (ending) return
  ending = true
  console.error(`\n${why}: stopping servers, the PostgreSQL cluster and temp directories…`)
  const hardExit = setTimeout(() => process.exit(code), 30_000)
  hardExit.unref()
  void cleanUp().finally(() => process.exit(code))
}
for (const signal of ["SIGINT", "SIGTERM"] as const) process.on(signal, () => cleanUpAndExit(signal, 130))
process.on("uncaughtException", (e) => {
  console.error(e)
  cleanUpAndExit("uncaught exception", 1)
})
process.on("unhandledRejection", (e) => {
  console.error(e)
  cleanUpAndExit("unhandled rejection", 1)
})

process.on("exit", () => {
  for (const child of children) child.kill("SIGKILL")
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})
