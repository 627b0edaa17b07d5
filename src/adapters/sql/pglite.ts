/**
 * An effect/sql `SqlClient` over PGlite (PostgreSQL compiled to WebAssembly, no
 * server), so the embedded on-disk store is the same SQL adapter, dialect and
 * migrations as PostgreSQL.
 *
 * `@effect/sql-pglite` (4.0.0-beta.93, its newest release) imports a module path that
 * Effect 4.1 no longer has, so this is a small client of our own built with
 * `SqlClient.make` and the PostgreSQL statement compiler of `@effect/sql-pg`. PGlite is
 * one connection: statements and transactions take turns through a semaphore
 * (`makeSqliteAcquirers`, which does exactly that for any one-connection database).
 */
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmdirSync, statSync, unlinkSync, writeSync } from "node:fs"
import { join } from "node:path"
import { concatBytes } from "../../crypto/bytes.js"
import { messages as pgMessages, parse as pgliteParse, PGlite, protocol, types as pgTypes } from "@electric-sql/pglite"
import { PgClient } from "@effect/sql-pg"
import { Context, Effect, Layer, Semaphore, Stream } from "effect"
import { Reactivity } from "effect/reactivity"
import { SqlClient, SqlError as SqlErrors } from "effect/sql"
import type { SqlConnection } from "effect/sql"

const { SqlError, UniqueViolation, SerializationError, DeadlockError, UnknownError, ConstraintError } = SqlErrors

interface PgliteFailure {
  readonly code?: unknown
  readonly constraint?: unknown
  readonly message?: unknown
}

const failureOf = (u: unknown): PgliteFailure => (typeof u === "object" && u !== null ? u : {})

/** A PGlite error as effect/sql's SqlError, classified by SQLSTATE like the pg driver does. */
const classify = (cause: unknown, operation: string): SqlErrors.SqlError => {
  const f = failureOf(cause)
  const code = typeof f.code === "string" ? f.code : ""
  const message = typeof f.message === "string" ? f.message : "PGlite query failed"
  const constraint = typeof f.constraint === "string" ? f.constraint : ""
  if (code === "23505") return new SqlError({ reason: new UniqueViolation({ cause, message, operation, constraint }) })
  if (code === "40001") return new SqlError({ reason: new SerializationError({ cause, message, operation }) })
  if (code === "40P01") return new SqlError({ reason: new DeadlockError({ cause, message, operation }) })
  if (code.startsWith("23")) return new SqlError({ reason: new ConstraintError({ cause, message, operation }) })
  return new SqlError({ reason: new UnknownError({ cause, message, operation }) })
}

/** A message PGlite answers with. */
type PgliteMessage = Parameters<typeof pgliteParse.parseDescribeStatementResults>[0][number]

/** A statement's rows: objects, or arrays when asked for values. */
interface Answer {
  readonly rows: ReadonlyArray<Record<string, unknown>>
  readonly values: ReadonlyArray<ReadonlyArray<unknown>>
}

/** How many named statements the connection keeps (least recently used closed first). */
const MAX_PREPARED = 256


/**
 * A Bind message of a named statement with text parameters (null for SQL NULL) and text
 * results: what `protocol.serialize.bind({ statement, values })` writes. That serializer
 * is written for browsers too and measures and writes UTF-8 one character at a time in
 * JavaScript: about a tenth of the client's CPU on a payment's 12 KB of parameters
 * (events, documents). Node's Buffer does both natively. No parameter format codes and
 * no result format codes mean text for all (the protocol's default). `before` and `after`
 * (other messages of the call) are written into the same buffer, before and after it.
 */
