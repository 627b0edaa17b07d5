import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Directories from "../../operations/money/directories.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const VaspsHandlers = HttpApiBuilder.group(PaymentsApi, "vasps", (handlers) =>
  Effect.sync(() => handlers.handle("listVasps", ({ query }) => run(() => Directories.listVasps(query)))))

export const UmaProvidersHandlers = HttpApiBuilder.group(PaymentsApi, "umaProviders", (handlers) =>
  Effect.sync(() => handlers.handle("listUmaProviders", ({ query }) => run((p) => Directories.listUmaProviders(p, query)))))

export const CryptoWithdrawalsHandlers = HttpApiBuilder.group(PaymentsApi, "cryptoWithdrawals", (handlers) =>
  Effect.sync(() =>
    handlers.handle("estimateCryptoWithdrawalFee", ({ payload }) => run((p) => Directories.estimateWithdrawalFee(p, payload)))))
