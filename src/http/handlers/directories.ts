import { group } from "../concerns.js"
import * as Directories from "../../operations/money/directories.js"
import { run } from "./run.js"

export const VaspsHandlers = group("vasps", (handlers) =>
  handlers.handle("listVasps", ({ query }) => run(() => Directories.listVasps(query))))

export const UmaProvidersHandlers = group("umaProviders", (handlers) =>
  handlers.handle("listUmaProviders", ({ query }) => run((p) => Directories.listUmaProviders(p, query))))

export const CryptoWithdrawalsHandlers = group("cryptoWithdrawals", (handlers) =>
  handlers.handle("estimateCryptoWithdrawalFee", ({ payload }) => run((p) => Directories.estimateWithdrawalFee(p, payload))))
