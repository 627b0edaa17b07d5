/**
 * Model-based tests (fast-check) of KYC and KYB over HTTP. A deliberately simple model
 * of SPEC.md's tables runs beside the service; across any sequence of creates,
 * patches, uploads, replacements, owners and submissions:
 * - a final status (APPROVED, REJECTED) never changes,
 * - every response is in the error shape or a valid resource,
 * - the model and the implementation agree on every status and outcome.
 * Runs: FC_NUM_RUNS (default 20).
 */
import { Schema } from "effect"
import fc from "fast-check"
import { afterAll, describe, it } from "vitest"
import { expect } from "vitest"
import { BeneficialOwner } from "../../src/domain/beneficial-owner.js"
import { CustomerResponse } from "../../src/domain/customer.js"
import { Document } from "../../src/domain/document.js"
import type { Platform } from "../../src/domain/platform.js"
import { Verification } from "../../src/domain/verification.js"
import {
  type ApiResponse,
  businessAddress,
  completeBusinessInfo,
  completeIndividualFields,
  files,
  isErrorShape,
  makeClient,
  makePlatform,
  ownerRequest
} from "../support/onboarding-client.js"

const NUM_RUNS = Number(process.env["FC_NUM_RUNS"] ?? 20)

const platforms = {
  unregulated: makePlatform("model-unregulated"),
  regulated: makePlatform("model-regulated", { regulated: true }),
  skip: makePlatform("model-skip", { skipVerificationPaperwork: true })
}
const api = makeClient(Object.values(platforms))
afterAll(() => api.dispose())

// ---------------------------------------------------------------- the model

type Status = "UNVERIFIED" | "PENDING" | "APPROVED" | "REJECTED"
const FINAL: ReadonlySet<Status> = new Set(["APPROVED", "REJECTED"])
const SUFFIXES = ["001", "002", "003", "777"] as const
type Suffix = (typeof SUFFIXES)[number]
const IDENTITY = ["PASSPORT", "DRIVERS_LICENSE", "NATIONAL_ID"] as const

interface ModelDoc {
  readonly type: string
  poorQuality: boolean
  locked: boolean
}

interface ModelCustomer {
  readonly kind: "INDIVIDUAL" | "BUSINESS"
  suffix: Suffix
  complete: boolean
  status: Status
  docs: Array<ModelDoc>
  owners: Array<{ suffix: Suffix; status: Status }>
  poorQualityReported: boolean
}

interface Model {
  readonly settingName: keyof typeof platforms
  readonly customers: Array<ModelCustomer>
}

interface Real {
  readonly platform: Platform
  readonly ids: Array<string>
  readonly docIds: Array<Array<string>>
}

const resolvesEarly = (m: Model) => m.settingName !== "unregulated"

const ownerStatus = (s: Suffix): Status => s === "001" ? "PENDING" : s === "002" ? "REJECTED" : "APPROVED"

/** What the model expects a submission to do: the verification status, or 400. */
const submitInModel = (m: Model, c: ModelCustomer): string => {
  if (FINAL.has(c.status)) return "400"
  let outcome: "RESOLVE_ERRORS" | "PENDING_MANUAL_REVIEW" | "APPROVED" | "REJECTED"
  if (c.kind === "INDIVIDUAL") {
    const ids = c.docs.filter((d) => (IDENTITY as ReadonlyArray<string>).includes(d.type))
    if (!c.complete || ids.length === 0) outcome = "RESOLVE_ERRORS"
    else if (c.suffix === "001") outcome = "PENDING_MANUAL_REVIEW"
    else if (c.suffix === "002") outcome = "REJECTED"
    else if (c.suffix === "777") outcome = "APPROVED"
    else if (!c.poorQualityReported) {
      c.poorQualityReported = true
      for (const d of ids) d.poorQuality = true
      outcome = "RESOLVE_ERRORS"
    } else outcome = ids.some((d) => !d.poorQuality) ? "PENDING_MANUAL_REVIEW" : "RESOLVE_ERRORS"
  } else {
    const complete = c.complete && c.docs.some((d) => d.type === "CERTIFICATE_OF_INCORPORATION") && c.owners.length > 0
    const row = c.suffix === "002" ? "REJECTED" : c.suffix === "777" ? "APPROVED" : "REAL"
    if (row !== "REAL" && resolvesEarly(m)) outcome = row
    else if (!complete) outcome = "RESOLVE_ERRORS"
    else outcome = row === "REAL" ? "PENDING_MANUAL_REVIEW" : row
  }
  if (outcome !== "RESOLVE_ERRORS") for (const d of c.docs) d.locked = true
  if (outcome === "PENDING_MANUAL_REVIEW") c.status = "PENDING"
  if (outcome === "APPROVED" || outcome === "REJECTED") {
    c.status = outcome
    if (c.kind === "BUSINESS") for (const o of c.owners) if (!FINAL.has(o.status)) o.status = ownerStatus(o.suffix)
  }
  return outcome
}

