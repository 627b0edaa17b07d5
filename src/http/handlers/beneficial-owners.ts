import * as Owners from "../../operations/beneficial-owners.js"
import { implement } from "../concerns.js"
import { BeneficialOwnersGroup } from "../groups/beneficial-owners.js"
import { run } from "./run.js"

export const BeneficialOwnersHandlers = implement(BeneficialOwnersGroup, (handlers) =>
  handlers
    .handle("createBeneficialOwner", ({ payload }) =>
      run((p) => Owners.createBeneficialOwner(p, payload)))
    .handle("listBeneficialOwners", ({ query }) => run((p) => Owners.listBeneficialOwners(p, query)))
    .handle("getBeneficialOwner", ({ params }) => run((p) => Owners.getBeneficialOwner(p, params.beneficialOwnerId)))
    .handle("updateBeneficialOwner", ({ params, payload }) =>
      run((p) => Owners.updateBeneficialOwner(p, params.beneficialOwnerId, payload)))
    .handle("deleteBeneficialOwner", ({ params }) => run((p) => Owners.deleteBeneficialOwner(p, params.beneficialOwnerId))))