export const bindMessage = (
  statement: string,
  values: ReadonlyArray<string | null>,
  before: ReadonlyArray<Uint8Array> = [],
  after?: Uint8Array
): Uint8Array => {
  // Length field, empty portal's NUL, statement and its NUL, 0 parameter format codes, count, 0 result format codes.
  let size = 4 + 1 + Buffer.byteLength(statement) + 1 + 2 + 2 + 2
  for (const value of values) size += 4 + (value === null ? 0 : Buffer.byteLength(value))
  let start = 0
  for (const frame of before) start += frame.length
  const frame = Buffer.allocUnsafe(start + 1 + size + (after === undefined ? 0 : after.length))
  start = 0
  for (const part of before) {
    frame.set(part, start)
    start += part.length
  }
  frame[start] = 0x42
  frame.writeInt32BE(size, start + 1)
  let at = start + 5
  frame[at++] = 0
  at += frame.write(statement, at, "utf8")
  frame[at++] = 0
  frame.writeInt16BE(0, at)
  frame.writeInt16BE(values.length, at + 2)
  at += 4
  for (const value of values) {
    if (value === null) {
      frame.writeInt32BE(-1, at)
      at += 4
    } else {
      const written = frame.write(value, at + 4, "utf8")
      frame.writeInt32BE(written, at)
      at += 4 + written
    }
  }
  frame.writeInt16BE(0, at)
  if (after !== undefined) frame.set(after, at + 2)
  return frame
}

/** Transaction control without parameters: sent as named prepared statements (`makeSession`). */
const TRANSACTION_CONTROL = /^\s*(commit|rollback|savepoint|release)\b/i

const EXECUTE = protocol.serialize.execute({})

/**
 * Execute and Sync: what follows every Bind of a prepared statement. No Describe of the
 * portal: the statement's result columns are read once, when it is prepared (text
 * results, so the statement's and the portal's descriptions are the same), and
 * PostgreSQL refuses to run a cached plan whose result columns changed (0A000), so the
 * description kept cannot go stale unnoticed. A RowDescription per execution cost
 * PostgreSQL the message and PGlite's parser a string per column.
 */
const EXECUTE_SYNC = concatBytes(protocol.serialize.execute({}), protocol.serialize.sync())

/**
 * What every call into PGlite passes: no `syncToFs`. The file systems this client opens
 * PGlite on (Node's, for a data directory, and memory) do nothing on it (their
 * `syncToFs` is empty; PostgreSQL writes the files itself, as it would natively), but
 * PGlite still takes its file-system mutex and awaits it after every call. The calls
 * that answer rows go through `execProtocolStream`: PGlite's parsed messages without the
 * raw reply, which `execProtocol` copies twice into a buffer this client never reads.
 */
const NO_SYNC = { syncToFs: false } as const

/** A result column: its name and type. */
interface Field {
  readonly name: string
  readonly dataTypeID: number
}

/**
 * Statements on PGlite, each one call into PGlite.
 *
 * `db.query` runs a statement as six calls into PGlite (Parse, Describe, Bind, Describe,
 * Execute, Sync: each a pass of PostgreSQL's main loop and a result parse in JS) and
 * parses and plans it every time (the unnamed statement). Here:
 *
 * - A statement with parameters (`execute`) is a named prepared statement: its text is
 *   parsed once per connection (its parameter types and result columns read then, to
 *   render the parameters as `db.query` does and name the columns), and each execution is
 *   Bind, Execute and Sync in one call; PostgreSQL keeps the plan (its plan cache: custom plans the first few times,
 *   then the generic plan when it costs no more). A prepared statement is the session's
 *   and outlives transactions; it holds no data, and PostgreSQL replans it when a table
 *   it reads changes (one whose result columns changed, or that the session lost, is
 *   prepared again: at once outside a transaction, else with its next run). Beyond
 *   `MAX_PREPARED` statements the least recently used are closed, with the next call.
 * - Transaction control (BEGIN, COMMIT, ROLLBACK, savepoints) is prepared too, once per
 *   connection: parsed every time, a COMMIT cost as much as a one-row insert. Another
 *   statement without parameters sent unprepared (DDL) is Parse, Bind, Describe, Execute
 *   and Sync of the unnamed statement in one call.
 * - `BEGIN` waits and goes in the same call as the transaction's first statement (a
 *   transaction that sends none, rolled back or committed, sends nothing): one call per
 *   unit of work fewer. Until then the connection counts as in a transaction.
 *
 * Values are parsed by the database's parsers (PGlite's `parseType`), as `db.query`
 * parses them; a failure throws PGlite's error (its SQLSTATE `code`), as `db.query` does.
 * A statement with parameters sent unprepared, and `executeRaw`, still go through
 * `db.query`.
 */
