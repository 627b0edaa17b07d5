/** File checks by content: magic bytes, end markers, claims and limits. */
import { describe, expect, it } from "vitest"
import { checkDocumentFile, checkDocumentMetadata, isComplete, MAX_DOCUMENT_BYTES, sniff } from "../../src/rules/documents.js"
import { files } from "../support/onboarding-client.js"

describe("sniff", () => {
  it("recognises JPEG, PNG and PDF by content", () => {
    expect(sniff(files.jpeg().bytes)).toBe("JPEG")
    expect(sniff(files.png().bytes)).toBe("PNG")
    expect(sniff(files.pdf().bytes)).toBe("PDF")
    expect(sniff(new TextEncoder().encode("GIF89a"))).toBeUndefined()
    expect(sniff(new Uint8Array([0xff, 0xd8]))).toBeUndefined()
  })

  it("a file without its end marker is incomplete", () => {
    const png = files.png().bytes
    expect(isComplete("PNG", png)).toBe(true)
    expect(isComplete("PNG", png.slice(0, -1))).toBe(false)
    expect(isComplete("PDF", new TextEncoder().encode("%PDF-1.7\n"))).toBe(false)
  })
})

describe("checkDocumentFile", () => {
  it("accepts a file whose claims agree with its content", () => {
    expect(checkDocumentFile({ ...files.pdf(), fileName: "a.pdf", contentType: "application/pdf" })).toEqual({ ok: true, value: { kind: "PDF", mediaType: "application/pdf" } })
    expect(checkDocumentFile({ fileName: "scan", contentType: "application/octet-stream", bytes: files.png().bytes }).ok).toBe(true)
  })

  it.each([
    ["empty", { fileName: "a.jpg", contentType: "image/jpeg", bytes: new Uint8Array() }, "INCOMPLETE"],
    ["not an image", { fileName: "a.jpg", contentType: "image/jpeg", bytes: new TextEncoder().encode("hello") }, "UNSUITABLE_DOCUMENT"],
    ["PNG claimed as JPEG", { fileName: "a.jpg", contentType: "image/jpeg", bytes: files.png().bytes }, "UNSUITABLE_DOCUMENT"],
    ["PDF named .png", { fileName: "a.png", contentType: "", bytes: files.pdf().bytes }, "UNSUITABLE_DOCUMENT"],
    ["truncated JPEG", { fileName: "a.jpg", contentType: "image/jpeg", bytes: files.jpeg().bytes.slice(0, -2) }, "INCOMPLETE"],
    ["over 10 MB", { fileName: "a.jpg", contentType: "image/jpeg", bytes: new Uint8Array(MAX_DOCUMENT_BYTES + 1) }, "INVALID_INPUT"]
  ] as const)("refuses %s with %s", (_label, file, code) => {
    const r = checkDocumentFile(file)
    expect(r.ok).toBe(false)
    if (!r.ok) expect(r.error.code).toBe(code)
  })
})

describe("checkDocumentMetadata", () => {
  it("refuses person documents for businesses and business documents for people", () => {
    expect(checkDocumentMetadata({ kind: "BUSINESS" }, { documentType: "PASSPORT" }, false).ok).toBe(false)
    expect(checkDocumentMetadata({ kind: "BENEFICIAL_OWNER" }, { documentType: "SHAREHOLDER_REGISTER" }, false).ok).toBe(false)
    expect(checkDocumentMetadata({ kind: "INDIVIDUAL" }, { documentType: "UTILITY_BILL" }, false).ok).toBe(true)
  })

  it("sandbox document-number suffixes apply only on sandbox platforms", () => {
    const r = checkDocumentMetadata({ kind: "INDIVIDUAL" }, { documentType: "PASSPORT", documentNumber: "A912" }, true)
    expect(r.ok ? undefined : r.error.code).toBe("EXPIRED")
    expect(checkDocumentMetadata({ kind: "INDIVIDUAL" }, { documentType: "PASSPORT", documentNumber: "A912" }, false).ok).toBe(true)
  })
})
