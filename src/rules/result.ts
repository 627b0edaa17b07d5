/** A plain result for rules that can refuse: no Effect needed to use them. */
import type { Rejection, RejectionCode } from "./rejection.js"

export type Result<A, E> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: E }

export const ok = <A>(value: A): Result<A, never> => ({ ok: true, value })
export const fail = <E>(error: E): Result<never, E> => ({ ok: false, error })

/**
 * What every state machine's move gives back: the next state, the events the move
 * announces and the moves it asks for later (as data), plus whatever the machine adds
 * (`X`: ledger intents, a freed slot, ...).
 */
export type Moved<S, Ev = never, M = never, X = unknown> = {
  readonly state: S
  readonly events: ReadonlyArray<Ev>
  readonly scheduled: ReadonlyArray<M>
} & X

/** A machine's answer to one move: `Moved`, or the `Rejection` the move meets. */
export type MoveResult<S, Ev, M, C extends RejectionCode, X = unknown> = Result<Moved<S, Ev, M, X>, Rejection<C>>

/** Moved with nothing announced and nothing scheduled. */
export const stayed = <S>(state: S): Moved<S> => ({ state, events: [], scheduled: [] })
