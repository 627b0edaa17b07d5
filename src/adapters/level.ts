/**
 * One rule for every store: a StoreConflict ends the level of a unit of work (a
 * transaction or a nested one) it happened in, as a unique violation aborts a SQL
 * transaction. A level that swallows one and then succeeds is refused as a defect,
 * so code behaves the same on every store. Adapters mark the conflict where they raise
 * it (`conflictIn`) and run each level through `asLevel`.
 */
import { Context, Effect } from "effect"
import { LedgerRejected, StoreConflict, type UniqueConstraint } from "../ports/store.js"

/**
 * The innermost level of a unit of work the fiber runs in. Exported for a store that
 * provides it itself, together with its own context, instead of through `asLevel` (the
 * memory store: one context update per level).
 */
export const CurrentLevel = Context.Reference<{ conflicted: boolean } | undefined>("payments-service/adapters/CurrentLevel", {
  defaultValue: () => undefined
})

/** Fails with a StoreConflict, marking the level it happened in. */
export const conflictIn = (constraint: UniqueConstraint): Effect.Effect<never, StoreConflict> =>
  Effect.andThen(
    CurrentLevel.useSync((level) => {
      if (level !== undefined) level.conflicted = true
    }),
    Effect.fail(new StoreConflict({ constraint }))
  )

/** Fails with a LedgerRejected, marking the level it happened in (the same rule as a conflict). */
export const ledgerRejectedIn = (reason: LedgerRejected["reason"], account?: string): Effect.Effect<never, LedgerRejected> =>
  Effect.andThen(
    CurrentLevel.useSync((level) => {
      if (level !== undefined) level.conflicted = true
    }),
    Effect.fail(new LedgerRejected({ reason, account }))
  )

/** Runs one level of a unit of work; it may not succeed after a StoreConflict in it. */
export const asLevel = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.suspend(() => {
    const state = { conflicted: false }
    return effect.pipe(
      Effect.provideService(CurrentLevel, state),
      Effect.flatMap((a) =>
        state.conflicted
          ? Effect.die(
            new Error("A StoreConflict was caught inside the unit of work that raised it, which then tried to commit; catch it outside store.transact")
          )
          : Effect.succeed(a)
      )
    )
  })
