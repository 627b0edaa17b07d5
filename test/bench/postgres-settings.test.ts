/**
 * The bench's throwaway PostgreSQL cluster with settings of its own
 * (`BENCH_PG_CLUSTER_SETTINGS`, bench/postgres.ts): they are parsed strictly and reach the
 * cluster's postgresql.conf, so a setting only a restart sets (shared_buffers) holds; with
 * none the cluster keeps PostgreSQL's defaults, as the tests' own cluster does.
 */
import pg from "pg"
import { describe, expect, it } from "vitest"
import { benchClusterSettings, startBenchCluster } from "../../bench/postgres.js"

const show = async (url: string, name: string): Promise<string> => {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    return (await client.query<{ value: string }>("select current_setting($1) as value", [name])).rows[0]!.value
  } finally {
    await client.end()
  }
}

describe("the bench's PostgreSQL cluster settings", () => {
  it("parses name=value pairs and refuses anything else", () => {
    expect(benchClusterSettings(undefined)).toEqual({})
    expect(benchClusterSettings(" shared_buffers=64MB , effective_cache_size=1GB ")).toEqual({ shared_buffers: "64MB", effective_cache_size: "1GB" })
    expect(() => benchClusterSettings("shared_buffers")).toThrow(/not name=value/)
    expect(() => benchClusterSettings("shared_buffers=64MB; drop")).toThrow(/not name=value/)
  })

  it("starts the cluster with them, and with PostgreSQL's defaults without them", { timeout: 120_000 }, async () => {
    const sized = await startBenchCluster({ shared_buffers: "48MB" })
    try {
      expect(await show(sized.adminUrl, "shared_buffers")).toBe("48MB")
    } finally {
      await sized.stop()
    }
    const plain = await startBenchCluster({})
    try {
      expect(await show(plain.adminUrl, "shared_buffers")).toBe("128MB")
    } finally {
      await plain.stop()
    }
  })
})
