/**
 * The stateless operations: GET /vasps (the VASP directory for counterparty
 * declarations), GET /uma-providers (the UMA providers a platform can pay) and
 * POST /crypto/estimate-withdrawal-fee (network and application fees of a crypto
 * withdrawal). Sandbox directories and fee models; nothing is stored.
 */
import { HttpApiEndpoint, HttpApiGroup, OpenApi } from "effect/http-api"
import { PageQuery } from "../../domain/common.js"
import {
  EstimateCryptoWithdrawalFeeRequest,
  EstimateCryptoWithdrawalFeeResponse,
  UmaProviderListResponse,
  UmaProviderQuery,
  VaspListResponse
} from "../../domain/directory.js"
import { Error404 } from "../../domain/errors.js"
import { Concerns, declare } from "../declarations.js"

export class VaspsGroup extends HttpApiGroup.make("vasps")
  .add(
    HttpApiEndpoint.get("listVasps", "/vasps", { query: PageQuery, success: VaspListResponse })
      .annotate(
        OpenApi.Description,
        "The VASPs (exchanges and other custodial platforms) recognized for counterparty declarations, by name: pass `vaspName` as a " +
          "wallet's `vaspName`. The reference server answers from a static directory of sandbox data."
      )
  )
  .annotateMerge(OpenApi.annotations({ title: "VASPs" }))
{}

export class UmaProvidersGroup extends HttpApiGroup.make("umaProviders")
  .add(
    HttpApiEndpoint.get("listUmaProviders", "/uma-providers", { query: UmaProviderQuery, success: UmaProviderListResponse })
      .annotate(
        OpenApi.Description,
        "The UMA providers this platform can pay: the sandbox counterparties (sandbox platforms), the platform's own UMA domain, and " +
          "providers this server cannot reach, listed off the allow list (`hasBlockedProviders=false` leaves them out). By name, " +
          "descending unless `sortOrder=asc`."
      )
  )
  .annotateMerge(OpenApi.annotations({ title: "Available UMA Providers" }))
{}

export class CryptoWithdrawalsGroup extends HttpApiGroup.make("cryptoWithdrawals")
  .annotate(Concerns, { permission: "VIEW" })
  .add(
    HttpApiEndpoint.post("estimateCryptoWithdrawalFee", "/crypto/estimate-withdrawal-fee", {
      payload: EstimateCryptoWithdrawalFeeRequest,
      success: EstimateCryptoWithdrawalFeeResponse,
      error: Error404
    }).annotate(
      OpenApi.Description,
      "The network fee (in the network's own asset) and application fee of withdrawing `amount` from a crypto internal account to " +
        "an address on `cryptoNetwork`, and what the recipient nets. Fixed sandbox fee models; conversion at the server's rates on " +
        "the platform clock. Nothing is moved or stored."
    )
  )
  .annotateMerge(OpenApi.annotations({ title: "Cross-Currency Transfers" }))
{}
