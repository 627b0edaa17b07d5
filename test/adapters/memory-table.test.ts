/**
 * The memory table's order under inserts that arrive out of order: rows of the same
 * millisecond order by id (random), so an insert often lands a few places before the end
 * (stepped back to) or far before it (binary search). Its order and its groups must stay
 * exactly a sort by (createdAt, id), whatever the arrival order and removals.
 */
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import { MemoryTable } from "../../src/adapters/memory/table.js"

interface Row {
  readonly id: string
  readonly at: number
  readonly group: string
}

const sorted = (rows: ReadonlyArray<Row>) => [...rows].sort((a, b) => a.at - b.at || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)).map((r) => r.id)

describe("MemoryTable order", () => {
  it("keeps (createdAt, id) order and its groups' order under any arrival order, rewrites and removals", () =>
    fc.assert(fc.property(
      fc.array(fc.record({ id: fc.integer({ min: 0, max: 60 }), at: fc.integer({ min: 0, max: 40 }), group: fc.constantFrom("a", "b"), remove: fc.boolean() }), { maxLength: 120 }),
      (ops) => {
        const table = new MemoryTable<Row>({ id: (r) => r.id, createdAt: (r) => r.at, groups: [{ name: "g", key: (r) => r.group }] })
        const model = new Map<string, Row>()
        for (const op of ops) {
          const id = `Row:${op.id}`
          const held = model.get(id)
          if (op.remove) {
            table.remove(id)
            model.delete(id)
            continue
          }
          // A row keeps its creation instant; a rewrite may move it between groups.
          const row = { id, at: held?.at ?? op.at, group: op.group }
          table.put(row)
          model.set(id, row)
        }
        const rows = [...model.values()]
        expect(table.ordered().map((r) => r.id)).toEqual(sorted(rows))
        for (const g of ["a", "b"]) expect(table.byGroup("g", g).map((r) => r.id)).toEqual(sorted(rows.filter((r) => r.group === g)))
      }
    ), { numRuns: 300 }))
})
