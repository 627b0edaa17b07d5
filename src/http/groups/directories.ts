/**
 * The stateless operations: GET /vasps (the VASP directory for counterparty
 * declarations), GET /uma-providers (the UMA providers a platform can pay) and
 * POST /crypto/estimate-withdrawal-fee (network and application fees of a crypto
 * withdrawal). Sandbox directories and fee models; nothing is stored.
 */
import { HttpApiEndpoint, OpenApi } from "effect/http-api"
import { PageQuery } from "../../domain/common.js"
import {
  EstimateCryptoWithdrawalFeeRequest,
  EstimateCryptoWithdrawalFeeResponse,
  UmaProviderListResponse,
  UmaProviderQuery,
  VaspListResponse
} from "../../domain/directory.js"
import { Error404 } from "../../domain/errors.js"
import { apiGroup, directoryGroup } from "../endpoints.js"

export class VaspsGroup extends directoryGroup(
  "vasps",
  "VASPs",
  HttpApiEndpoint.get("listVasps", "/vasps", { query: PageQuery, success: VaspListResponse }),
  "The VASPs (exchanges and other custodial platforms) recognized for counterparty declarations, by name: pass `vaspName` as a " +
    "wallet's `vaspName`. The reference server answers from a static directory of sandbox data."
) {}

export class UmaProvidersGroup extends directoryGroup(
  "umaProviders",
  "Available UMA Providers",
  HttpApiEndpoint.get("listUmaProviders", "/uma-providers", { query: UmaProviderQuery, success: UmaProviderListResponse }),
  "The UMA providers this platform can pay: the sandbox counterparties (sandbox platforms), the platform's own UMA domain, and " +
    "providers this server cannot reach, listed off the allow list (`hasBlockedProviders=false` leaves them out). By name, " +
    "descending unless `sortOrder=asc`."
) {}

export class CryptoWithdrawalsGroup extends apiGroup("cryptoWithdrawals", { title: "Cross-Currency Transfers", permission: "VIEW" },
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
) {}
