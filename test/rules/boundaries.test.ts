/**
 * The rules know no HTTP and no I/O (docs/architecture.md): every file under src/rules
 * imports only the domain, other rules and libraries. A refusal is a `Rejection` (a code
 * and a reason as data); which HTTP status a code answers with is operations/rejection.ts's.
 */
import { readdirSync, readFileSync } from "node:fs"
import { dirname, join, relative, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src")
const RULES = join(SRC, "rules")

const filesUnder = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? filesUnder(join(dir, e.name)) : e.name.endsWith(".ts") ? [join(dir, e.name)] : []
  )

interface Import {
  readonly file: string
  /** The names the statement brings in (empty for `import * as` and side-effect imports). */
  readonly names: ReadonlyArray<string>
  /** The imported module, resolved to a path under src/ when relative. */
  readonly target: string
}

const IMPORT = /(?:^|\n)\s*(?:import|export)\s+(?:type\s+)?([\s\S]*?)\s*from\s*["']([^"']+)["']/g
const DYNAMIC = /\bimport\(\s*["']([^"']+)["']\s*\)/g

const importsOf = (file: string): ReadonlyArray<Import> => {
  const text = readFileSync(file, "utf8")
  const target = (spec: string) => spec.startsWith(".") ? relative(SRC, resolve(dirname(file), spec)) : spec
  const found: Array<Import> = []
  for (const m of text.matchAll(IMPORT)) {
    const clause = m[1] ?? ""
    const braces = /\{([\s\S]*)\}/.exec(clause)
    const names = braces === null ? [] : braces[1]!.split(",").map((n) => n.trim().replace(/^type\s+/, "").split(/\s+as\s+/)[0]!).filter((n) => n !== "")
    found.push({ file: relative(SRC, file), names, target: target(m[2]!) })
  }
  for (const m of text.matchAll(DYNAMIC)) found.push({ file: relative(SRC, file), names: [], target: target(m[1]!) })
  return found
}

const ruleImports = filesUnder(RULES).flatMap(importsOf)

/** What domain/errors.ts exports that speaks HTTP: the per-status classes, their union and table, and their constructors. */
const HTTP_ERROR_NAME = /^(Error\d{3}|ApiError|API_ERRORS|apiErrorStatus|encodeApiError|invalidInput|badRequest|unauthorized|forbidden|notFound|conflict|locked|tooMany|internalError|unavailable|gone)$/

describe("rules know no HTTP", () => {
  it("the scan sees the rules' imports (so the checks below can fail)", () => {
    expect(ruleImports.length).toBeGreaterThan(50)
    expect(ruleImports.some((i) => i.target === "rules/result.js")).toBe(true)
  })

  it("no file under src/rules imports an HTTP error class or constructor", () => {
    const offending = ruleImports.filter((i) => i.target === "domain/errors.js" && i.names.some((n) => HTTP_ERROR_NAME.test(n)))
    expect(offending.map((i) => `${i.file}: ${i.names.join(", ")}`)).toEqual([])
  })

  it("only rules/rejection.ts reads domain/errors.ts, and only for the codes", () => {
    const readers = ruleImports.filter((i) => i.target === "domain/errors.js")
    expect(readers.map((i) => [i.file, i.names])).toEqual([["rules/rejection.ts", ["ErrorCode"]]])
  })

  it("no file under src/rules imports from src/http, src/operations, src/ports or src/adapters", () => {
    const offending = ruleImports.filter((i) => /^(http|operations|ports|adapters)\//.test(i.target))
    expect(offending.map((i) => `${i.file} -> ${i.target}`)).toEqual([])
  })

  it("no file under src/rules imports an HTTP library", () => {
    const offending = ruleImports.filter((i) => /^(effect\/unstable\/http|@effect\/platform|node:http)/.test(i.target))
    expect(offending.map((i) => `${i.file} -> ${i.target}`)).toEqual([])
  })
})

describe("one way to emit and schedule", () => {
  const ONE_WAY = "operations/transition.ts"
  const callers = ["operations", "http", "server"].flatMap((dir) => filesUnder(join(SRC, dir)))
    .filter((file) => relative(SRC, file) !== ONE_WAY)
    .flatMap((file) =>
      readFileSync(file, "utf8").split("\n").flatMap((line, i) =>
        /\.emit\(|\.schedule\(|\bmakeEvent\(/.test(line) ? [`${relative(SRC, file)}:${i + 1}: ${line.trim()}`] : []
      )
    )
  it("the helper itself is what the scan looks for", () => {
    expect(readFileSync(join(SRC, ONE_WAY), "utf8")).toMatch(/uow\.schedule\(/)
  })
  it("no operation builds an event envelope or a timer itself (operations/transition.ts does: eventOf, emit, schedule)", () => {
    expect(callers).toEqual([])
  })
})