// ---------------------------------------------------------------- checks on every response

const isCustomer = Schema.is(CustomerResponse)
const isVerification = Schema.is(Verification)
const isDocument = Schema.is(Document)
const isOwner = Schema.is(BeneficialOwner)

const wellFormed = (r: ApiResponse, isResource: (u: unknown) => boolean) => {
  if (r.status >= 400) expect(isErrorShape(r.body), JSON.stringify(r.body)).toBe(true)
  else if (r.status !== 204) expect(isResource(r.body), JSON.stringify(r.body)).toBe(true)
  expect(r.status).toBeLessThan(500)
}

/** After every command: the service's statuses are the model's. */
const agree = async (m: Model, r: Real) => {
  for (const [i, c] of m.customers.entries()) {
    const got = await api.get(r.platform, `/customers/${r.ids[i]}`)
    wellFormed(got, isCustomer)
    expect(c.kind === "INDIVIDUAL" ? got.body.kycStatus : got.body.kybStatus).toBe(c.status)
    if (c.kind === "BUSINESS") {
      const owners = await api.get(r.platform, `/beneficial-owners?customerId=${r.ids[i]}&limit=100`)
      expect(owners.body.data.map((o: { kycStatus: string }) => o.kycStatus)).toEqual(c.owners.map((o) => o.status))
    }
  }
}

const name = (s: Suffix) => `Model Person ${s}`
const reg = (s: Suffix) => `REG-${s}`

// ---------------------------------------------------------------- commands

class CreateIndividual implements fc.AsyncCommand<Model, Real> {
  constructor(readonly suffix: Suffix, readonly complete: boolean) {}
  check = () => true
  async run(m: Model, r: Real) {
    const res = await api.post(r.platform, "/customers", { customerType: "INDIVIDUAL", fullName: name(this.suffix), ...(this.complete ? completeIndividualFields : {}) })
    wellFormed(res, isCustomer)
    expect(res.status).toBe(201)
    const early = resolvesEarly(m)
    const status: Status = !early ? "UNVERIFIED" : this.suffix === "001" ? "PENDING" : this.suffix === "002" ? "REJECTED" : this.suffix === "003" ? "UNVERIFIED" : "APPROVED"
    expect(res.body.kycStatus).toBe(status)
    m.customers.push({ kind: "INDIVIDUAL", suffix: this.suffix, complete: this.complete, status, docs: [], owners: [], poorQualityReported: false })
    r.ids.push(res.body.id)
    r.docIds.push([])
  }
  toString = () => `CreateIndividual(${this.suffix}, complete=${this.complete})`
}

