/**
 * Every group of the API with the handlers that implement it, in the order of the API
 * (and of its OpenAPI document): the one place a new group is registered. `api.ts` builds
 * `PaymentsApi` from the groups; `server.ts` provides the handlers. Each handlers layer is
 * built with `implement(group, ...)` (concerns.ts), so every group runs its endpoints'
 * declared concerns.
 */
import type { Layer } from "effect"
import type { HttpApiGroup } from "effect/http-api"
import type { API_ID, ApiGroup } from "./api-base.js"
import { AgentDeviceCodesGroup, AgentOperationsGroup, AgentsGroup } from "./groups/agents.js"
import { AgreementsGroup } from "./groups/agreements.js"
import { BeneficialOwnersGroup } from "./groups/beneficial-owners.js"
import { BulkCustomersGroup } from "./groups/bulk-customers.js"
import { CardSimulationsGroup } from "./groups/card-simulations.js"
import { CardsGroup } from "./groups/cards.js"
import { CustomersGroup } from "./groups/customers.js"
import { CryptoWithdrawalsGroup, UmaProvidersGroup, VaspsGroup } from "./groups/directories.js"
import { DocumentsGroup } from "./groups/documents.js"
import { CustomerExternalAccountsGroup, PlatformExternalAccountsGroup } from "./groups/external-accounts.js"
import { SandboxInsightGroup } from "./groups/insight.js"
import { InvitationsGroup } from "./groups/invitations.js"
import { KycHostedFlowGroup, KycLinksGroup } from "./groups/kyc-links.js"
import { DiscoveriesGroup, ReceiverLookupsGroup } from "./groups/lookups.js"
import {
  ExchangeRatesGroup,
  InternalAccountsGroup,
  PlatformConfigGroup,
  QuotesGroup,
  SandboxMoneyGroup,
  TransactionsGroup,
  TransfersGroup
} from "./groups/money.js"
import { SandboxControlGroup } from "./groups/sandbox-control.js"
import { SandboxGroup } from "./groups/sandbox.js"
import { ContactVerificationGroup, ScaGroup } from "./groups/sca.js"
import { StablecoinsGroup } from "./groups/stablecoins.js"
import { TokensGroup } from "./groups/tokens.js"
import { VerificationsGroup } from "./groups/verifications.js"
import { EmbeddedWalletAuthGroup, InternalAccountActionsGroup } from "./groups/wallets.js"
import { WebhooksGroup } from "./groups/webhooks.js"
import { AgentDeviceCodesHandlers, AgentOperationsHandlers, AgentsHandlers } from "./handlers/agents.js"
import { AgreementsHandlers } from "./handlers/agreements.js"
import { BeneficialOwnersHandlers } from "./handlers/beneficial-owners.js"
import { BulkCustomersHandlers } from "./handlers/bulk-customers.js"
import { CardSimulationsHandlers } from "./handlers/card-simulations.js"
import { CardsHandlers } from "./handlers/cards.js"
import { CustomersHandlers } from "./handlers/customers.js"
import { CryptoWithdrawalsHandlers, UmaProvidersHandlers, VaspsHandlers } from "./handlers/directories.js"
import { DocumentsHandlers } from "./handlers/documents.js"
import { CustomerExternalAccountsHandlers, PlatformExternalAccountsHandlers } from "./handlers/external-accounts.js"
import { SandboxInsightHandlers } from "./handlers/insight.js"
import { InvitationsHandlers } from "./handlers/invitations.js"
import { KycHostedFlowHandlers, KycLinksHandlers } from "./handlers/kyc-links.js"
import { DiscoveriesHandlers, ReceiverLookupsHandlers } from "./handlers/lookups.js"
import {
  ExchangeRatesHandlers,
  InternalAccountsHandlers,
  PlatformConfigHandlers,
  QuotesHandlers,
  SandboxMoneyHandlers,
  TransactionsHandlers,
  TransfersHandlers
} from "./handlers/money.js"
import { SandboxControlHandlers } from "./handlers/sandbox-control.js"
import { SandboxHandlers } from "./handlers/sandbox.js"
import { ContactVerificationHandlers, ScaHandlers } from "./handlers/sca.js"
import { StablecoinsHandlers } from "./handlers/stablecoins.js"
import { TokensHandlers } from "./handlers/tokens.js"
import { VerificationsHandlers } from "./handlers/verifications.js"
import { EmbeddedWalletAuthHandlers, InternalAccountActionsHandlers } from "./handlers/wallets.js"
import { WebhooksHandlers } from "./handlers/webhooks.js"

/** A group and the layer of its handlers (which must be that group's). */
const route = <G extends ApiGroup, E, R>(
  group: G,
  handlers: Layer.Layer<HttpApiGroup.Service<typeof API_ID, HttpApiGroup.Identifier<G>>, E, R>
) => ({ group, handlers })

export const ROUTES = [
  route(AgreementsGroup, AgreementsHandlers),
  route(CustomersGroup, CustomersHandlers),
  route(ContactVerificationGroup, ContactVerificationHandlers),
  route(ScaGroup, ScaHandlers),
  route(CustomerExternalAccountsGroup, CustomerExternalAccountsHandlers),
  route(PlatformExternalAccountsGroup, PlatformExternalAccountsHandlers),
  route(SandboxGroup, SandboxHandlers),
  route(VerificationsGroup, VerificationsHandlers),
  route(DocumentsGroup, DocumentsHandlers),
  route(BeneficialOwnersGroup, BeneficialOwnersHandlers),
  route(PlatformConfigGroup, PlatformConfigHandlers),
  route(ExchangeRatesGroup, ExchangeRatesHandlers),
  route(InternalAccountsGroup, InternalAccountsHandlers),
  route(QuotesGroup, QuotesHandlers),
  route(TransactionsGroup, TransactionsHandlers),
  route(TransfersGroup, TransfersHandlers),
  route(SandboxMoneyGroup, SandboxMoneyHandlers),
  route(WebhooksGroup, WebhooksHandlers),
  route(DiscoveriesGroup, DiscoveriesHandlers),
  route(ReceiverLookupsGroup, ReceiverLookupsHandlers),
  route(EmbeddedWalletAuthGroup, EmbeddedWalletAuthHandlers),
  route(InternalAccountActionsGroup, InternalAccountActionsHandlers),
  route(CardsGroup, CardsHandlers),
  route(StablecoinsGroup, StablecoinsHandlers),
  route(CardSimulationsGroup, CardSimulationsHandlers),
  route(VaspsGroup, VaspsHandlers),
  route(UmaProvidersGroup, UmaProvidersHandlers),
  route(CryptoWithdrawalsGroup, CryptoWithdrawalsHandlers),
  route(InvitationsGroup, InvitationsHandlers),
  route(KycLinksGroup, KycLinksHandlers),
  route(SandboxInsightGroup, SandboxInsightHandlers),
  route(SandboxControlGroup, SandboxControlHandlers),
  route(BulkCustomersGroup, BulkCustomersHandlers),
  route(TokensGroup, TokensHandlers),
  // Their own middleware (HTTP Basic; none; the agent scheme) and version base.
  route(AgentsGroup, AgentsHandlers),
  route(AgentDeviceCodesGroup, AgentDeviceCodesHandlers),
  route(AgentOperationsGroup, AgentOperationsHandlers),
  route(KycHostedFlowGroup, KycHostedFlowHandlers)
] as const

const [first, ...rest] = ROUTES
/** The handlers of every group in ROUTES (a non-empty tuple, as Layer.provide takes). */
export const HANDLERS = [first.handlers, ...rest.map((route) => route.handlers)] as const
