/**
 * The bounded memo every small cache of the process uses (src/lib/bounded-memo.ts): it
 * never holds more than its limit, always answers what the compute function answers, and
 * forgets the oldest entry first; held to a plain model for generated runs of operations.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { BoundedMemo, memoize } from "../../src/lib/bounded-memo.js"

type Op =
  | { readonly op: "compute"; readonly key: number }
  | { readonly op: "set"; readonly key: number; readonly value: string }
  | { readonly op: "delete"; readonly key: number }
  | { readonly op: "clear" }

const key = fc.integer({ min: 0, max: 12 })
const op: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: key.map((k) => ({ op: "compute" as const, key: k })) },
  { weight: 3, arbitrary: fc.tuple(key, fc.string({ maxLength: 3 })).map(([k, value]) => ({ op: "set" as const, key: k, value })) },
  { weight: 1, arbitrary: key.map((k) => ({ op: "delete" as const, key: k })) },
  { weight: 1, arbitrary: fc.constant({ op: "clear" as const }) }
)

/** The memo's contents as a model: keys in insertion order with their values. */
type Model = Array<readonly [number, string]>

describe("BoundedMemo", () => {
  it("never holds more than its limit, answers what compute answers, and forgets the oldest first (against a model)", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 6 }), fc.array(op, { maxLength: 80 }), (limit, ops) => {
        const memo = new BoundedMemo<number, string>(limit)
        let model: Model = []
        let computed = 0
        const compute = (k: number) => {
          computed++
          return `v${k}`
        }
        for (const o of ops) {
          switch (o.op) {
            case "compute": {
              const before = computed
              const answer = memo.getOrCompute(o.key, compute)
              const held = model.find(([k]) => k === o.key)
              // A remembered value (as set or computed), else exactly what compute answers, computed once.
              expect(answer).toBe(held === undefined ? `v${o.key}` : held[1])
              expect(computed - before).toBe(held === undefined ? 1 : 0)
              if (held === undefined) {
                if (model.length >= limit) model = model.slice(1)
                model.push([o.key, answer])
              }
              break
            }
            case "set": {
              memo.set(o.key, o.value)
              const at = model.findIndex(([k]) => k === o.key)
              if (at >= 0) model[at] = [o.key, o.value]
              else {
                if (model.length >= limit) model = model.slice(1)
                model.push([o.key, o.value])
              }
              break
            }
            case "delete":
              expect(memo.delete(o.key)).toBe(model.some(([k]) => k === o.key))
              model = model.filter(([k]) => k !== o.key)
              break
            case "clear":
              memo.clear()
              model = []
          }
          expect(memo.size).toBeLessThanOrEqual(limit)
          expect(memo.size).toBe(model.length)
          for (let k = 0; k <= 12; k++) expect(memo.get(k)).toBe(model.find(([m]) => m === k)?.[1])
        }
      }),
      { numRuns: 300 }
    )
  })

  it("memoize answers what the function answers, for any keys, and keeps at most its limit", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 8 }), fc.array(fc.string({ maxLength: 4 }), { maxLength: 100 }), (limit, keys) => {
        let calls = 0
        const f = (k: string) => {
          calls++
          return `${k.length}:${k}`
        }
        const memo = memoize(limit, f)
        // The keys it should hold, oldest first: a key it forgot is computed again.
        let held: Array<string> = []
        for (const k of keys) {
          const before = calls
          expect(memo(k)).toBe(`${k.length}:${k}`)
          expect(calls - before).toBe(held.includes(k) ? 0 : 1)
          if (!held.includes(k)) held = [...held, k].slice(-limit)
        }
      }),
      { numRuns: 200 }
    )
  })

  it("runs compute again when it answered undefined (never remembered)", () => {
    const memo = new BoundedMemo<string, number>(4)
    let runs = 0
    const none = (_: string): number | undefined => {
      runs++
      return undefined
    }
    expect(memo.getOrCompute("a", none)).toBeUndefined()
    expect(memo.getOrCompute("a", none)).toBeUndefined()
    expect(runs).toBe(2)
    expect(memo.size).toBe(0)
  })

  it("keeps the newest entries when full, one eviction per insertion", () => {
    const memo = new BoundedMemo<string, number>(2)
    memo.set("a", 1)
    memo.set("b", 2)
    expect(memo.get("a")).toBe(1)
    memo.set("c", 3)
    expect(memo.get("a")).toBeUndefined()
    expect(memo.get("b")).toBe(2)
    expect(memo.get("c")).toBe(3)
    // Written again: its value replaced, nothing forgotten.
    memo.set("b", 20)
    expect(memo.size).toBe(2)
    expect(memo.get("c")).toBe(3)
  })

  it("refuses a limit that is not a positive integer", () => {
    for (const limit of [0, -1, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) expect(() => new BoundedMemo(limit)).toThrow(RangeError)
  })
})
