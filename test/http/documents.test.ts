/**
 * POST/GET/PUT/DELETE /documents over HTTP: the happy paths, and every kind of bad
 * input getting a clear 400/404/409 in the error shape with nothing stored.
 */
import { Layer } from "effect"
import { LoopbackWebhookSenderLayer, memoryLayer } from "../../src/adapters/memory/index.js"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { MAX_DOCUMENT_BYTES } from "../../src/rules/documents.js"
import { files, individual, isErrorShape, makeClient, makePlatform } from "../support/onboarding-client.js"

const p = makePlatform("docs")
const other = makePlatform("docs-other")
const api = makeClient([p, other])
afterAll(() => api.dispose())

let customerId = ""
let businessId = ""
let otherCustomerId = ""

const passport = (holder: string, extra: Record<string, string> = {}) => ({ documentHolder: holder, documentType: "PASSPORT", country: "US", ...extra })

const documentCount = async (holder: string) => (await api.get(p, `/documents?documentHolder=${holder}`)).body.totalCount as number

beforeAll(async () => {
  customerId = (await api.post(p, "/customers", individual("Doc Holder", { idType: "PASSPORT", identifier: "X1234567" }))).body.id
  businessId = (await api.post(p, "/customers", { customerType: "BUSINESS", businessInfo: { legalName: "Docs Inc" } })).body.id
  otherCustomerId = (await api.post(other, "/customers", individual("Someone Else"))).body.id
})

