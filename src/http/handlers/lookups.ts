import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import * as Discoveries from "../../operations/money/discoveries.js"
import * as Lookups from "../../operations/money/lookups.js"
import { PaymentsApi } from "../api.js"
import { run } from "./run.js"

export const DiscoveriesHandlers = HttpApiBuilder.group(PaymentsApi, "discoveries", (handlers) =>
  Effect.sync(() => handlers.handle("getDiscoveries", ({ query }) => run(() => Discoveries.getDiscoveries(query)))))

export const ReceiverLookupsHandlers = HttpApiBuilder.group(PaymentsApi, "receiverLookups", (handlers) =>
  Effect.sync(() =>
    handlers
      .handle("lookupUma", ({ params, query }) => run((p) => Lookups.lookupUma(p, params.receiverUmaAddress, query)))
      .handle("lookupExternalAccount", ({ params, query }) => run((p) => Lookups.lookupExternalAccount(p, params.accountId, query)))
  ))
