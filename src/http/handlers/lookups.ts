import * as Discoveries from "../../operations/money/discoveries.js"
import * as Lookups from "../../operations/money/lookups.js"
import { implement } from "../concerns.js"
import { DiscoveriesGroup, ReceiverLookupsGroup } from "../groups/lookups.js"
import { run } from "./run.js"

export const DiscoveriesHandlers = implement(DiscoveriesGroup, (handlers) =>
  handlers.handle("getDiscoveries", ({ query }) => run(() => Discoveries.getDiscoveries(query))))

export const ReceiverLookupsHandlers = implement(ReceiverLookupsGroup, (handlers) =>
  handlers
    .handle("lookupUma", ({ params, query }) => run((p) => Lookups.lookupUma(p, params.receiverUmaAddress, query)))
    .handle("lookupExternalAccount", ({ params, query }) => run((p) => Lookups.lookupExternalAccount(p, params.accountId, query))))
