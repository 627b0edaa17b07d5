/**
 * The shape every table-driven status machine shares: a table of allowed moves
 * (from -> event -> to), the events a change of status emits, and the rejection a refused
 * move becomes. `transition(state, event)` is pure and never throws.
 */
import type { Rejection, RejectionCode } from "./rejection.js"
import { fail, type Moved, ok, type Result } from "./result.js"

/** A table-driven machine's move: it schedules nothing. */
export type Transitioned<S extends string, Emitted> = Moved<S, Emitted>

export type TransitionTable<S extends string, E extends string> = Readonly<Partial<Record<S, Partial<Record<E, S>>>>>

export const machine = <S extends string, E extends string, Emitted, C extends RejectionCode>(spec: {
  readonly table: TransitionTable<S, E>
  /** What a change from `from` to `to` announces (nothing when the status stays). */
  readonly emits: (from: S, to: S) => ReadonlyArray<Emitted>
  readonly reject: (state: S, event: E) => Rejection<C>
}) =>
(state: S, event: { readonly type: E }): Result<Transitioned<S, Emitted>, Rejection<C>> => {
  const to = spec.table[state]?.[event.type]
  if (to === undefined) return fail(spec.reject(state, event.type))
  return ok({ state: to, events: to === state ? [] : spec.emits(state, to), scheduled: [] })
}

/** Every (state, event) pair the table allows, for tests and docs. */
export const allowedMoves = <S extends string, E extends string>(table: TransitionTable<S, E>) =>
  Object.entries(table).flatMap(([from, row]) =>
    Object.entries(row as Record<string, string>).map(([event, to]) => ({ from: from as S, event: event as E, to: to as S }))
  )