describe("POST /documents", () => {
  it("stores a JPEG, PNG or PDF with its metadata and answers 201", async () => {
    const holder = (await api.post(p, "/customers", individual("Three Files"))).body.id
    const a = await api.upload(p, passport(holder, { documentNumber: "A1", issuingAuthority: "U.S. Department of State", side: "FRONT" }), files.jpeg())
    expect(a.status).toBe(201)
    expect(a.body).toMatchObject({
      documentHolder: holder,
      documentType: "PASSPORT",
      country: "US",
      documentNumber: "A1",
      issuingAuthority: "U.S. Department of State",
      side: "FRONT",
      fileName: "passport.jpg"
    })
    expect(a.body.id).toMatch(/^Document:/)
    const b = await api.upload(p, { documentHolder: holder, documentType: "DRIVERS_LICENSE", country: "US" }, files.png("dl.png"))
    expect(b.status).toBe(201)
    const c = await api.upload(p, { documentHolder: holder, documentType: "UTILITY_BILL", country: "US" }, files.pdf("bill.pdf"))
    expect(c.status).toBe(201)
    expect(await documentCount(holder)).toBe(3)
  })

  it("409 DOCUMENT_ALREADY_EXISTS for a second document of a type for one holder", async () => {
    const first = await api.upload(p, passport(customerId))
    expect(first.status).toBe(201)
    const second = await api.upload(p, passport(customerId), files.png())
    expect(second.status).toBe(409)
    expect(second.body.code).toBe("DOCUMENT_ALREADY_EXISTS")
    expect(second.body.details.existingDocumentId).toBe(first.body.id)
    expect(await documentCount(customerId)).toBe(1)
  })

  it("rejects a file whose content is not JPEG, PNG or PDF (UNSUITABLE_DOCUMENT)", async () => {
    const holder = (await api.post(p, "/customers", individual("Gif Sender"))).body.id
    const r = await api.upload(p, passport(holder), { name: "x.png", type: "image/png", bytes: new TextEncoder().encode("GIF89a not a png") })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("UNSUITABLE_DOCUMENT")
    expect(isErrorShape(r.body)).toBe(true)
    expect(await documentCount(holder)).toBe(0)
  })

  it("rejects a file that is not what its declared type claims", async () => {
    const holder = (await api.post(p, "/customers", individual("Claims"))).body.id
    const pdfAsPng = await api.upload(p, passport(holder), { ...files.pdf(), name: "scan.pdf", type: "image/png" })
    expect(pdfAsPng.status).toBe(400)
    expect(pdfAsPng.body.code).toBe("UNSUITABLE_DOCUMENT")
    expect(pdfAsPng.body.reason).toContain("image/png")
    const jpegNamedPdf = await api.upload(p, passport(holder), { ...files.jpeg(), name: "scan.pdf", type: "application/octet-stream" })
    expect(jpegNamedPdf.status).toBe(400)
    expect(jpegNamedPdf.body.code).toBe("UNSUITABLE_DOCUMENT")
    expect(await documentCount(holder)).toBe(0)
  })

  it("rejects an empty or truncated file (INCOMPLETE)", async () => {
    const holder = (await api.post(p, "/customers", individual("Truncated"))).body.id
    const empty = await api.upload(p, passport(holder), { name: "a.jpg", type: "image/jpeg", bytes: new Uint8Array() })
    expect(empty.status).toBe(400)
    expect(empty.body.code).toBe("INCOMPLETE")
    const jpeg = files.jpeg()
    const cut = await api.upload(p, passport(holder), { ...jpeg, bytes: jpeg.bytes.slice(0, jpeg.bytes.length - 2) })
    expect(cut.status).toBe(400)
    expect(cut.body.code).toBe("INCOMPLETE")
    expect(await documentCount(holder)).toBe(0)
  })

  it("rejects a file over 10 MB with a clear 400 and stores nothing", async () => {
    const holder = (await api.post(p, "/customers", individual("Big File"))).body.id
    const jpeg = files.jpeg()
    const big = new Uint8Array(MAX_DOCUMENT_BYTES + 1)
    big.set(jpeg.bytes.slice(0, 4), 0)
    big.set([0xff, 0xd9], big.length - 2)
    const r = await api.upload(p, passport(holder), { ...jpeg, bytes: big })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
    expect(r.body.details.errors).toContainEqual(expect.objectContaining({ field: "file", constraint: "maxBytes" }))
    expect(await documentCount(holder)).toBe(0)
  })

  it("accepts a file of exactly 10 MB", async () => {
    const holder = (await api.post(p, "/customers", individual("Exact File"))).body.id
    const exact = new Uint8Array(MAX_DOCUMENT_BYTES)
    exact.set([0xff, 0xd8, 0xff, 0xe0], 0)
    exact.set([0xff, 0xd9], exact.length - 2)
    const r = await api.upload(p, passport(holder), { name: "big.jpg", type: "image/jpeg", bytes: exact })
    expect(r.body).toMatchObject({ documentHolder: holder })
    expect(r.status).toBe(201)
  })

  it("rejects an unknown document type, a bad country and a malformed holder, all at once", async () => {
    const r = await api.upload(p, { documentHolder: "not-an-id", documentType: "LIBRARY_CARD", country: "usa" })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["country", "documentHolder", "documentType"])
  })

  it("lists missing fields and the missing file part together", async () => {
    const r = await api.form(p, "POST", "/documents", { documentHolder: customerId })
    expect(r.status).toBe(400)
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["country", "documentType", "file"])
  })

  it("rejects unknown and repeated form fields", async () => {
    const fd = new FormData()
    fd.append("documentHolder", customerId)
    fd.append("documentType", "NATIONAL_ID")
    fd.append("documentType", "PASSPORT")
    fd.append("country", "US")
    fd.append("colour", "blue")
    const f = files.jpeg()
    fd.append("file", new Blob([new Uint8Array(f.bytes)], { type: f.type }), f.name)
    const r = await api.send(p, "POST", "/documents", { body: fd })
    expect(r.status).toBe(400)
    const fields = (r.body.details.errors as Array<{ field: string }>).map((e) => e.field).sort()
    expect(fields).toEqual(["colour", "documentType"])
  })

  it("404 for a holder of another platform or an unknown holder, and nothing stored", async () => {
    const foreign = await api.upload(p, passport(otherCustomerId))
    expect(foreign.status).toBe(404)
    expect(isErrorShape(foreign.body)).toBe(true)
    const unknown = await api.upload(p, passport("BeneficialOwner:00000000-0000-4000-8000-000000000000"))
    expect(unknown.status).toBe(404)
    expect((await api.get(other, `/documents?documentHolder=${otherCustomerId}`)).body.totalCount).toBe(0)
  })

  it("rejects a document type the holder cannot hold (UNSUITABLE_DOCUMENT)", async () => {
    const r = await api.upload(p, { documentHolder: businessId, documentType: "PASSPORT", country: "US" })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("UNSUITABLE_DOCUMENT")
    const s = await api.upload(p, { documentHolder: customerId, documentType: "CERTIFICATE_OF_INCORPORATION", country: "US" }, files.pdf())
    expect(s.status).toBe(400)
    expect(s.body.code).toBe("UNSUITABLE_DOCUMENT")
  })

  it("rejects an identity document whose number differs from the holder's identifier (DATA_MISMATCH)", async () => {
    const holder = (await api.post(p, "/customers", individual("Mismatch", { idType: "PASSPORT", identifier: "X1234567" }))).body.id
    const r = await api.upload(p, passport(holder, { documentNumber: "Y999" }))
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("DATA_MISMATCH")
    const ok = await api.upload(p, passport(holder, { documentNumber: "x 123-4567" }))
    expect(ok.status).toBe(201)
  })

  it.each([
    ["911", "LOW_QUALITY"],
    ["912", "EXPIRED"],
    ["913", "SUSPECTED_FRAUD"]
  ])("sandbox documentNumber ending %s is rejected with %s", async (suffix, code) => {
    const holder = (await api.post(p, "/customers", individual(`Sandbox doc ${suffix}`))).body.id
    const r = await api.upload(p, { documentHolder: holder, documentType: "NATIONAL_ID", country: "US", documentNumber: `N00${suffix}` })
    expect(r.status).toBe(400)
    expect(r.body.code).toBe(code)
    expect(await documentCount(holder)).toBe(0)
  })
})

