import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Verifications from "../../operations/verifications.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const VerificationsHandlers = HttpApiBuilder.group(PaymentsApi, "verifications", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("createVerification", ({ headers, payload }) =>
        run((p) => Verifications.submitVerification(p, payload, headers["idempotency-key"])))
      .handle("listVerifications", ({ query }) => run((p) => Verifications.listVerifications(p, query)))
      .handle("getVerification", ({ params }) => run((p) => Verifications.getVerification(p, params.verificationId)))))
