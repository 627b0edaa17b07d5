import * as Discoveries from "../../operations/money/discoveries.js"
import * as Lookups from "../../operations/money/lookups.js"
import { group } from "../concerns.js"
import { run } from "./run.js"

export const DiscoveriesHandlers = group("discoveries", (handlers) =>
  handlers.handle("getDiscoveries", ({ query }) => run(() => Discoveries.getDiscoveries(query))))

export const ReceiverLookupsHandlers = group("receiverLookups", (handlers) =>
  handlers
    .handle("lookupUma", ({ params, query }) => run((p) => Lookups.lookupUma(p, params.receiverUmaAddress, query)))
    .handle("lookupExternalAccount", ({ params, query }) => run((p) => Lookups.lookupExternalAccount(p, params.accountId, query))))
