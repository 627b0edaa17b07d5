import * as Verifications from "../../operations/verifications.js"
import { implement } from "../concerns.js"
import { VerificationsGroup } from "../groups/verifications.js"
import { run } from "./run.js"

export const VerificationsHandlers = implement(VerificationsGroup, (handlers) =>
  handlers
    .handle("createVerification", ({ payload }) =>
      run((p) => Verifications.submitVerification(p, payload)))
    .handle("listVerifications", ({ query }) => run((p) => Verifications.listVerifications(p, query)))
    .handle("getVerification", ({ params }) => run((p) => Verifications.getVerification(p, params.verificationId))))
