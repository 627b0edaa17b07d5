import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Stablecoins from "../../operations/stablecoins.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const StablecoinsHandlers = HttpApiBuilder.group(PaymentsApi, "stablecoins", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("linkStablecoinProviderAccount", ({ headers, payload }) =>
        run((p) => Stablecoins.linkProviderAccount(p, payload, headers["idempotency-key"])))
      .handle("listStablecoinProviderAccounts", ({ query }) => run((p) => Stablecoins.listProviderAccounts(p, query)))
      .handle("getStablecoinProviderAccount", ({ params }) => run((p) => Stablecoins.getProviderAccount(p, params.stablecoinProviderAccountId)))
      .handle("registerStablecoin", ({ headers, payload }) => run((p) => Stablecoins.registerStablecoin(p, payload, headers["idempotency-key"])))
      .handle("listStablecoins", ({ query }) => run((p) => Stablecoins.listStablecoins(p, query)))
      .handle("getStablecoin", ({ params }) => run((p) => Stablecoins.getStablecoin(p, params.stablecoinId)))
      .handle("requestStablecoinGridOperationsEnablement", ({ params }) =>
        run((p) => Stablecoins.requestGridOperationsEnablement(p, params.stablecoinId)))
      .handle("createStablecoinMint", ({ headers, params, payload }) =>
        run((p) => Stablecoins.createMint(p, params.stablecoinId, payload, headers["idempotency-key"])))
      .handle("createStablecoinBurn", ({ headers, params, payload }) =>
        run((p) => Stablecoins.createBurn(p, params.stablecoinId, payload, headers["idempotency-key"])))
      .handle("listStablecoinOperations", ({ params, query }) => run((p) => Stablecoins.listOperations(p, params.stablecoinId, query)))
      .handle("getStablecoinOperation", ({ params }) => run((p) => Stablecoins.getOperation(p, params.stablecoinOperationId)))
  ))
