/**
 * Bulk customer upload: POST /customers/bulk/csv and GET /customers/bulk/jobs/{jobId}.
 * A job is PENDING after the upload and progresses only as the platform's clock advances
 * (the background scheduler is off in tests); good rows become customers exactly as
 * POST /customers makes them (sandbox outcomes by name suffix), bad rows are reported per
 * row and never block the others; a bad file is a 400 in the error shape. Runs on every
 * store (test/postgres/bulk-customers.e2e.test.ts reruns it on PostgreSQL).
 */
import { afterAll, describe, expect, it } from "vitest"
import { BULK_ROWS_PER_STEP, BULK_STEP_SECONDS, MAX_BULK_CSV_BYTES, MAX_BULK_CSV_ROWS } from "../../src/domain/limits.js"
import { basic, isErrorShape } from "../support/api.js"
import { type MoneyClient, moneyApp, moneyPlatform } from "../support/money.js"

const platform = moneyPlatform("bulk")
const otherPlatform = moneyPlatform("bulk-other")
// Platform time moves only with the advances: the jobs run in steps of a second.
const app = moneyApp([platform, otherPlatform], { standingClock: true })
const [m, o] = app.clients as [MoneyClient, MoneyClient]
afterAll(() => app.dispose())

const upload = async (csv: string | Uint8Array, as = platform, field = "file") => {
  const fd = new FormData()
  const bytes = typeof csv === "string" ? new TextEncoder().encode(csv) : csv
  fd.append(field, new Blob([new Uint8Array(bytes)], { type: "text/csv" }), "customers.csv")
  const res = await app.api.handler(
    new Request("http://test/2025-10-13/customers/bulk/csv", { method: "POST", headers: { authorization: basic(as) }, body: fd })
  )
  const text = await res.text()
  return { status: res.status, body: text === "" ? undefined : JSON.parse(text) }
}

const job = (client: MoneyClient, id: string) => client.ok("GET", `/customers/bulk/jobs/${encodeURIComponent(id)}`)
const advance = (client: MoneyClient, seconds: number) => client.ok("POST", "/sandbox/clock/advance", { seconds })
const customerByPcid = async (client: MoneyClient, pcid: string) =>
  ((await client.ok("GET", `/customers?platformCustomerId=${encodeURIComponent(pcid)}`)).data as Array<Record<string, unknown>>)[0]

const expect400 = (r: { status: number; body: { code?: string; details?: { errors?: Array<{ field: string; constraint: string }> } } }, constraint: string) => {
  expect(r.status, JSON.stringify(r.body)).toBe(400)
  expect(isErrorShape(r.body)).toBe(true)
  expect(r.body.code).toBe("INVALID_INPUT")
  expect(r.body.details?.errors?.map((e) => e.constraint)).toContain(constraint)
}

let seq = 0
const pcid = (tag: string) => `bulk-${tag}-${++seq}`

const HEADER = "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,addressLine2,city,state,postalCode,country,email,businessLegalName,businessTaxId,description"
const individualRow = (id: string, fullName = "Ada Bulk", extra: { birthDate?: string; email?: string; line1?: string } = {}) =>
  `${id}@bulk.example.com,${id},INDIVIDUAL,${fullName},${extra.birthDate ?? "1990-01-15"},${extra.line1 ?? "123 Main St"},,San Francisco,CA,94105,US,${extra.email ?? ""},,,`
const businessRow = (id: string, legalName = "Acme Bulk Inc") =>
  `${id}@bulk.example.com,${id},BUSINESS,,,400 Commerce Way,,Austin,TX,78701,US,,${legalName},12-3456789,`

