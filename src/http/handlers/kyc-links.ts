import { Effect } from "effect"
import { HttpServerRequest } from "effect/http"
import * as KycLinks from "../../operations/kyc-links.js"
import { API_VERSION } from "../api-base.js"
import { implement } from "../concerns.js"
import { KycHostedFlowGroup, KycLinksGroup } from "../groups/kyc-links.js"
import { renderHostedKycPage } from "../kyc-hosted-page.js"
import { run } from "./run.js"

/** The host of an absolute request URL (a Web Request's), if it is one. */
const hostOf = (url: string): string | undefined => /^https?:\/\/([^/?#]+)/i.exec(url)?.[1]

/**
 * Where this server was reached, for the link: X-Forwarded-Host / -Proto behind a proxy,
 * else the Host header, else the request URL's host (an embedded Web handler), else localhost.
 */
const hostedBase = Effect.map(HttpServerRequest.HttpServerRequest, (request) => {
  const host = request.headers["x-forwarded-host"] ?? request.headers["host"] ?? hostOf(request.originalUrl) ?? "localhost"
  const proto = request.headers["x-forwarded-proto"] === "https" || /^https:/i.test(request.originalUrl) ? "https" : "http"
  return `${proto}://${host}/${API_VERSION}`
})

export const KycLinksHandlers = implement(KycLinksGroup, (handlers) =>
  handlers.handle("createCustomerKycLink", ({ params, payload }) =>
    Effect.flatMap(hostedBase, (base) => run((p) => KycLinks.createKycLink(p, params.customerId, payload ?? {}, base)))))

export const KycHostedFlowHandlers = implement(KycHostedFlowGroup, (handlers) =>
  handlers
    .handle("getHostedKycPage", ({ query }) => Effect.map(KycLinks.hostedView(query.token), renderHostedKycPage))
    .handle("submitHostedKyc", ({ query }) => Effect.map(KycLinks.hostedSubmit(query.token), renderHostedKycPage)))