const makeSession = (db: PGlite) => {
  /** Named statements by text; `used` orders them for eviction (a lookup writes no Map). */
  const statements = new Map<
    string,
    { readonly name: string; readonly types: ReadonlyArray<number>; readonly fields: ReadonlyArray<Field>; used: number }
  >()
  let uses = 0
  /** Close messages of evicted statements and a waiting BEGIN: they go first in the next call. */
  const leading: Array<Uint8Array> = []
  let begin: string | undefined
  /** The transaction ended in the call of its last statement (`preparedThenCommit`): the COMMIT or ROLLBACK that follows sends nothing. */
  let ended = false
  let counter = 0

  const takeLeading = (): Array<Uint8Array> => {
    const frames = leading.splice(0)
    if (begin !== undefined) {
      const named = statements.get(begin)
      frames.push(
        ...(named === undefined
          ? [protocol.serialize.parse({ text: begin }), protocol.serialize.bind({})]
          : [bindMessage(named.name, [])]),
        EXECUTE
      )
      begin = undefined
    }
    return frames
  }

  /** The named statement of `text` if the connection holds one (marked used). */
  const lookup = (text: string) => {
    const found = statements.get(text)
    if (found !== undefined) found.used = ++uses
    return found
  }

  const prepare = async (text: string) => lookup(text) ?? (await prepareNew(text))

  const prepareNew = async (text: string) => {
    const name = `payments_${++counter}`
    const described = await db.execProtocol(
      concatBytes(
        ...leading.splice(0),
        protocol.serialize.parse({ name, text }),
        protocol.serialize.describe({ type: "S", name }),
        protocol.serialize.sync()
      ),
      NO_SYNC
    )
    const description = described.messages.find((m) => m instanceof pgMessages.RowDescriptionMessage)
    const prepared = {
      name,
      types: pgliteParse.parseDescribeStatementResults(described.messages),
      fields: description === undefined ? [] : description.fields.map(({ name, dataTypeID }) => ({ name, dataTypeID })),
      used: ++uses
    }
    statements.set(text, prepared)
    if (statements.size > MAX_PREPARED) {
      // The least recently used closed, with the next call.
      const byUse = [...statements].sort((a, b) => a[1].used - b[1].used)
      for (const [oldText, old] of byUse.slice(0, statements.size - MAX_PREPARED)) {
        statements.delete(oldText)
        leading.push(protocol.serialize.close({ type: "S", name: old.name }))
      }
    }
    return prepared
  }

  /**
   * The rows of the call's last statement (`values` when `rowMode` is "array": one array
   * per row, for columns that share a name), each value parsed by the database's parser
   * for its type, as PGlite's `parseResults` does (which copies every parser into a new
   * object on each call: a tenth of the client's CPU).
   */
  const resultOf = (messages: ReadonlyArray<PgliteMessage>, rowMode: "object" | "array", described: ReadonlyArray<Field> = []): Answer => {
    // A prepared statement's rows come without a RowDescription: its columns were read when it was prepared.
    let fields: ReadonlyArray<Field> = described
    let rows: Array<Record<string, unknown>> = []
    let values: Array<ReadonlyArray<unknown>> = []
    let last: Answer = { rows: [], values: [] }
    for (const message of messages) {
      if (message instanceof pgMessages.RowDescriptionMessage) {
        fields = message.fields
      } else if (message instanceof pgMessages.DataRowMessage) {
        const raw = message.fields
        if (rowMode === "array") {
          values.push(raw.map((value, i) => pgTypes.parseType(value, fields[i]?.dataTypeID ?? 0, db.parsers)))
        } else {
          const row: Record<string, unknown> = {}
          for (let i = 0; i < raw.length; i++) {
            const field = fields[i]
            if (field !== undefined) row[field.name] = pgTypes.parseType(raw[i] ?? null, field.dataTypeID, db.parsers)
          }
          rows.push(row)
        }
      } else if (message instanceof pgMessages.CommandCompleteMessage) {
        last = { rows, values }
        rows = []
        values = []
        fields = described
      }
    }
    return last
  }

  const ready = () => {
    // `db.query` refuses a closed database; a call into its WASM after `close` must not happen.
    if (db.closed) throw new Error("PGlite is closed")
  }

  const prepared = async (
    text: string,
    params: ReadonlyArray<unknown>,
    rowMode: "object" | "array",
    again = true
  ): Promise<Answer> => {
    ready()
    const statement = lookup(text) ?? (await prepareNew(text))
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null
      const serialize = db.serializers[statement.types[i] ?? 0]
      return serialize === undefined ? String(param) : serialize(param)
    })
    const began = begin !== undefined
    const frames = takeLeading()
    try {
      const messages = await db.execProtocolStream(bindMessage(statement.name, values, frames, EXECUTE_SYNC), NO_SYNC)
      return resultOf(messages, rowMode, statement.fields)
    } catch (e) {
      // A statement whose result columns changed (DDL since it was prepared) or that the
      // session no longer holds: prepared again next time; at once when no transaction
      // was aborted by it (in one, the retry would only meet "transaction is aborted").
      const code = failureOf(e).code
      if (code !== "0A000" && code !== "26000") throw e
      if (statements.get(text) === statement) {
        statements.delete(text)
        leading.push(protocol.serialize.close({ type: "S", name: statement.name }))
      }
      if (!again || began || db.isInTransaction()) throw e
      return await prepared(text, params, rowMode, false)
    }
  }

  /**
   * A transaction's last statement and COMMIT in one call, each with its Sync: a failed
   * statement aborts the transaction and COMMIT answers ROLLBACK; the call throws the
   * statement's error. A transaction that sent nothing before sends its statement alone
   * (neither BEGIN nor COMMIT). Either way the transaction is over, and the COMMIT or
   * ROLLBACK the client then sends goes nowhere (`ended`).
   */
  const preparedThenCommit = async (text: string, params: ReadonlyArray<unknown>): Promise<void> => {
    ready()
    const statement = await prepare(text)
    const commit = await prepare("COMMIT")
    const values = params.map((param, i) => {
      if (param === null || param === undefined) return null
      const serialize = db.serializers[statement.types[i] ?? 0]
      return serialize === undefined ? String(param) : serialize(param)
    })
    // The transaction sent nothing before (BEGIN still waits): its one statement goes alone,
    // a transaction of its own, without BEGIN and COMMIT. The session is the database's
    // only one, so it runs as it would between them.
    const alone = begin !== undefined
    if (alone) begin = undefined
    const frames = takeLeading()
    try {
      const sent = bindMessage(statement.name, values, frames, EXECUTE_SYNC)
      await db.execProtocolStream(alone ? sent : concatBytes(sent, bindMessage(commit.name, [], [], EXECUTE_SYNC)), NO_SYNC)
    } finally {
      ended = !db.isInTransaction()
    }
  }

  /** `db.query` (its whole result), after what waits for the next call. */
  const viaQuery = async (text: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => {
    ready()
    const frames = takeLeading()
    if (frames.length > 0) await db.execProtocol(concatBytes(...frames, protocol.serialize.sync()), NO_SYNC)
    return await db.query<Record<string, unknown>>(text, [...params], { rowMode })
  }

  const unprepared = async (text: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array"): Promise<Answer> => {
    ready()
    // Parameters need their types (a Describe) before they can be rendered: `db.query` does that.
    if (params.length > 0) {
      const result = await viaQuery(text, params, rowMode)
      return rowMode === "array" ? { rows: [], values: result.rows.map((row) => Object.values(row)) } : { rows: result.rows, values: [] }
    }
    if (/^\s*begin\b/i.test(text) && !db.isInTransaction() && begin === undefined) {
      // Prepared (once per connection) while no transaction is open, bound with the first statement.
      await prepare(text)
      begin = text
      return { rows: [], values: [] }
    }
    if (ended && /^\s*(commit|rollback)\s*$/i.test(text)) {
      // Ended already, with the last statement's call.
      ended = false
      return { rows: [], values: [] }
    }
    if (begin !== undefined && /^\s*(commit|rollback)\s*$/i.test(text)) {
      // The transaction sent no statement: there is nothing to end.
      begin = undefined
      return { rows: [], values: [] }
    }
    // COMMIT, ROLLBACK and savepoints as named statements too: parsed once, not on every
    // transaction (unprepared, a COMMIT cost about as much as the insert before it).
    if (TRANSACTION_CONTROL.test(text)) return await prepared(text, [], rowMode)
    const messages = await db.execProtocolStream(
      concatBytes(
        ...takeLeading(),
        protocol.serialize.parse({ text }),
        protocol.serialize.bind({}),
        protocol.serialize.describe({ type: "P" }),
        protocol.serialize.execute({}),
        protocol.serialize.sync()
      ),
      NO_SYNC
    )
    return resultOf(messages, rowMode)
  }

  /**
   * The calls one after the other, each to its end: an interrupted call's promise runs
   * on (its statement is under way, or still being prepared), and the call after it (the
   * ROLLBACK its transaction's end sends) must wait for it, as PostgreSQL's pipeline
   * answers in order: otherwise ROLLBACK runs first and the interrupted statement then
   * runs outside any transaction (committing on its own), and `begin` and `ended` are
   * read before the call that changes them has ended (a later transaction's COMMIT or
   * ROLLBACK would go nowhere: test/adapters/pglite-commit-review.test.ts).
   */
  let tail: Promise<unknown> = Promise.resolve()
  let calls = 0
  const serially = <A>(call: () => Promise<A>): Promise<A> => {
    // No call under way: at once (one promise fewer on the common path).
    const run = calls === 0 ? call() : tail.then(call, call)
    calls++
    const done = () => {
      calls--
    }
    tail = run.then(done, done)
    return run
  }

  return {
    prepared: (text: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => serially(() => prepared(text, params, rowMode)),
    preparedThenCommit: (text: string, params: ReadonlyArray<unknown>) => serially(() => preparedThenCommit(text, params)),
    unprepared: (text: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => serially(() => unprepared(text, params, rowMode)),
    viaQuery: (text: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array") => serially(() => viaQuery(text, params, rowMode)),
    /** In a transaction, about to begin one with the next statement, or about to end one that ended with its last statement's call. */
    inTransaction: () => begin !== undefined || ended || db.isInTransaction()
  }
}

/**
 * This client's statements over `db` as plain promises, for a program without effect (the
 * bench's raw ledger, so its baseline sends statements the way the store does): with
 * parameters a named prepared statement, without one call. The rows of the statement.
 */
export const pgliteStatements = (db: PGlite) => {
  const session = makeSession(db)
  return (text: string, params: ReadonlyArray<unknown> = []): Promise<ReadonlyArray<Record<string, unknown>>> =>
    (params.length > 0 ? session.prepared(text, params, "object") : session.unprepared(text, params, "object")).then((a) => a.rows)
}

/** A PGlite connection's `preparedThenCommit`, by connection (see `thenCommitOf`). */
const thenCommit = new WeakMap<SqlConnection.Connection, (text: string, params: ReadonlyArray<unknown>) => Effect.Effect<void, SqlErrors.SqlError>>()

/**
 * On a connection of this client, a transaction's last statement sent with its COMMIT in
 * one call (./store.ts, at the end of a top-level unit of work: nothing reads the
 * statement's rows); undefined on any other connection.
 */
export const thenCommitOf = (connection: SqlConnection.Connection) => thenCommit.get(connection)

const connectionOf = (session: ReturnType<typeof makeSession>): SqlConnection.Connection => {
  const connection = connectionBase(session)
  thenCommit.set(connection, (text, params) =>
    Effect.tryPromise({ try: () => session.preparedThenCommit(text, params), catch: (cause) => classify(cause, "execute") }))
  return connection
}

const connectionBase = (session: ReturnType<typeof makeSession>): SqlConnection.Connection => {
  const run = (text: string, params: ReadonlyArray<unknown>, rowMode: "object" | "array", prepared: boolean) =>
    Effect.tryPromise({
      try: () => (prepared ? session.prepared(text, params, rowMode) : session.unprepared(text, params, rowMode)),
      catch: (cause) => classify(cause, "execute")
    })
  const rows = (text: string, params: ReadonlyArray<unknown>, prepared: boolean) => Effect.map(run(text, params, "object", prepared), (r) => r.rows)
  const values = (text: string, params: ReadonlyArray<unknown>, prepared: boolean) =>
    Effect.map(run(text, params, "array", prepared), (r) => r.values)
  return {
    execute: (text, params, transformRows) =>
      Effect.map(rows(text, params, true), (r) => (transformRows === undefined ? r : transformRows(r))),
    // The driver's own result, as `db.query` gives it.
    executeRaw: (text, params) =>
      Effect.tryPromise({ try: () => session.viaQuery(text, params, "object"), catch: (cause) => classify(cause, "execute") }),
    executeStream: (text, params, transformRows) =>
      Stream.fromIterableEffect(Effect.map(rows(text, params, true), (r) => (transformRows === undefined ? r : transformRows(r)))),
    executeValues: (text, params) => values(text, params, true),
    executeValuesUnprepared: (text, params) => values(text, params, false),
    executeUnprepared: (text, params, transformRows) =>
      Effect.map(rows(text, params, false), (r) => (transformRows === undefined ? r : transformRows(r)))
  }
}

/**
 * One process at a time may own a data directory: PGlite has no server to arbitrate,
 * and two writers would corrupt it. A lock file holds the owner's pid; a lock left by
 * a process that no longer runs (a `kill -9`) is taken over (`removeStaleLock`).
 */
/** Data directories this process holds open (a lock with our own pid is ours only if listed here). */
const openHere = new Set<string>()

const errorCode = (e: unknown): unknown => (e instanceof Error && "code" in e ? e.code : undefined)

/** How long a takeover guard may exist before it counts as left by a process that died inside a takeover. */
const STALE_GUARD_MILLIS = 10_000

/**
 * Removes the lock file at `path` if it still holds `observed` (what the caller read and
 * judged stale), and tells whether the lock is gone. The check and the removal happen
 * under a guard (a directory beside the lock: `mkdir` is atomic), so two processes
 * taking over one stale lock at once cannot remove the fresh lock the faster one has
 * just written: the slower one finds other content and leaves it. False when another
 * process is inside a takeover (try again) or the lock changed.
 */
export const removeStaleLock = (path: string, observed: string): boolean => {
  const guard = `${path}.takeover`
  try {
    mkdirSync(guard)
  } catch (e) {
    if (errorCode(e) !== "EEXIST") throw e
    // A takeover lasts microseconds: a guard this old was left by a process that died in one.
    try {
      if (Date.now() - statSync(guard).mtimeMs > STALE_GUARD_MILLIS) rmdirSync(guard)
    } catch (e2) {
      if (errorCode(e2) !== "ENOENT") throw e2
    }
    return false
  }
  try {
    let current: string
    try {
      current = readFileSync(path, "utf8")
    } catch (e) {
      if (errorCode(e) === "ENOENT") return true
      throw e
    }
    if (current !== observed) return false
    unlinkSync(path)
    return true
  } finally {
    rmdirSync(guard)
  }
}

/** Attempts at creating the lock while other processes take a stale one over (about a second in all). */
const LOCK_ATTEMPTS = 100

const pause = (millis: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, millis)

/**
 * Takes the data directory's lock for this process (synchronously), or throws naming the
 * live owner. Returns the lock file's path; the caller removes it on release.
 */
export const acquireDataDirLock = (dir: string): string => {
  const path = join(dir, "payments-service.lock")
  if (openHere.has(path)) {
    throw new Error(`PAYMENTS_DATA_DIR ${dir} is already open in this process; one store per data directory`)
  }
  for (let attempt = 0; attempt < LOCK_ATTEMPTS; attempt++) {
    try {
      const fd = openSync(path, "wx")
      writeSync(fd, String(process.pid))
      closeSync(fd)
      openHere.add(path)
      return path
    } catch (e) {
      if (errorCode(e) !== "EEXIST") throw e
      let content: string
      try {
        content = readFileSync(path, "utf8")
      } catch (e2) {
        if (errorCode(e2) === "ENOENT") continue // removed meanwhile: create it again
        throw e2
      }
      const owner = Number(content.trim())
      let live: boolean
      try {
        live = Number.isInteger(owner) && owner > 0
          // Our own pid but not open here: left by an earlier run that had our pid (pid 1 in a container).
          ? owner !== process.pid && isAlive(owner)
          // No pid yet: another process is between creating the file and writing to it.
          : Date.now() - statSync(path).mtimeMs < 10_000
      } catch (e2) {
        if (errorCode(e2) === "ENOENT") continue
        throw e2
      }
      if (live) {
        throw new Error(`PAYMENTS_DATA_DIR ${dir} is in use by process ${owner > 0 ? owner : "(starting)"}; one server process per data directory`)
      }
      if (!removeStaleLock(path, content)) pause(10)
    }
  }
  throw new Error(`could not lock PAYMENTS_DATA_DIR ${dir}`)
}

const lockDataDir = (dir: string) =>
  Effect.acquireRelease(
    Effect.try({
      try: () => acquireDataDirLock(dir),
      catch: (e) => (e instanceof Error ? e : new Error(String(e)))
    }),
    (path) =>
      Effect.sync(() => {
        openHere.delete(path)
        unlinkSync(path)
      })
  )

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e instanceof Error && "code" in e && e.code === "EPERM"
  }
}

/** Where a PGlite database starts: a data directory (created if missing) or memory, and optionally a dump to load. */
export interface PgliteOptions {
  /**
   * A dump of a PGlite data directory (`PGlite.dumpDataDir`, e.g. from `pgliteTemplate`) to
   * start from instead of an empty database. Only used when the directory is new.
   */
  readonly template?: Blob | undefined
}

/** The SqlClient over an open PGlite database (one connection, statements one at a time). */
const clientOver = (db: PGlite) =>
  Effect.gen(function*() {
    const semaphore = yield* Semaphore.make(1)
    const session = makeSession(db)
    const acquirers = SqlClient.makeSqliteAcquirers({
      connection: Effect.succeed(connectionOf(session)),
      semaphore,
      isTransaction: () => session.inTransaction()
    })
    return yield* SqlClient.make({
      ...acquirers,
      compiler: PgClient.makeCompiler(),
      driver: "pglite",
      spanAttributes: [["db.system.name", "postgresql"]],
      releaseSavepoint: (name) => `RELEASE SAVEPOINT ${name}`
    })
  })

/**
 * Opens PGlite (closed with the scope), its one session with sequential scans priced out as
 * on the PostgreSQL store's sessions (./index.ts `STEERING`; its `plan_cache_mode` is not
 * set here): a statement reads down an index whatever the planner believes of a table's
 * size. PGlite needs it since its
 * tables are vacuumed (./reclaim.ts): a table never vacuumed is assumed to hold at least
 * ten pages, but one vacuumed while it was small is taken at its size then, and a plan
 * made on that (a sequential scan of a table of a few rows) would be kept while the table
 * grows, until its next VACUUM.
 */
const openPglite = (dataDir: string | undefined, template: Blob | undefined) =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: async () => {
        const db = await PGlite.create({ ...(dataDir === undefined ? {} : { dataDir }), ...(template === undefined ? {} : { loadDataDir: template }) })
        try {
          await db.exec("set enable_seqscan = off")
        } catch (e) {
          await db.close()
          throw e
        }
        return db
      },
      catch: (cause) => classify(cause, "connect")
    }),
    (db) => Effect.promise(() => db.close())
  )

