import { Effect } from "effect"
import * as Directories from "../../operations/money/directories.js"
import { group } from "../concerns.js"
import { run } from "./run.js"

export const VaspsHandlers = group("vasps", (handlers) =>
  Effect.sync(() => handlers.handle("listVasps", ({ query }) => run(() => Directories.listVasps(query)))))

export const UmaProvidersHandlers = group("umaProviders", (handlers) =>
  Effect.sync(() => handlers.handle("listUmaProviders", ({ query }) => run((p) => Directories.listUmaProviders(p, query)))))

export const CryptoWithdrawalsHandlers = group("cryptoWithdrawals", (handlers) =>
  Effect.sync(() =>
    handlers.handle("estimateCryptoWithdrawalFee", ({ payload }) => run((p) => Directories.estimateWithdrawalFee(p, payload)))))
