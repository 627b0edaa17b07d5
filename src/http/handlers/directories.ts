import { implement } from "../concerns.js"
import { CryptoWithdrawalsGroup, UmaProvidersGroup, VaspsGroup } from "../groups/directories.js"
import * as Directories from "../../operations/money/directories.js"
import { run } from "./run.js"

export const VaspsHandlers = implement(VaspsGroup, (handlers) =>
  handlers.handle("listVasps", ({ query }) => run(() => Directories.listVasps(query))))

export const UmaProvidersHandlers = implement(UmaProvidersGroup, (handlers) =>
  handlers.handle("listUmaProviders", ({ query }) => run((p) => Directories.listUmaProviders(p, query))))

export const CryptoWithdrawalsHandlers = implement(CryptoWithdrawalsGroup, (handlers) =>
  handlers.handle("estimateCryptoWithdrawalFee", ({ payload }) => run((p) => Directories.estimateWithdrawalFee(p, payload))))
