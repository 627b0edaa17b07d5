/**
 * `keptDocOf` (src/adapters/sql/documents.ts): a document a payment reads again and again
 * (a customer, an account) parsed once per text, its record shared frozen. The same text
 * gives the same record; a changed row (another text) a record of its own; nobody holding
 * a shared record can change what the next reader gets.
 */
import { describe, expect, it } from "vitest"
import { docOf, keptDocOf } from "../../src/adapters/sql/documents.js"

interface Doc {
  readonly id: string
  readonly status: string
  readonly tags: ReadonlyArray<string>
  readonly nested: { readonly amount: number }
}

const textOf = (status: string) => JSON.stringify({ id: `Customer:kept-docs-${status}`, status, tags: ["a", "b"], nested: { amount: 7 } })

describe("keptDocOf", () => {
  it("gives the record docOf gives, the same one for the same text", () => {
    const text = textOf("ACTIVE")
    const first = keptDocOf<Doc>(text)
    expect(first).toEqual(docOf<Doc>({ doc: text }))
    // A text equal to the first but built apart (as the driver builds each row's): the same record.
    const again = keptDocOf<Doc>(textOf(["ACT", "IVE"].join("")))
    expect(again).toBe(first)
  })

  it("gives a changed row's text a record of its own", () => {
    const before = keptDocOf<Doc>(textOf("PENDING"))
    const after = keptDocOf<Doc>(textOf("CLOSED"))
    expect(after).not.toBe(before)
    expect(after.status).toBe("CLOSED")
    expect(keptDocOf<Doc>(textOf("PENDING")).status).toBe("PENDING")
  })

  it("shares records frozen through, so no reader changes another's", () => {
    const text = textOf("FROZEN")
    const record = keptDocOf<Doc>(text)
    expect(Object.isFrozen(record)).toBe(true)
    expect(Object.isFrozen(record.tags)).toBe(true)
    expect(Object.isFrozen(record.nested)).toBe(true)
    expect(Reflect.set(record.nested, "amount", 8)).toBe(false)
    expect(Reflect.set(record, "status", "CHANGED")).toBe(false)
    expect(keptDocOf<Doc>(text).nested.amount).toBe(7)
  })
})
