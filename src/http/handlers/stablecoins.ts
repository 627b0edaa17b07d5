import * as Stablecoins from "../../operations/stablecoins.js"
import { implement } from "../concerns.js"
import { StablecoinsGroup } from "../groups/stablecoins.js"
import { run } from "./run.js"

export const StablecoinsHandlers = implement(StablecoinsGroup, (handlers) =>
  handlers
    .handle("linkStablecoinProviderAccount", ({ payload }) =>
      run((p) => Stablecoins.linkProviderAccount(p, payload)))
    .handle("listStablecoinProviderAccounts", ({ query }) => run((p) => Stablecoins.listProviderAccounts(p, query)))
    .handle("getStablecoinProviderAccount", ({ params }) => run((p) => Stablecoins.getProviderAccount(p, params.stablecoinProviderAccountId)))
    .handle("registerStablecoin", ({ payload }) => run((p) => Stablecoins.registerStablecoin(p, payload)))
    .handle("listStablecoins", ({ query }) => run((p) => Stablecoins.listStablecoins(p, query)))
    .handle("getStablecoin", ({ params }) => run((p) => Stablecoins.getStablecoin(p, params.stablecoinId)))
    .handle("requestStablecoinGridOperationsEnablement", ({ params }) =>
      run((p) => Stablecoins.requestGridOperationsEnablement(p, params.stablecoinId)))
    .handle("createStablecoinMint", ({ params, payload }) =>
      run((p) => Stablecoins.createMint(p, params.stablecoinId, payload)))
    .handle("createStablecoinBurn", ({ params, payload }) =>
      run((p) => Stablecoins.createBurn(p, params.stablecoinId, payload)))
    .handle("listStablecoinOperations", ({ params, query }) => run((p) => Stablecoins.listOperations(p, params.stablecoinId, query)))
    .handle("getStablecoinOperation", ({ params }) => run((p) => Stablecoins.getOperation(p, params.stablecoinOperationId))))