describe("malformed requests to the multipart endpoints", () => {
  const raw = (body: string, contentType: string | undefined) =>
    api.send(p, "POST", "/documents", { body, headers: contentType === undefined ? {} : { "content-type": contentType } })

  it("a JSON body is refused: multipart/form-data is required", async () => {
    const r = await raw(JSON.stringify(passport(customerId)), "application/json")
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
    expect(r.body.reason).toContain("multipart/form-data")
  })

  it("multipart without a boundary is refused", async () => {
    const r = await raw("--x\r\n", "multipart/form-data")
    expect(r.status).toBe(400)
    expect(isErrorShape(r.body)).toBe(true)
  })

  it("a body that does not follow its boundary is refused", async () => {
    const r = await raw("this is not multipart at all", "multipart/form-data; boundary=abc")
    expect(r.status).toBe(400)
    expect(r.body.code).toBe("INVALID_INPUT")
  })

  it("a truncated multipart body is refused", async () => {
    const body = "--abc\r\nContent-Disposition: form-data; name=\"documentHolder\"\r\n\r\nCustomer:1\r\n--abc\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.jpg\"\r\nContent-Type: image/jpeg\r\n\r\n\xff\xd8"
    const r = await raw(body, "multipart/form-data; boundary=abc")
    expect(r.status).toBe(400)
    expect(isErrorShape(r.body)).toBe(true)
  })

  it("a declared body over the multipart limit is refused before reading", async () => {
    const r = await api.send(p, "POST", "/documents", {
      body: "x",
      headers: { "content-type": "multipart/form-data; boundary=abc", "content-length": String(50 * 1024 * 1024) }
    })
    expect(r.status).toBe(400)
    expect(r.body.details.errors[0].constraint).toBe("maxBytes")
  })

  it("JSON endpoints still refuse multipart bodies", async () => {
    const fd = new FormData()
    fd.append("customerType", "INDIVIDUAL")
    const r = await api.send(p, "POST", "/customers", { body: fd })
    expect(r.status).toBe(400)
    expect(r.body.reason).toContain("application/json")
  })
})

