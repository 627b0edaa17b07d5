/**
 * The public test data under `test/fixtures/` (see its README for where each file comes
 * from, its version and its licence). The one place tests open those files: nothing in
 * the repository reads outside it.
 */
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { parse } from "yaml"

/** The absolute path of a file under `test/fixtures/`. */
export const fixturePath = (relative: string): string => fileURLToPath(new URL(`../fixtures/${relative}`, import.meta.url))

/** The reference OpenAPI file, as text. */
export const referenceYamlPath = fixturePath("reference/openapi.yaml")

let parsed: unknown

/** The reference OpenAPI file, parsed once per test file. */
export const referenceDocument = <T>(): T => {
  parsed ??= parse(readFileSync(referenceYamlPath, "utf8"))
  return parsed as T
}

/** The Wycheproof ECDSA P-256/SHA-256 (DER) vectors. */
export const wycheproofPath = fixturePath("vectors/wycheproof-ecdsa-p256-sha256-der.json")