describe("POST /customers/bulk/csv, then the job on the platform's clock", () => {
  it("202 PENDING; one clock step later every row is tried: customers created as POST /customers would, each bad row reported, none blocking", async () => {
    const taken = pcid("taken")
    await m.customer({ platformCustomerId: taken })
    const ids = {
      approved: pcid("ok"),
      rejected: pcid("rejected"),
      business: pcid("biz"),
      quoted: pcid("quoted"),
      noName: pcid("noname"),
      badDate: pcid("baddate"),
      badType: pcid("badtype"),
      wrongColumn: pcid("wrongcol")
    }
    const csv = [
      HEADER,
      individualRow(ids.approved, "Ada Bulk", { email: "ada@example.com" }),
      individualRow(ids.rejected, "Rejected Person 002"),
      businessRow(ids.business),
      // Quoting the library handles: a comma and a doubled quote inside a cell, and a cell that
      // would be a formula in a spreadsheet (stored as the plain text it is).
      `${ids.quoted}@bulk.example.com,${ids.quoted},INDIVIDUAL,"=HYPERLINK(""x"")",1990-01-15,"1 Main St, Apt ""2""",,Boston,MA,02110,US,,,,"a, b"`,
      individualRow(ids.noName, ""),
      individualRow(ids.badDate, "Bad Date", { birthDate: "15/01/1990" }),
      individualRow(taken, "Taken Already"),
      `${ids.badType}@bulk.example.com,${ids.badType},ROBOT,Robo,1990-01-15,1 St,,City,ST,12345,US,,,,`,
      `${ids.wrongColumn}@bulk.example.com,${ids.wrongColumn},INDIVIDUAL,Mixed Up,1990-01-15,1 St,,City,ST,12345,US,,Some Corp,,`
    ].join("\r\n") + "\r\n"
    const accepted = await upload(csv)
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202)
    expect(accepted.body).toEqual({ jobId: expect.stringMatching(/^Job:/), status: "PENDING" })
    const jobId = accepted.body.jobId as string

    // Nothing happens until the platform's clock moves.
    expect(await job(m, jobId)).toMatchObject({ id: jobId, status: "PENDING", progress: { total: 9, processed: 0, successful: 0, failed: 0 } })
    expect(await customerByPcid(m, ids.approved)).toBeUndefined()

    await advance(m, BULK_STEP_SECONDS)
    const done = await job(m, jobId)
    expect(done).toMatchObject({ id: jobId, status: "COMPLETED", progress: { total: 9, processed: 9, successful: 4, failed: 5 } })
    expect(Date.parse(done.completedAt)).not.toBeNaN()
    const errors = done.errors as Array<{ correlationId: string; code: string; message: string; details: Record<string, unknown> }>
    expect(errors.map((e) => e.correlationId)).toEqual([ids.noName, ids.badDate, taken, ids.badType, ids.wrongColumn])
    const byId = Object.fromEntries(errors.map((e) => [e.correlationId, e]))
    expect(byId[ids.noName]).toMatchObject({ code: "INVALID_INPUT", details: { row: 5, errors: [{ field: "fullName", constraint: "required" }] } })
    expect(byId[ids.badDate]).toMatchObject({ code: "INVALID_INPUT", details: { row: 6 } })
    expect(JSON.stringify(byId[ids.badDate]!.details)).toContain("birthDate")
    // The same rule as POST /customers: the platformCustomerId is taken.
    expect(byId[taken]).toMatchObject({ code: "CONFLICT", details: { row: 7 } })
    expect(byId[ids.badType]).toMatchObject({ code: "INVALID_INPUT", details: { errors: [{ field: "customerType" }] } })
    expect(byId[ids.wrongColumn]).toMatchObject({ code: "INVALID_INPUT", details: { errors: [{ field: "businessLegalName", constraint: "unexpected" }] } })
    for (const e of errors) expect(e.message.length).toBeGreaterThan(0)

    const approved = await customerByPcid(m, ids.approved)
    expect(approved).toMatchObject({
      customerType: "INDIVIDUAL",
      fullName: "Ada Bulk",
      birthDate: "1990-01-15",
      email: "ada@example.com",
      umaAddress: `$${ids.approved}@bulk.example.com`,
      kycStatus: "APPROVED",
      address: { line1: "123 Main St", city: "San Francisco", state: "CA", postalCode: "94105", country: "US" }
    })
    // Sandbox outcome by name suffix, as POST /customers: "002" is rejected at creation.
    expect(await customerByPcid(m, ids.rejected)).toMatchObject({ kycStatus: "REJECTED" })
    expect(await customerByPcid(m, ids.business)).toMatchObject({
      customerType: "BUSINESS",
      businessInfo: { legalName: "Acme Bulk Inc", taxId: "12-3456789" }
    })
    expect(await customerByPcid(m, ids.quoted)).toMatchObject({
      fullName: "=HYPERLINK(\"x\")",
      address: { line1: "1 Main St, Apt \"2\"", postalCode: "02110" }
    })
    for (const bad of [ids.noName, ids.badDate, ids.badType, ids.wrongColumn]) expect(await customerByPcid(m, bad)).toBeUndefined()
    // A finished job stays as it is.
    await advance(m, BULK_STEP_SECONDS * 5)
    expect(await job(m, jobId)).toEqual(done)
  })

  it(`a large file runs in steps of ${BULK_ROWS_PER_STEP} rows: PROCESSING with partial progress, then COMPLETED`, async () => {
    const total = BULK_ROWS_PER_STEP + 7
    const tag = pcid("many")
    const rows = Array.from({ length: total }, (_, i) => individualRow(`${tag}-${i}`, `Many Person ${i}`))
    const accepted = await upload([HEADER, ...rows].join("\n"))
    expect(accepted.status).toBe(202)
    const jobId = accepted.body.jobId as string
    await advance(m, BULK_STEP_SECONDS)
    expect(await job(m, jobId)).toMatchObject({
      status: "PROCESSING",
      progress: { total, processed: BULK_ROWS_PER_STEP, successful: BULK_ROWS_PER_STEP, failed: 0 }
    })
    expect(await job(m, jobId)).not.toHaveProperty("completedAt")
    await advance(m, BULK_STEP_SECONDS)
    expect(await job(m, jobId)).toMatchObject({ status: "COMPLETED", progress: { total, processed: total, successful: total, failed: 0 }, errors: [] })
    expect(await customerByPcid(m, `${tag}-${total - 1}`)).toMatchObject({ fullName: `Many Person ${total - 1}` })
  })

  it("a job whose every row fails ends FAILED; the reference's example (no $, short rows) is read as written", async () => {
    const a = pcid("fail")
    const failing = await upload([HEADER, individualRow(a, ""), individualRow(`${a}-2`, "X", { birthDate: "never" })].join("\n"))
    await advance(m, BULK_STEP_SECONDS)
    expect(await job(m, failing.body.jobId)).toMatchObject({ status: "FAILED", progress: { total: 2, processed: 2, successful: 0, failed: 2 } })

    const ref = pcid("ref")
    const example = [
      "umaAddress,platformCustomerId,customerType,fullName,birthDate,addressLine1,city,state,postalCode,country,platformAccountId,businessLegalName",
      `${ref}@uma.domain.com,${ref},INDIVIDUAL,John Doe,1990-01-15,123 Main St,San Francisco,CA,94105,US`,
      `${ref}-biz@uma.domain.com,${ref}-biz,BUSINESS,,,400 Commerce Way,Austin,TX,78701,US`
    ].join("\n")
    const accepted = await upload(example)
    await advance(m, BULK_STEP_SECONDS)
    const done = await job(m, accepted.body.jobId)
    // The business row of the reference's example has no businessLegalName cell: a per-row error naming it.
    expect(done).toMatchObject({ status: "COMPLETED", progress: { total: 2, successful: 1, failed: 1 } })
    expect(done.errors[0]).toMatchObject({ correlationId: `${ref}-biz`, details: { errors: [{ field: "businessLegalName" }] } })
    expect(await customerByPcid(m, ref)).toMatchObject({ umaAddress: `$${ref}@uma.domain.com` })
  })
})