describe("GET, PUT, DELETE /documents/{id}", () => {
  it("gets, lists by holder, replaces and deletes", async () => {
    const holder = (await api.post(p, "/customers", individual("Lifecycle"))).body.id
    const created = (await api.upload(p, passport(holder))).body
    const got = await api.get(p, `/documents/${created.id}`)
    expect(got.body).toEqual(created)
    const replaced = await api.form(p, "PUT", `/documents/${created.id}`, { documentType: "NATIONAL_ID", country: "GB", documentNumber: "N1" }, files.png("id.png"))
    expect(replaced.status).toBe(200)
    expect(replaced.body).toMatchObject({ id: created.id, documentHolder: holder, documentType: "NATIONAL_ID", country: "GB", fileName: "id.png", createdAt: created.createdAt })
    const list = await api.get(p, `/documents?documentHolder=${holder}`)
    expect(list.body.data).toEqual([replaced.body])
    const del = await api.del(p, `/documents/${created.id}`)
    expect(del.status).toBe(204)
    expect((await api.get(p, `/documents/${created.id}`)).status).toBe(404)
  })

  it("PUT with a bad file leaves the stored document unchanged", async () => {
    const holder = (await api.post(p, "/customers", individual("Bad Replace"))).body.id
    const created = (await api.upload(p, passport(holder))).body
    const r = await api.form(p, "PUT", `/documents/${created.id}`, { documentType: "PASSPORT", country: "US" }, { name: "a.exe", type: "application/octet-stream", bytes: new Uint8Array([0x4d, 0x5a, 0, 0]) })
    expect(r.status).toBe(400)
    expect((await api.get(p, `/documents/${created.id}`)).body).toEqual(created)
  })

  it("PUT to a type the holder already has is 409 DOCUMENT_ALREADY_EXISTS", async () => {
    const holder = (await api.post(p, "/customers", individual("Two Docs"))).body.id
    await api.upload(p, passport(holder))
    const dl = (await api.upload(p, { documentHolder: holder, documentType: "DRIVERS_LICENSE", country: "US" })).body
    const r = await api.form(p, "PUT", `/documents/${dl.id}`, { documentType: "PASSPORT", country: "US" }, files.jpeg())
    expect(r.status).toBe(409)
    expect(r.body.code).toBe("DOCUMENT_ALREADY_EXISTS")
  })

  it("another platform's document is not found", async () => {
    const created = (await api.upload(p, passport((await api.post(p, "/customers", individual("Private Doc"))).body.id))).body
    expect((await api.get(other, `/documents/${created.id}`)).status).toBe(404)
    expect((await api.del(other, `/documents/${created.id}`)).status).toBe(404)
    expect((await api.form(other, "PUT", `/documents/${created.id}`, { documentType: "PASSPORT", country: "US" }, files.jpeg())).status).toBe(404)
    expect((await api.get(p, `/documents/${created.id}`)).status).toBe(200)
  })

  it("a document behind a decided verification cannot be deleted or replaced (409)", async () => {
    const c = (await api.post(p, "/customers", individual("Decided Doc", {
      birthDate: "1990-01-01", nationality: "US", idType: "PASSPORT", identifier: "X1", address: { line1: "1 A St", postalCode: "1", country: "US" }
    }))).body
    const doc = (await api.upload(p, passport(c.id))).body
    const v = await api.post(p, "/verifications", { customerId: c.id })
    expect(v.body.verificationStatus).toBe("APPROVED")
    expect((await api.del(p, `/documents/${doc.id}`)).status).toBe(409)
    expect((await api.form(p, "PUT", `/documents/${doc.id}`, { documentType: "PASSPORT", country: "US" }, files.jpeg())).status).toBe(409)
  })
})

describe("contract and concurrency", () => {
  it("the OpenAPI document describes the multipart upload and the new groups", async () => {
    const { handler, dispose } = (await import("../../src/http/app.js")).makeWebHandler({ services: Layer.merge(memoryLayer([p]), LoopbackWebhookSenderLayer), schedulerIntervalMillis: false })
    try {
      const res = await handler(new Request("http://localhost/openapi.json"))
      expect(res.status).toBe(200)
      const doc = await res.json() as { paths: Record<string, Record<string, { requestBody?: { content: Record<string, unknown> } }>> }
      expect(Object.keys(doc.paths["/2025-10-13/documents"]!.post!.requestBody!.content)).toEqual(["multipart/form-data"])
      for (const path of ["/2025-10-13/verifications", "/2025-10-13/beneficial-owners", "/2025-10-13/customers/agreements", "/2025-10-13/customers/end-user-terms"]) {
        expect(doc.paths[path]).toBeDefined()
      }
    } finally {
      await dispose()
    }
  })

  it("two concurrent uploads of the same type for one holder: exactly one 201", async () => {
    const holder = (await api.post(p, "/customers", individual("Race"))).body.id
    const results = await Promise.all([api.upload(p, passport(holder)), api.upload(p, passport(holder), files.png())])
    expect(results.map((r) => r.status).sort()).toEqual([201, 409])
    expect(await documentCount(holder)).toBe(1)
  })
})