/** A SqlClient over a PGlite database kept in `dataDir` (created if missing), or in memory when undefined. */
export const makePgliteClient = (dataDir: string | undefined, options: PgliteOptions = {}) =>
  Effect.gen(function*() {
    let template = options.template
    if (dataDir !== undefined) {
      yield* Effect.sync(() => mkdirSync(dataDir, { recursive: true }))
      yield* lockDataDir(dataDir)
      // A dump fills a new directory only; one that holds a database keeps it.
      if (existsSync(join(dataDir, "pgdata", "PG_VERSION"))) template = undefined
    }
    const db = yield* openPglite(dataDir === undefined ? undefined : join(dataDir, "pgdata"), template)
    return yield* clientOver(db)
  })

/**
 * Runs `prepare` (say, the migrations) on a fresh in-memory PGlite and answers a dump of
 * its data directory: stores started from it (`PgliteOptions.template`) skip that work.
 */
export const dumpPgliteAfter = <E>(prepare: Effect.Effect<void, E, SqlClient.SqlClient>) =>
  Effect.scoped(Effect.gen(function*() {
    const db = yield* openPglite(undefined, undefined)
    const client = yield* clientOver(db)
    yield* Effect.provideService(prepare, SqlClient.SqlClient, client)
    return yield* Effect.tryPromise({ try: () => db.dumpDataDir("none"), catch: (cause) => classify(cause, "dump") })
  }).pipe(Effect.provide(Reactivity.layer)))

/** `SqlClient` on PGlite in `dataDir` (or in memory). */
export const pgliteClientLayer = (dataDir: string | undefined, options: PgliteOptions = {}): Layer.Layer<SqlClient.SqlClient, SqlErrors.SqlError | Error> =>
  Layer.effectContext(Effect.map(makePgliteClient(dataDir, options), (client) => Context.make(SqlClient.SqlClient, client))).pipe(
    Layer.provide(Reactivity.layer)
  )
