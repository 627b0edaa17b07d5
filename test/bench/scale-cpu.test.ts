/**
 * The scale bench's PostgreSQL CPU meter (bench/scale-cpu.ts, `clusterMeter`): each
 * backend's CPU goes to its database and application, a backend started inside the
 * window counts (named by its process title), and the whole is at least its parts.
 * Linux only (/proc), as the bench's figure is.
 */
import { readFileSync } from "node:fs"
import { join } from "node:path"
import pg from "pg"
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest"
import { clusterMeter } from "../../bench/scale-cpu.js"
import { emptyDatabase } from "../support/databases.js"

describe("the scale bench's cluster meter", () => {
  const admin = new pg.Client({ connectionString: inject("databaseAdminUrl") })
  const clients: Array<pg.Client> = []
  beforeAll(() => admin.connect())
  afterAll(async () => {
    for (const c of clients) await c.end()
    await admin.end()
  })

  const connect = async (url: string, applicationName: string) => {
    const c = new pg.Client({ connectionString: url, application_name: applicationName })
    await c.connect()
    clients.push(c)
    return c
  }

  it("puts each backend's CPU on its database and application, a backend started in the window included", async () => {
    const url = await emptyDatabase()
    const database = new URL(url).pathname.slice(1)
    const other = await emptyDatabase()
    const dataDir = (await admin.query<{ data_directory: string }>("show data_directory")).rows[0]!.data_directory
    const postmaster = Number(readFileSync(join(dataDir, "postmaster.pid"), "utf8").split("\n")[0])
    const meter = clusterMeter(postmaster, async () =>
      (await admin.query<{ pid: number; backend_type: string | null; datname: string | null; application_name: string | null }>(
        "select pid, backend_type, datname, application_name from pg_stat_activity"
      )).rows)

    const known = await connect(url, "meter-known")
    const elsewhere = await connect(other, "meter-elsewhere")
    await meter.refresh()
    const before = meter.snapshot()
    await known.query("select count(*) from generate_series(1, 100000)")
    await elsewhere.query("select count(*) from generate_series(1, 100000)")
    const late = await connect(url, "meter-late")
    await late.query("select count(*) from generate_series(1, 100000)")
    const after = meter.snapshot()
    const cpu = meter.between(before, after)

    const knownCpu = cpu.byLabel.get(`client backend ${database} (meter-known)`)
    const lateCpu = cpu.byLabel.get(`client backend ${database} (started in the window)`)
    expect(knownCpu).toBeGreaterThan(0)
    expect(lateCpu).toBeGreaterThan(0)
    // Only those two are connected to the database: its figure is theirs, the other database's backend's is not in it.
    expect(cpu.byDatabase.get(database)).toBeCloseTo(knownCpu! + lateCpu!, 6)
    const elsewhereCpu = cpu.byLabel.get(`client backend ${new URL(other).pathname.slice(1)} (meter-elsewhere)`)
    expect(elsewhereCpu).toBeGreaterThan(0)
    expect(cpu.byDatabase.get(new URL(other).pathname.slice(1))).toBeCloseTo(elsewhereCpu!, 6)
    expect(cpu.total).toBeGreaterThanOrEqual(cpu.byDatabase.get(database)!)
    expect([...cpu.byLabel.values()].reduce((a, b) => a + b, 0)).toBeCloseTo(cpu.total, 6)
  })
})
