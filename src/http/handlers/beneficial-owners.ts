import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Owners from "../../operations/beneficial-owners.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const BeneficialOwnersHandlers = HttpApiBuilder.group(PaymentsApi, "beneficialOwners", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("createBeneficialOwner", ({ headers, payload }) =>
        run((p) => Owners.createBeneficialOwner(p, payload, headers["idempotency-key"])))
      .handle("listBeneficialOwners", ({ query }) => run((p) => Owners.listBeneficialOwners(p, query)))
      .handle("getBeneficialOwner", ({ params }) => run((p) => Owners.getBeneficialOwner(p, params.beneficialOwnerId)))
      .handle("updateBeneficialOwner", ({ params, payload }) =>
        run((p) => Owners.updateBeneficialOwner(p, params.beneficialOwnerId, payload)))
      .handle("deleteBeneficialOwner", ({ params }) => run((p) => Owners.deleteBeneficialOwner(p, params.beneficialOwnerId)))))
