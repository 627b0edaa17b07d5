/** The PostgreSQL test harness: every `createDatabase` is a separate, working database on the run's cluster. */
import { describe, expect, inject, it } from "vitest"
import { createDatabase, psql } from "./support/postgres.js"

describe("PostgreSQL test harness", () => {
  it("creates distinct working databases on the run's cluster", async () => {
    const adminUrl = inject("databaseAdminUrl")
    expect(adminUrl).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/postgres$/)

    const first = await createDatabase(adminUrl)
    const second = await createDatabase(adminUrl)
    expect(first).not.toBe(second)
    for (const url of [first, second]) {
      expect(url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/test_\w+$/)
      expect(await psql(url, "select 1")).toBe("1")
      expect(await psql(url, "select current_database()")).toBe(new URL(url).pathname.slice(1))
    }

    // A table made in one is not in the other.
    await psql(first, "create table only_here (id int)")
    expect(await psql(first, "select to_regclass('only_here') is not null")).toBe("t")
    expect(await psql(second, "select to_regclass('only_here') is not null")).toBe("f")
  })
})
