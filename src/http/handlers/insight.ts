import { implement } from "../concerns.js"
import { SandboxInsightGroup } from "../groups/insight.js"
import { Effect } from "effect"
import * as Insight from "../../operations/sandbox-insight.js"
import { CurrentPlatform } from "../middleware.js"

const withPlatform = <A, E, R>(f: (platform: typeof CurrentPlatform.Service) => Effect.Effect<A, E, R>) =>
  Effect.flatMap(Effect.service(CurrentPlatform), f)

export const SandboxInsightHandlers = implement(SandboxInsightGroup, (handlers) =>
  handlers
    .handle("getLedgerAudit", () => withPlatform(Insight.getLedgerAudit))
    .handle("getInternalAccountJournal", ({ params, query }) => withPlatform((p) => Insight.getAccountJournal(p, params.internalAccountId, query)))
    .handle("listSandboxRequests", ({ query }) => withPlatform((p) => Insight.getRequestLog(p, query))))
