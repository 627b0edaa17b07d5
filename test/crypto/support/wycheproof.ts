import { readFileSync } from "node:fs"
import { wycheproofPath } from "../../support/fixtures.js"

export interface WycheproofCase {
  readonly tcId: number
  readonly comment: string
  readonly flags: readonly string[]
  readonly msg: string
  readonly sig: string
  readonly result: "valid" | "invalid" | "acceptable"
}

export interface WycheproofGroup {
  readonly publicKey: { readonly uncompressed: string }
  readonly sha: string
  readonly tests: readonly WycheproofCase[]
}

export interface WycheproofFile {
  readonly numberOfTests: number
  readonly testGroups: readonly WycheproofGroup[]
}

/** The vectors, copied into test/fixtures/ (see its README for their origin and licence). */
export { wycheproofPath }

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null

const isCase = (value: unknown): value is WycheproofCase =>
  isRecord(value) &&
  typeof value["tcId"] === "number" &&
  typeof value["comment"] === "string" &&
  Array.isArray(value["flags"]) &&
  typeof value["msg"] === "string" &&
  typeof value["sig"] === "string" &&
  (value["result"] === "valid" || value["result"] === "invalid" || value["result"] === "acceptable")

const isGroup = (value: unknown): value is WycheproofGroup =>
  isRecord(value) &&
  isRecord(value["publicKey"]) &&
  typeof value["publicKey"]["uncompressed"] === "string" &&
  typeof value["sha"] === "string" &&
  Array.isArray(value["tests"]) &&
  value["tests"].every(isCase)

const isFile = (value: unknown): value is WycheproofFile =>
  isRecord(value) && typeof value["numberOfTests"] === "number" && Array.isArray(value["testGroups"]) && value["testGroups"].every(isGroup)

export const loadWycheproof = (): WycheproofFile => {
  const parsed: unknown = JSON.parse(readFileSync(wycheproofPath, "utf8"))
  if (!isFile(parsed)) throw new Error(`${wycheproofPath} is not an ECDSA verify vector file`)
  return parsed
}
