/**
 * Resource ids are `<ResourceName>:<uuid>` (SPEC.md "Identifier shape"). The prefix
 * tells a reader, and the API, which kind of resource an id names.
 */
import { Schema } from "effect"

export const ResourcePrefixes = [
  "Customer",
  "ExternalAccount",
  "InternalAccount",
  "Quote",
  "Transaction",
  "Document",
  "BeneficialOwner",
  "Verification",
  "AuthMethod",
  "Session",
  "Request",
  "Webhook",
  "Event",
  "Card",
  "CardFundingSource",
  "CardTransaction",
  "DelegatedKey",
  "Agent",
  "AgentAction",
  "Lookup",
  "Stablecoin",
  "StablecoinOperation",
  "StablecoinProviderAccount",
  "Job",
  "Token",
  "Snapshot"
] as const
export type ResourcePrefix = (typeof ResourcePrefixes)[number]

const UUID = "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"

/** Schema of an id with the given prefix. */
export const ResourceId = (prefix: ResourcePrefix) =>
  Schema.String.check(
    Schema.isPattern(new RegExp(`^${prefix}:${UUID}$`), { message: `must be a ${prefix} id (${prefix}:<uuid>)` })
  )

export const CustomerId = ResourceId("Customer")
export const ExternalAccountId = ResourceId("ExternalAccount")
