/** A plain result for rules that can refuse: no Effect needed to use them. */
export type Result<A, E> = { readonly ok: true; readonly value: A } | { readonly ok: false; readonly error: E }

export const ok = <A>(value: A): Result<A, never> => ({ ok: true, value })
export const fail = <E>(error: E): Result<never, E> => ({ ok: false, error })
