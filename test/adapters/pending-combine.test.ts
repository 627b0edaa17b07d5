/**
 * `combine` (src/adapters/sql/pending.ts): a unit of work's pending writes as one
 * statement, each a common table expression with its `$n` renumbered after the
 * parameters of the parts before it. Its text depends only on the shape (the parts'
 * texts and parameter counts, in order, and the main statement's): built once per shape
 * and kept, so a shape seen again costs no renumbering. Checked here against a plain
 * renumbering written out, for shapes that differ in order, in counts, and in their main
 * statement (the module's cache is shared by the other files of the worker: only
 * differences of `combinedTextsBuilt` are compared, on texts no other file sends).
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { combine, combinedTextsBuilt, type PendingStatement } from "../../src/adapters/sql/pending.js"

/** The combined statement as a plain renumbering, part by part, gives it. */
const expected = (statements: ReadonlyArray<PendingStatement>, main?: PendingStatement) => {
  let offset = 0
  const renumbered = (s: PendingStatement) => {
    const shift = offset
    offset += s.params.length
    return s.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + shift}`)
  }
  const parts = statements.map((s, i) => `w${i} as (${renumbered(s)})`)
  return {
    text: `with ${parts.join(",\n")}\n${main === undefined ? "select 1" : renumbered(main)}`,
    params: [...statements.flatMap((s) => s.params), ...(main?.params ?? [])]
  }
}

const insertA = (a: number, b: string): PendingStatement => ({ text: "insert into pending_combine_a (x, y) values ($1, $2::text)", params: [a, b] })
const updateB = (id: string, by: number): PendingStatement => ({ text: "update pending_combine_b set n = n + $2 where id = $1", params: [id, by] })
const check = (p: string): PendingStatement => ({ text: "select coalesce((select 1 from pending_combine_c where p = $1), 0) as ok", params: [p] })

describe("combine: one statement of the pending writes, its text kept per shape", () => {
  it("renumbers each part's parameters after those before it, and passes the values in that order", () => {
    const one = combine([insertA(1, "a"), updateB("b", 2)], check("c"))
    expect(one.text).toBe(
      "with w0 as (insert into pending_combine_a (x, y) values ($1, $2::text)),\n" +
        "w1 as (update pending_combine_b set n = n + $4 where id = $3)\n" +
        "select coalesce((select 1 from pending_combine_c where p = $5), 0) as ok"
    )
    expect(one.params).toEqual([1, "a", "b", 2, "c"])
  })

  it("follows a part with its `also` statement: the part's rows as {self}, the part's numbering continued", () => {
    const entry: PendingStatement = {
      text: "insert into pending_combine_a (x, y) values ($1, $2::text) returning x",
      params: [1, "a", "[1]"],
      also: "insert into pending_combine_d (x, z) select e.x, $3::json from {self} e"
    }
    const one = combine([updateB("b", 2), entry], check("c"))
    expect(one.text).toBe(
      "with w0 as (update pending_combine_b set n = n + $2 where id = $1),\n" +
        "w1 as (insert into pending_combine_a (x, y) values ($3, $4::text) returning x),\n" +
        "w1a as (insert into pending_combine_d (x, z) select e.x, $5::json from w1 e)\n" +
        "select coalesce((select 1 from pending_combine_c where p = $6), 0) as ok"
    )
    expect(one.params).toEqual(["b", 2, 1, "a", "[1]", "c"])
    // Alone, it is still a statement of two parts; the same text without `also` is another shape.
    expect(combine([entry]).text).toBe(
      "with w0 as (insert into pending_combine_a (x, y) values ($1, $2::text) returning x),\n" +
        "w0a as (insert into pending_combine_d (x, z) select e.x, $3::json from w0 e)\nselect 1"
    )
    const plain: PendingStatement = { text: entry.text, params: entry.params }
    expect(combine([plain, updateB("b", 2)]).text).not.toBe(combine([entry, updateB("b", 2)]).text)
  })

  it("builds a shape's text once: the same shape with other values reuses it", () => {
    const before = combinedTextsBuilt()
    const first = combine([updateB("shape-once", 1), insertA(1, "x"), updateB("other", 3)])
    const built = combinedTextsBuilt()
    expect(built).toBe(before + 1)
    const again = combine([updateB("shape-once-2", 7), insertA(9, "y"), updateB("z", 4)])
    expect(combinedTextsBuilt()).toBe(built)
    expect(again.text).toBe(first.text)
    expect(again.params).toEqual(["shape-once-2", 7, 9, "y", "z", 4])
    // The values of one call never leak into the next's.
    expect(first.params).toEqual(["shape-once", 1, 1, "x", "other", 3])
  })

  it("gives different shapes different texts: order, a part's parameter count, the main statement or none", () => {
    const texts = [
      combine([insertA(1, "a"), updateB("b", 2)]).text,
      combine([updateB("b", 2), insertA(1, "a")]).text,
      combine([insertA(1, "a"), updateB("b", 2)], check("c")).text,
      combine([{ text: insertA(1, "a").text, params: [1, "a", "unused"] }, updateB("b", 2)]).text,
      combine([insertA(1, "a"), insertA(2, "b")]).text
    ]
    expect(new Set(texts).size).toBe(texts.length)
  })

  it("agrees with a plain renumbering for any sequence of parts, seen once or again", () => {
    const parts = [insertA(1, "a"), updateB("b", 2), { text: "delete from pending_combine_d where k = $1 and $1 <> $2", params: ["k", "l"] }]
    fc.assert(
      fc.property(
        fc.array(fc.nat({ max: parts.length - 1 }), { minLength: 1, maxLength: 6 }),
        fc.boolean(),
        fc.array(fc.integer(), { minLength: 6, maxLength: 6 }),
        (picks, withMain, values) => {
          const statements = picks.map((i, n) => ({ ...parts[i]!, params: parts[i]!.params.map((_, j) => values[(n + j) % values.length]) }))
          const main = withMain ? check(`m${values[0]}`) : undefined
          if (statements.length === 1 && main === undefined) {
            expect(combine(statements, main)).toBe(statements[0])
            return
          }
          const got = combine(statements, main)
          expect(got).toEqual(expected(statements, main))
          const built = combinedTextsBuilt()
          expect(combine(statements, main)).toEqual(expected(statements, main))
          expect(combinedTextsBuilt()).toBe(built)
        }
      ),
      { numRuns: 200 }
    )
  })
})