class CreateBusiness implements fc.AsyncCommand<Model, Real> {
  constructor(readonly suffix: Suffix) {}
  check = () => true
  async run(m: Model, r: Real) {
    const res = await api.post(r.platform, "/customers", { customerType: "BUSINESS", businessInfo: { legalName: "Model Co", registrationNumber: reg(this.suffix) } })
    wellFormed(res, isCustomer)
    expect(res.body.kybStatus).toBe("UNVERIFIED")
    m.customers.push({ kind: "BUSINESS", suffix: this.suffix, complete: false, status: "UNVERIFIED", docs: [], owners: [], poorQualityReported: false })
    r.ids.push(res.body.id)
    r.docIds.push([])
  }
  toString = () => `CreateBusiness(${this.suffix})`
}

abstract class OnCustomer implements fc.AsyncCommand<Model, Real> {
  constructor(readonly pick: number) {}
  check = (m: Readonly<Model>) => m.customers.length > 0
  protected at = (m: Model) => this.pick % m.customers.length
  abstract run(m: Model, r: Real): Promise<void>
}

/** Renames (new suffix) and optionally completes the data; never re-derives a status. */
class Patch extends OnCustomer {
  constructor(pick: number, readonly suffix: Suffix, readonly complete: boolean) {
    super(pick)
  }
  async run(m: Model, r: Real) {
    const i = this.at(m)
    const c = m.customers[i]!
    const body = c.kind === "INDIVIDUAL"
      ? { customerType: "INDIVIDUAL", fullName: name(this.suffix), ...(this.complete ? completeIndividualFields : {}) }
      : { customerType: "BUSINESS", businessInfo: { registrationNumber: reg(this.suffix), ...(this.complete ? completeBusinessInfo : {}) }, ...(this.complete ? { address: businessAddress } : {}) }
    const res = await api.patch(r.platform, `/customers/${r.ids[i]}`, body)
    wellFormed(res, isCustomer)
    expect(res.status).toBe(200)
    c.suffix = this.suffix
    c.complete = c.complete || this.complete
  }
  override toString = () => `Patch(${this.pick}, ${this.suffix}, complete=${this.complete})`
}

class Upload extends OnCustomer {
  constructor(pick: number, readonly identityType: (typeof IDENTITY)[number], readonly badFile: boolean) {
    super(pick)
  }
  async run(m: Model, r: Real) {
    const i = this.at(m)
    const c = m.customers[i]!
    const type = c.kind === "INDIVIDUAL" ? this.identityType : "CERTIFICATE_OF_INCORPORATION"
    const file = this.badFile ? { name: "x.png", type: "image/png", bytes: files.pdf().bytes } : c.kind === "INDIVIDUAL" ? files.jpeg() : files.pdf()
    const res = await api.upload(r.platform, { documentHolder: r.ids[i]!, documentType: type, country: "US" }, file)
    wellFormed(res, isDocument)
    if (this.badFile) {
      expect(res.status).toBe(400)
      return
    }
    if (c.docs.some((d) => d.type === type)) {
      expect(res.status).toBe(409)
      expect(res.body.code).toBe("DOCUMENT_ALREADY_EXISTS")
      return
    }
    expect(res.status).toBe(201)
    c.docs.push({ type, poorQuality: false, locked: false })
    r.docIds[i]!.push(res.body.id)
  }
  override toString = () => `Upload(${this.pick}, ${this.identityType}, bad=${this.badFile})`
}

class Replace extends OnCustomer {
  constructor(pick: number, readonly docPick: number) {
    super(pick)
  }
  override check = (m: Readonly<Model>) => m.customers.some((c) => c.docs.length > 0)
  async run(m: Model, r: Real) {
    const withDocs = m.customers.map((c, i) => [c, i] as const).filter(([c]) => c.docs.length > 0)
    const [c, i] = withDocs[this.pick % withDocs.length]!
    const j = this.docPick % c.docs.length
    const d = c.docs[j]!
    const res = await api.form(r.platform, "PUT", `/documents/${r.docIds[i]![j]}`, { documentType: d.type, country: "US" }, c.kind === "INDIVIDUAL" ? files.png() : files.pdf())
    wellFormed(res, isDocument)
    if (d.locked) {
      expect(res.status).toBe(409)
      return
    }
    expect(res.status).toBe(200)
    d.poorQuality = false
  }
  override toString = () => `Replace(${this.pick}, ${this.docPick})`
}

