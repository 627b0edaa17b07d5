/**
 * The shape every verification-side status machine shares: a table of allowed moves
 * (from -> event -> to), the events a change of status emits, and the error a refused
 * move becomes. `transition(state, event)` is pure and never throws.
 */
import { fail, ok, type Result } from "./result.js"

export interface Transitioned<S extends string, Emitted> {
  readonly state: S
  readonly events: ReadonlyArray<Emitted>
}

export type TransitionTable<S extends string, E extends string> = Readonly<Partial<Record<S, Partial<Record<E, S>>>>>

export const machine = <S extends string, E extends string, Emitted, Rejection>(spec: {
  readonly table: TransitionTable<S, E>
  /** What a change from `from` to `to` announces (nothing when the status stays). */
  readonly emits: (from: S, to: S) => ReadonlyArray<Emitted>
  readonly reject: (state: S, event: E) => Rejection
}) =>
(state: S, event: { readonly type: E }): Result<Transitioned<S, Emitted>, Rejection> => {
  const to = spec.table[state]?.[event.type]
  if (to === undefined) return fail(spec.reject(state, event.type))
  return ok({ state: to, events: to === state ? [] : spec.emits(state, to) })
}

/** Every (state, event) pair the table allows, for tests and docs. */
export const allowedMoves = <S extends string, E extends string>(table: TransitionTable<S, E>) =>
  Object.entries(table).flatMap(([from, row]) =>
    Object.entries(row as Record<string, string>).map(([event, to]) => ({ from: from as S, event: event as E, to: to as S }))
  )
