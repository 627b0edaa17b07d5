/**
 * Drives the API in-process (makeWebHandler) for the onboarding tests: JSON calls,
 * multipart uploads, and tiny valid JPEG/PNG/PDF files.
 */
import { makeWebHandler } from "../../src/http/app.js"
import { defaultTestStore, type TestStore, testServices } from "./api.js"
import { API_VERSION } from "../../src/http/api.js"
import type { Platform, PlatformSettings } from "../../src/domain/platform.js"

export const makePlatform = (id: string, settings: Partial<PlatformSettings> = {}): Platform => ({
  id,
  name: id,
  clientId: `${id}_client`,
  clientSecret: `${id}_secret_value`,
  settings: { regulated: false, skipVerificationPaperwork: false, travelRule: false, sandbox: true, ...settings }
})

export interface ApiResponse {
  readonly status: number
  /** The parsed JSON body; loosely typed so assertions read like the API's JSON. */
  readonly body: any
}

const auth = (p: Platform) => `Basic ${Buffer.from(`${p.clientId}:${p.clientSecret}`).toString("base64")}`

export const makeClient = (platforms: ReadonlyArray<Platform>, seed?: number, store: TestStore = defaultTestStore()) => {
  const { handler, dispose } = makeWebHandler({ services: testServices(store, platforms, seed), schedulerIntervalMillis: false })
  const send = async (p: Platform, method: string, path: string, init: { body?: BodyInit; headers?: Record<string, string> } = {}): Promise<ApiResponse> => {
    let payload = init.body
    let headers: Record<string, string> = { authorization: auth(p), ...init.headers }
    if (payload instanceof FormData) {
      // Serialise the form up front: a streamed FormData body keeps pushing after the
      // server stops reading (an oversized upload) and undici then rejects unhandled.
      const encoded = new Response(payload)
      headers = { ...headers, "content-type": encoded.headers.get("content-type") ?? "" }
      payload = new Uint8Array(await encoded.arrayBuffer())
    }
    const res = await handler(new Request(`http://localhost/${API_VERSION}${path}`, {
      method,
      headers,
      ...(payload !== undefined ? { body: payload } : {})
    }))
    const text = await res.text()
    let body: unknown = undefined
    if (text !== "") {
      try {
        body = JSON.parse(text)
      } catch {
        body = text
      }
    }
    return { status: res.status, body }
  }
  const json = (p: Platform, method: string, path: string, body?: unknown) =>
    send(p, method, path, body === undefined ? {} : { body: JSON.stringify(body), headers: { "content-type": "application/json" } })
  const form = (p: Platform, method: string, path: string, fields: Record<string, string>, file?: { name: string; type: string; bytes: Uint8Array }) => {
    const fd = new FormData()
    for (const [k, v] of Object.entries(fields)) fd.append(k, v)
    if (file !== undefined) fd.append("file", new Blob([new Uint8Array(file.bytes)], { type: file.type }), file.name)
    return send(p, method, path, { body: fd })
  }
  return {
    send,
    json,
    get: (p: Platform, path: string) => json(p, "GET", path),
    post: (p: Platform, path: string, body: unknown) => json(p, "POST", path, body),
    patch: (p: Platform, path: string, body: unknown) => json(p, "PATCH", path, body),
    del: (p: Platform, path: string) => json(p, "DELETE", path),
    form,
    upload: (p: Platform, fields: Record<string, string>, file: { name: string; type: string; bytes: Uint8Array } = files.jpeg()) =>
      form(p, "POST", "/documents", fields, file),
    dispose
  }
}
export type Client = ReturnType<typeof makeClient>

const bytes = (...parts: ReadonlyArray<ReadonlyArray<number> | string>): Uint8Array =>
  Uint8Array.from(parts.flatMap((p) => typeof p === "string" ? [...Buffer.from(p, "latin1")] : [...p]))

/** Minimal files that pass the content checks (magic bytes and end markers). */
export const files = {
  jpeg: (name = "passport.jpg") => ({ name, type: "image/jpeg", bytes: bytes([0xff, 0xd8, 0xff, 0xe0], "JFIF-body", [0xff, 0xd9]) }),
  png: (name = "passport.png") => ({
    name,
    type: "image/png",
    bytes: bytes([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], "IHDR-body", [0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82])
  }),
  pdf: (name = "certificate.pdf") => ({ name, type: "application/pdf", bytes: bytes("%PDF-1.7\n1 0 obj\n<<>>\nendobj\n%%EOF\n") })
}

export const individual = (fullName: string, extra: Record<string, unknown> = {}) => ({ customerType: "INDIVIDUAL", fullName, ...extra })

/** Every field an individual's packet needs, apart from fullName and the document. */
export const completeIndividualFields = {
  birthDate: "1990-04-12",
  nationality: "US",
  idType: "PASSPORT",
  identifier: "X1234567",
  address: { line1: "1 Main St", city: "Springfield", postalCode: "12345", country: "US" }
} as const

export const business = (registrationNumber: string | undefined, extra: Record<string, unknown> = {}) => ({
  customerType: "BUSINESS",
  businessInfo: { legalName: "Acme Ltd", ...(registrationNumber === undefined ? {} : { registrationNumber }) },
  ...extra
})

export const completeBusinessInfo = { country: "US", incorporatedOn: "2015-01-01", taxId: "12-3456789" }
export const businessAddress = { line1: "2 Market St", postalCode: "94105", country: "US" }

export const ownerRequest = (customerId: string, lastName: string) => ({
  customerId,
  roles: ["UBO"],
  ownershipPercentage: 60,
  personalInfo: {
    firstName: "Jane",
    lastName,
    birthDate: "1980-06-15",
    nationality: "US",
    address: { line1: "3 Oak Ave", postalCode: "10001", country: "US" },
    idType: "PASSPORT",
    identifier: "P7654321"
  }
})

/** A value in the API's error shape. */
export const isErrorShape = (body: unknown): boolean => {
  if (typeof body !== "object" || body === null) return false
  const b = body as Record<string, unknown>
  const keys = Object.keys(b)
  return typeof b["code"] === "string" && typeof b["reason"] === "string" && b["message"] === b["reason"] &&
    (b["details"] === undefined || (typeof b["details"] === "object" && b["details"] !== null)) &&
    keys.every((k) => k === "code" || k === "reason" || k === "message" || k === "details")
}