describe("bad files are a 400 in the error shape, and no job", () => {
  it(`a file over ${MAX_BULK_CSV_BYTES} bytes`, async () => {
    const big = new Uint8Array(MAX_BULK_CSV_BYTES + 1).fill(0x61)
    expect400(await upload(big), "maxBytes")
  })

  it(`more than ${MAX_BULK_CSV_ROWS} rows`, async () => {
    const row = individualRow("x", "Too Many")
    expect400(await upload([HEADER, ...Array.from({ length: MAX_BULK_CSV_ROWS + 1 }, () => row)].join("\n")), "maxRows")
  })

  it("malformed CSV (an unclosed quote, a row longer than the header), an unknown or repeated column, no rows, no file part", async () => {
    expect400(await upload(`${HEADER}\n"unclosed,${pcid("q")},INDIVIDUAL`), "csv")
    expect400(await upload(`platformCustomerId,customerType\na,INDIVIDUAL,extra`), "csv")
    expect400(await upload(`platformCustomerId,customerType,colour\na,INDIVIDUAL,blue`), "column")
    expect400(await upload(`platformCustomerId,customerType,customerType\na,INDIVIDUAL,INDIVIDUAL`), "column")
    expect400(await upload(`fullName\nAda`), "column")
    expect400(await upload(HEADER), "csv")
    expect400(await upload(""), "csv")
    expect400(await upload(`${HEADER}\n${individualRow("y")}`, platform, "document"), "required")
    const json = await m.call("POST", "/customers/bulk/csv", { file: "a,b" })
    expect(json.status).toBe(400)
    expect(isErrorShape(json.body)).toBe(true)
  })
})

describe("GET /customers/bulk/jobs/{jobId}", () => {
  it("404 BULK_UPLOAD_JOB_NOT_FOUND for an unknown job and for another platform's job", async () => {
    const unknown = await m.call("GET", "/customers/bulk/jobs/Job:00000000-0000-0000-0000-000000000000")
    expect(unknown.status).toBe(404)
    expect(isErrorShape(unknown.body)).toBe(true)
    expect(unknown.body.code).toBe("BULK_UPLOAD_JOB_NOT_FOUND")
    const mine = await upload(`${HEADER}\n${individualRow(pcid("mine"))}`)
    const foreign = await o.call("GET", `/customers/bulk/jobs/${encodeURIComponent(mine.body.jobId)}`)
    expect(foreign.status).toBe(404)
    expect(foreign.body.code).toBe("BULK_UPLOAD_JOB_NOT_FOUND")
  })
})
