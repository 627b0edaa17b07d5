/**
 * Reads a document form (multipart/form-data) from the parts stream: text fields are
 * decoded with the domain schema, the `file` part is collected into memory (the parser
 * has already enforced the 10 MB limit). Every problem is a 400 in the API's shape:
 * a malformed body, an oversized part, a repeated field, an unknown field and a
 * missing file alike, with all invalid fields listed at once.
 */
import { Effect, Exit, Schema, Stream } from "effect"
import { Multipart } from "effect/http"
import { MAX_DOCUMENT_BYTES, type UploadedFile } from "../domain/document.js"
import { type Error400, type FieldError, invalidInput } from "../domain/errors.js"
import { fieldErrors } from "../domain/validation.js"

/** How a form's file limit is stated in its 400 (documents: 10 MB; bulk CSV: MAX_BULK_CSV_BYTES). */
interface FileLimit {
  /** The 400's reason. */
  readonly reason: string
  /** Its field error's message. */
  readonly message: string
}

const DOCUMENT_FILE_LIMIT: FileLimit = {
  reason: `The file is larger than the ${MAX_DOCUMENT_BYTES} byte (10 MB) limit`,
  message: `must be at most ${MAX_DOCUMENT_BYTES} bytes (10 MB)`
}

const multipartError = (e: Multipart.MultipartError, limit: FileLimit = DOCUMENT_FILE_LIMIT): Error400 => {
  switch (e.reason._tag) {
    case "FileTooLarge":
      return invalidInput(limit.reason, [{ field: "file", constraint: "maxBytes", message: limit.message }])
    case "FieldTooLarge":
      return invalidInput("A form field is too large", [{ field: "(body)", constraint: "maxFieldBytes", message: "text fields must be at most 64 KB" }])
    case "BodyTooLarge":
      return limit === DOCUMENT_FILE_LIMIT
        ? invalidInput("The request body is too large", [{ field: "(body)", constraint: "maxBytes", message: "the form must be at most 11 MB" }])
        : invalidInput(limit.reason, [{ field: "file", constraint: "maxBytes", message: limit.message }])
    case "TooManyParts":
      return invalidInput("The form has too many parts", [{ field: "(body)", constraint: "maxParts", message: "the form must have at most 16 parts" }])
    case "Parse":
    case "InternalError":
      return invalidInput("The request body is not valid multipart/form-data", [{
        field: "(body)",
        constraint: "multipart",
        message: "must be multipart/form-data with a boundary, one part per field and a `file` part"
      }])
  }
}

interface Collected {
  readonly fields: Record<string, string>
  readonly file: UploadedFile | undefined
  readonly problems: ReadonlyArray<FieldError>
}

const collect = (parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>) =>
  Effect.gen(function*() {
    const fields: Record<string, string> = {}
    const problems: Array<FieldError> = []
    let file: UploadedFile | undefined
    yield* Stream.runForEach(parts, (part) =>
      Effect.gen(function*() {
        if (part._tag === "Field") {
          if (part.key === "file") {
            problems.push({ field: "file", constraint: "file", message: "must be a file part (with a filename), not a text field" })
          } else if (Object.hasOwn(fields, part.key)) {
            problems.push({ field: part.key, constraint: "single", message: "must be sent once" })
          } else {
            fields[part.key] = part.value
          }
          return
        }
        if (part._tag !== "File") return
        if (part.key !== "file") {
          yield* Stream.runDrain(part.content)
          problems.push({ field: part.key, constraint: "unexpected", message: "is not an allowed file part; send the document as `file`" })
          return
        }
        const bytes = yield* part.contentEffect
        if (file !== undefined) {
          problems.push({ field: "file", constraint: "single", message: "must be sent once" })
          return
        }
        file = { fileName: part.name, contentType: part.contentType, bytes }
      }))
    return { fields, file, problems } satisfies Collected
  })

/** Reads and validates a document form; fails with one 400 listing every problem. */
export const readDocumentForm = <A>(
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  schema: Schema.Codec<A, Record<string, string>, never, never> | Schema.Decoder<A, never>
): Effect.Effect<{ readonly fields: A; readonly file: UploadedFile }, Error400> =>
  Effect.gen(function*() {
    const form = yield* collect(parts).pipe(Effect.mapError(multipartError))
    const problems: Array<FieldError> = [...form.problems]
    const decoded = Schema.decodeUnknownExit(schema, { errors: "all", onExcessProperty: "error" })(form.fields)
    if (Exit.isFailure(decoded)) {
      const failure = decoded.cause.reasons.find((r) => r._tag === "Fail")
      if (failure !== undefined && failure._tag === "Fail" && Schema.isSchemaError(failure.error)) {
        problems.push(...fieldErrors(failure.error.issue, form.fields))
      } else {
        problems.push({ field: "(body)", constraint: "invalid", message: "is not a valid document form" })
      }
    }
    if (form.file === undefined && !problems.some((p) => p.field === "file")) {
      problems.push({ field: "file", constraint: "required", message: "is required: a JPEG, PNG or PDF file part named `file`" })
    }
    if (problems.length > 0 || form.file === undefined || Exit.isFailure(decoded)) {
      const first = problems[0]
      return yield* invalidInput(
        problems.length === 1 && first !== undefined
          ? `Invalid document form: ${first.field} ${first.message}`
          : `Invalid document form: ${problems.length} fields are invalid (see details.errors)`,
        problems
      )
    }
    return { fields: decoded.value, file: form.file }
  })

/**
 * Reads a form whose only part is `file` (the bulk customer CSV): the file's bytes, or
 * one 400 listing every problem (a text field, another part, a missing or repeated file).
 */
export const readFileOnlyForm = (
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  maxBytes: number
): Effect.Effect<UploadedFile, Error400> =>
  Effect.gen(function*() {
    const limit: FileLimit = { reason: `The file is larger than the ${maxBytes} byte limit`, message: `must be at most ${maxBytes} bytes` }
    const form = yield* collect(parts).pipe(Effect.mapError((e) => multipartError(e, limit)))
    const problems: Array<FieldError> = [...form.problems]
    for (const key of Object.keys(form.fields)) problems.push({ field: key, constraint: "unexpected", message: "is not a field of this form: send only `file`" })
    if (form.file === undefined && !problems.some((p) => p.field === "file")) {
      problems.push({ field: "file", constraint: "required", message: "is required: a CSV file part named `file`" })
    }
    if (form.file !== undefined && form.file.bytes.byteLength > maxBytes) {
      problems.push({ field: "file", constraint: "maxBytes", message: limit.message })
    }
    const first = problems[0]
    if (first !== undefined || form.file === undefined) {
      return yield* invalidInput(
        problems.length === 1 && first !== undefined ? `Invalid form: ${first.field} ${first.message}` : `Invalid form: ${problems.length} problems (see details.errors)`,
        problems
      )
    }
    return form.file
  })