class AddOwner extends OnCustomer {
  constructor(pick: number, readonly suffix: Suffix) {
    super(pick)
  }
  async run(m: Model, r: Real) {
    const i = this.at(m)
    const c = m.customers[i]!
    const res = await api.post(r.platform, "/beneficial-owners", ownerRequest(r.ids[i]!, `Owner ${this.suffix}`))
    wellFormed(res, isOwner)
    if (c.kind === "INDIVIDUAL") {
      expect(res.status).toBe(400)
      return
    }
    expect(res.status).toBe(201)
    const status = FINAL.has(c.status) ? ownerStatus(this.suffix) : "UNVERIFIED"
    expect(res.body.kycStatus).toBe(status)
    c.owners.push({ suffix: this.suffix, status })
  }
  override toString = () => `AddOwner(${this.pick}, ${this.suffix})`
}

class Submit extends OnCustomer {
  async run(m: Model, r: Real) {
    const i = this.at(m)
    const c = m.customers[i]!
    const before = c.status
    const expected = submitInModel(m, c)
    const res = await api.post(r.platform, "/verifications", { customerId: r.ids[i] })
    wellFormed(res, isVerification)
    if (expected === "400") {
      expect(res.status).toBe(400)
      expect(c.status).toBe(before)
      return
    }
    expect(res.status).toBe(200)
    expect(res.body.verificationStatus).toBe(expected)
    expect(res.body.errors.length > 0).toBe(expected === "RESOLVE_ERRORS")
  }
  override toString = () => `Submit(${this.pick})`
}

const suffix = fc.constantFrom(...SUFFIXES)
/** Small picks: commands cluster on a few customers, as a real onboarding does. */
const pick = fc.nat({ max: 3 })
/** Mostly complete packets, so that submissions reach every row of the tables. */
const mostly = fc.oneof({ weight: 3, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
const commands = [
  fc.tuple(suffix, mostly).map(([s, c]) => new CreateIndividual(s, c)),
  suffix.map((s) => new CreateBusiness(s)),
  fc.tuple(pick, suffix, mostly).map(([p, s, c]) => new Patch(p, s, c)),
  fc.tuple(pick, fc.constantFrom(...IDENTITY), fc.nat({ max: 5 })).map(([p, t, b]) => new Upload(p, t, b === 0)),
  fc.tuple(pick, fc.constantFrom(...IDENTITY)).map(([p, t]) => new Upload(p, t, false)),
  fc.tuple(pick, pick).map(([p, d]) => new Replace(p, d)),
  fc.tuple(pick, suffix).map(([p, s]) => new AddOwner(p, s)),
  pick.map((p) => new Submit(p)),
  pick.map((p) => new Submit(p)),
  pick.map((p) => new Submit(p))
]

describe("KYC and KYB model", () => {
  it.each(Object.keys(platforms) as Array<keyof typeof platforms>)("%s platform: the service agrees with the model", async (settingName) => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 40, size: "large" }), async (cmds) => {
        const model: Model = { settingName, customers: [] }
        const real: Real = { platform: platforms[settingName], ids: [], docIds: [] }
        const finals: Array<[number, Status]> = []
        await fc.asyncModelRun(() => ({ model, real }), [...cmds].map((cmd) => ({
          check: (m: Readonly<Model>) => cmd.check(m),
          run: async (m: Model, r: Real) => {
            await cmd.run(m, r)
            await agree(m, r)
            // Once final, always final: recorded finals still hold.
            for (const [i, s] of finals) expect(m.customers[i]!.status).toBe(s)
            for (const [i, c] of m.customers.entries()) if (FINAL.has(c.status) && !finals.some(([j]) => j === i)) finals.push([i, c.status])
          },
          toString: () => cmd.toString()
        })))
      }),
      { numRuns: NUM_RUNS }
    )
  }, 60_000)
})
