/**
 * A bulk customer job survives a restart on PostgreSQL: a server takes the upload and
 * runs its first step, stops; a new server on the same database reports the job where it
 * was and finishes it as the platform's clock advances (the job, its rows and its next
 * step are all in the database).
 */
import { afterAll, describe, expect, it } from "vitest"
import { platformFromConfig } from "../../src/domain/platform.js"
import { BULK_ROWS_PER_STEP, BULK_STEP_SECONDS } from "../../src/domain/limits.js"
import { makeWebHandler } from "../../src/http/app.js"
import { servicesFor } from "../../src/server/services.js"
import { basic, readReply } from "../support/api.js"
import { migratedDatabase } from "../support/databases.js"

const platform = platformFromConfig({ id: "bulk-restart", clientId: "bulk-restart", clientSecret: "bulk-restart-secret-1", regulated: true })
const servers: Array<{ dispose: () => Promise<void> }> = []
afterAll(async () => {
  for (const s of servers) await s.dispose()
})

const server = (url: string) => {
  const app = makeWebHandler({ services: servicesFor({ kind: "postgres", url }, [platform], { webhookDestinations: ["loopback"] }), schedulerIntervalMillis: false })
  servers.push(app)
  const call = async (method: string, path: string, body?: FormData | object) => {
    const headers: Record<string, string> = { authorization: basic(platform) }
    if (body !== undefined && !(body instanceof FormData)) headers["content-type"] = "application/json"
    const init = { method, headers, ...(body === undefined ? {} : { body: body instanceof FormData ? body : JSON.stringify(body) }) }
    return readReply(await app.handler(new Request(`http://test/2025-10-13${path}`, init)))
  }
  return { call, dispose: app.dispose }
}

describe("bulk customer upload across a restart (PostgreSQL)", () => {
  it("the job carries on from the row it had reached", async () => {
    const url = await migratedDatabase()
    const total = BULK_ROWS_PER_STEP + 3
    const csv = ["platformCustomerId,customerType,umaAddress,fullName,birthDate,addressLine1,city,state,postalCode,country",
      ...Array.from({ length: total }, (_, i) => `restart-${i},INDIVIDUAL,restart${i}@r.example.com,Restart Person ${i},1990-01-15,1 St,City,ST,12345,US`)].join("\n")
    const fd = new FormData()
    fd.append("file", new Blob([csv], { type: "text/csv" }), "customers.csv")

    const first = server(url)
    const accepted = await first.call("POST", "/customers/bulk/csv", fd)
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    const path = `/customers/bulk/jobs/${encodeURIComponent(accepted.body.jobId)}`
    expect((await first.call("POST", "/sandbox/clock/advance", { seconds: BULK_STEP_SECONDS })).status).toBe(200)
    expect((await first.call("GET", path)).body).toMatchObject({ status: "PROCESSING", progress: { processed: BULK_ROWS_PER_STEP } })
    await first.dispose()

    const second = server(url)
    expect((await second.call("GET", path)).body).toMatchObject({ status: "PROCESSING", progress: { total, processed: BULK_ROWS_PER_STEP } })
    expect((await second.call("POST", "/sandbox/clock/advance", { seconds: BULK_STEP_SECONDS })).status).toBe(200)
    expect((await second.call("GET", path)).body).toMatchObject({ status: "COMPLETED", progress: { total, processed: total, successful: total, failed: 0 } })
    const last = await second.call("GET", `/customers?platformCustomerId=restart-${total - 1}`)
    expect(last.body.data).toHaveLength(1)
  })
})
