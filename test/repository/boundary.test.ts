/**
 * A clone is all a user has: nothing in src, test, bench or examples may read outside the
 * repository (the team's `shared` folder beside it, or a path of one machine). Public test
 * data lives in test/fixtures/ (see its README).
 */
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"

const root = fileURLToPath(new URL("../..", import.meta.url))
const AREAS = ["src", "test", "bench", "examples", ".ci"]
const SOURCE = /\.(ts|js|mjs|cjs|sh)$|^run$/

const filesUnder = (dir: string): Array<string> =>
  readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    if (name === "node_modules" || name === "fixtures") return []
    return statSync(path).isDirectory() ? filesUnder(path) : SOURCE.test(name) ? [path] : []
  })

// Built from parts so this file does not match itself.
const SHARED = "sha" + "red"
const OUTSIDE = [
  new RegExp(String.raw`(\.\./)+` + SHARED + "/"),
  new RegExp(String.raw`["'\x60]/(work|root|home|tmp/[a-z]+)/` + SHARED),
  new RegExp(String.raw`["'\x60]/work/`)
]

describe("the repository boundary", () => {
  it("no source, test, bench, example or CI file names a path outside the repository", () => {
    const offenders: Array<string> = []
    for (const area of AREAS) {
      for (const file of filesUnder(join(root, area))) {
        readFileSync(file, "utf8").split("\n").forEach((line, i) => {
          if (OUTSIDE.some((re) => re.test(line))) offenders.push(`${relative(root, file)}:${i + 1}: ${line.trim()}`)
        })
      }
    }
    expect(offenders).toEqual([])
  })

  it("catches the forms it is meant to catch", () => {
    const bad = [`new URL("../../../${SHARED}/reference/openapi.yaml", import.meta.url)`, `const REFERENCE = "/wo` + `rk/${SHARED}/x.yaml"`]
    for (const line of bad) expect(OUTSIDE.some((re) => re.test(line)), line).toBe(true)
    expect(OUTSIDE.some((re) => re.test(`import { onboard } from "./${SHARED}/onboard.js"`))).toBe(false)
  })
})
