/**
 * The versioned schema, one migration per entry, applied in order at start by
 * `migrate` (effect/sql's Migrator, tracked in `payments_migrations`). Applied
 * migrations never change; a change to the schema is a new entry, here or (for a new
 * area's tables) in the area's `migrations` (./documents.ts `SqlArea`), which `migrate`
 * merges with this list by number.
 *
 * Columns are real for what is queried, indexed or constrained; the rest of a record
 * is its JSON document (`doc`). Ids and keys use the "C" collation so the keyset
 * order is byte order, the same order the memory store pages in.
 *
 * Unique index names are the port's `UniqueConstraints` (what a `StoreConflict` names),
 * interpolated so they are stated once; the text of every statement is unchanged.
 */
import { Effect } from "effect"
import { Migrator, SqlClient } from "effect/sql"
import { MigrationError, type ResolvedMigration } from "effect/sql/Migrator"
import { UniqueConstraints } from "../../ports/shared.js"
import { AGENT_ID_INDEXES } from "./agents.js"
import type { SqlMigration } from "./documents.js"

const statements = (...sqls: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    for (const text of sqls) yield* sql.unsafe(text)
  })

const v1_initial = statements(
  `create table customers (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    updated_ms bigint not null,
    platform_customer_id text collate "C" not null,
    active boolean not null,
    customer_type text not null,
    region text,
    uma_address text collate "C",
    currencies text[] not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.customersActivePlatformCustomerId} on customers (platform_id, platform_customer_id) where active`,
  `create index customers_keyset on customers (platform_id, created_ms, id)`,
  `create table external_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    currency text not null,
    equivalence_key text collate "C" not null,
    default_uma boolean not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.externalAccountsEquivalence} on external_accounts (platform_id, equivalence_key)`,
  `create unique index ${UniqueConstraints.externalAccountsDefaultUma} on external_accounts (platform_id, customer_id) where default_uma`,
  `create index external_accounts_keyset on external_accounts (platform_id, created_ms, id)`,
  `create table documents (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    holder_id text collate "C" not null,
    document_type text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.documentsHolderType} on documents (platform_id, holder_id, document_type)`,
  `create index documents_keyset on documents (platform_id, created_ms, id)`,
  `create table beneficial_owners (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index beneficial_owners_customer on beneficial_owners (platform_id, customer_id, created_ms, id)`,
  `create index beneficial_owners_keyset on beneficial_owners (platform_id, created_ms, id)`,
  `create table verifications (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C" not null,
    status text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index verifications_keyset on verifications (platform_id, created_ms, id)`,
  `create table events (
    seq bigserial primary key,
    platform_id text collate "C" not null,
    id text collate "C" not null,
    type text not null,
    doc jsonb not null
  )`,
  `create index events_platform on events (platform_id, seq)`,
  `create table timers (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    at_ms bigint not null,
    kind text collate "C" not null,
    subject_id text collate "C" not null,
    event text not null,
    primary key (platform_id, id)
  )`,
  `create index timers_due on timers (platform_id, at_ms, id)`,
  `create index timers_subject on timers (platform_id, subject_id, kind)`,
  `create table timer_outcomes (
    seq bigserial primary key,
    platform_id text collate "C" not null,
    doc jsonb not null
  )`,
  `create index timer_outcomes_platform on timer_outcomes (platform_id, seq)`,
  `create table platform_clocks (
    platform_id text collate "C" primary key,
    offset_ms bigint not null
  )`,
  `create table idempotency_keys (
    platform_id text collate "C" not null,
    key text collate "C" not null,
    operation text not null,
    request_hash text not null,
    body jsonb,
    created_ms bigint not null,
    expires_ms bigint not null,
    primary key (platform_id, key)
  )`,
  `create index idempotency_keys_expiry on idempotency_keys (expires_ms)`
)

/** UMA addresses are unique among a platform's active customers, without regard to case. */
const v2_customer_uma_address = statements(
  `create unique index ${UniqueConstraints.customersActiveUmaAddress} on customers (platform_id, lower(uma_address)) where active and uma_address is not null`
)

/**
 * Money movement: internal accounts, the ledger (balances and journal entries), quotes,
 * transactions and platform configurations. Balances are bigint minor units; the CHECKs
 * are a backstop behind the adapter's own refusals (an internal account never below
 * zero; every balance exact as a JSON number).
 */
const v3_money = statements(
  `create table internal_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    currency text collate "C" not null,
    type text not null,
    status text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.internalAccountsOwnerCurrency} on internal_accounts (platform_id, coalesce(customer_id, ''), currency)`,
  `create index internal_accounts_keyset on internal_accounts (platform_id, created_ms, id)`,
  `create table ledger_balances (
    platform_id text collate "C" not null,
    account text collate "C" not null,
    currency text collate "C" not null,
    balance bigint not null,
    primary key (platform_id, account),
    constraint ledger_balances_internal_nonnegative check (account not like 'InternalAccount:%' or balance >= 0),
    constraint ledger_balances_exact check (balance between -9007199254740991 and 9007199254740991)
  )`,
  `create table journal_entries (
    seq bigserial primary key,
    platform_id text collate "C" not null,
    id text collate "C" not null,
    kind text not null,
    transaction_id text collate "C",
    at_ms bigint not null,
    doc jsonb not null
  )`,
  `create index journal_entries_platform on journal_entries (platform_id, seq)`,
  `create index journal_entries_transaction on journal_entries (platform_id, transaction_id, seq) where transaction_id is not null`,
  `create table quotes (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create table transactions (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    customer_id text collate "C",
    platform_customer_id text collate "C",
    status text not null,
    type text not null,
    sender text collate "C",
    receiver text collate "C" not null,
    reference text collate "C",
    sent_currency text collate "C",
    sent_amount bigint,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index transactions_keyset on transactions (platform_id, created_ms, id)`,
  `create index transactions_customer on transactions (platform_id, customer_id, created_ms, id)`,
  `create index transactions_platform_customer on transactions (platform_id, platform_customer_id, created_ms, id)`,
  `create index transactions_sender on transactions (platform_id, sender, created_ms, id)`,
  `create index transactions_receiver on transactions (platform_id, receiver, created_ms, id)`,
  `create index transactions_reference on transactions (platform_id, reference) where reference is not null`,
  `create index transactions_sent_volume on transactions (platform_id, customer_id, sent_currency, created_ms) where type = 'OUTGOING'`,
  `create table platform_configs (
    platform_id text collate "C" primary key,
    doc jsonb not null
  )`
)

/**
 * Webhook delivery: each platform's signing key (kept across sandbox resets), the outbox
 * position delivery has reached, and the deliveries with their attempts (`doc`). The
 * partial indexes serve the claim: the next PENDING delivery in outbox order whose
 * resource has no earlier PENDING one.
 */
const v4_webhooks = statements(
  `create table webhook_keys (
    platform_id text collate "C" primary key,
    private_key_hex text not null,
    public_key_hex text not null,
    created_ms bigint not null
  )`,
  `create table webhook_cursors (
    platform_id text collate "C" primary key,
    seq bigint not null
  )`,
  `create table webhook_deliveries (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    seq bigint not null,
    resource_id text collate "C" not null,
    status text not null,
    next_ms bigint not null,
    lease_until bigint,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index webhook_deliveries_keyset on webhook_deliveries (platform_id, seq, id)`,
  `create index webhook_deliveries_pending on webhook_deliveries (platform_id, seq) where status = 'PENDING'`,
  `create index webhook_deliveries_resource on webhook_deliveries (platform_id, resource_id, seq) where status = 'PENDING'`
)

/** Embedded wallets: credentials, sessions, signed-request challenges and rate windows as documents. */
const v5_wallets = statements(
  `create table wallet_records (
    platform_id text collate "C" not null,
    kind text collate "C" not null,
    id text collate "C" not null,
    account_id text collate "C" not null,
    lookup_key text collate "C",
    doc jsonb not null,
    primary key (platform_id, kind, id)
  )`,
  `create index wallet_records_account on wallet_records (platform_id, kind, account_id)`,
  `create index wallet_records_lookup on wallet_records (platform_id, kind, lookup_key) where lookup_key is not null`
)

/**
 * The daily volume a customer has sent, per sending currency and UTC day of
 * `created_ms`, kept by a trigger on `transactions` (since migration 20 a new payment's
 * by its insert's statement, the trigger for updates and deletes) (what `transactions.sentVolume`
 * sums: OUTGOING, not FAILED or EXPIRED). `sentVolume` reads one row instead of a
 * range of the `transactions_sent_volume` index: under SERIALIZABLE a range read
 * predicate-locks whole index pages, and every payment inserts into those pages, so
 * payments of unrelated customers aborted each other (docs/performance.md). The rows are
 * moved by upserts (no predicate read) and the tables leave room on each page so an
 * update stays on its page (a HOT update writes no index page another reader locked).
 */
const v6_sent_volumes = statements(
  `create table sent_volumes (
    platform_id text collate "C" not null,
    customer_key text collate "C" not null,
    currency text collate "C" not null,
    day_ms bigint not null,
    amount bigint not null,
    primary key (platform_id, customer_key, currency, day_ms)
  ) with (fillfactor = 50)`,
  `alter table ledger_balances set (fillfactor = 50)`,
  `alter table quotes set (fillfactor = 50)`,
  `alter table transactions set (fillfactor = 50)`,
  `create function payments_sent_volume() returns trigger language plpgsql as $$
  declare
    old_counted boolean := tg_op <> 'INSERT' and old.type = 'OUTGOING' and old.sent_currency is not null
      and old.sent_amount is not null and old.status not in ('FAILED', 'EXPIRED');
    new_counted boolean := tg_op <> 'DELETE' and new.type = 'OUTGOING' and new.sent_currency is not null
      and new.sent_amount is not null and new.status not in ('FAILED', 'EXPIRED');
  begin
    if old_counted and new_counted and old.platform_id = new.platform_id and old.customer_id is not distinct from new.customer_id
      and old.sent_currency = new.sent_currency and old.created_ms = new.created_ms and old.sent_amount = new.sent_amount then
      return null;
    end if;
    if old_counted then
      insert into sent_volumes as v (platform_id, customer_key, currency, day_ms, amount)
      values (old.platform_id, coalesce(old.customer_id, ''), old.sent_currency, old.created_ms - mod(mod(old.created_ms, 86400000) + 86400000, 86400000), -old.sent_amount)
      on conflict (platform_id, customer_key, currency, day_ms) do update set amount = v.amount + excluded.amount;
    end if;
    if new_counted then
      insert into sent_volumes as v (platform_id, customer_key, currency, day_ms, amount)
      values (new.platform_id, coalesce(new.customer_id, ''), new.sent_currency, new.created_ms - mod(mod(new.created_ms, 86400000) + 86400000, 86400000), new.sent_amount)
      on conflict (platform_id, customer_key, currency, day_ms) do update set amount = v.amount + excluded.amount;
    end if;
    return null;
  end
  $$`,
  `create trigger transactions_sent_volume after insert or update or delete on transactions
     for each row execute function payments_sent_volume()`,
  `insert into sent_volumes (platform_id, customer_key, currency, day_ms, amount)
   select platform_id, coalesce(customer_id, ''), sent_currency, created_ms - mod(mod(created_ms, 86400000) + 86400000, 86400000), sum(sent_amount)
   from transactions
   where type = 'OUTGOING' and sent_currency is not null and sent_amount is not null and status not in ('FAILED', 'EXPIRED')
   group by 1, 2, 3, 4`
)

/**
 * Cards: real columns for the list filters and the slot rule, the record as JSON. A
 * card's platformCardId is unique in its platform (closed cards keep theirs). The live
 * cards (not CLOSED) have their own partial index, which the slot rule's count reads.
 */
const v7_cards = statements(
  `create table cards (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    cardholder_id text collate "C" not null,
    platform_card_id text collate "C" not null,
    state text collate "C" not null,
    funding_sources text[] collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.cardsPlatformCardId} on cards (platform_id, platform_card_id)`,
  `create index cards_keyset on cards (platform_id, created_ms, id)`,
  `create index cards_cardholder on cards (platform_id, cardholder_id, created_ms, id)`,
  `create index cards_live on cards (platform_id, cardholder_id) where state <> 'CLOSED'`,
  `create index cards_funding_sources on cards using gin (funding_sources)`
)

/**
 * Card transactions (docs/card-transactions.md): real columns for GET /transactions'
 * filters (card, customer, platformCustomerId, funding account, direction) and the
 * keyset order, the record (the row and its machine state) as JSON.
 */
const v8_card_transactions = statements(
  `create table card_transactions (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    card_id text collate "C" not null,
    customer_id text collate "C" not null,
    platform_customer_id text collate "C" not null,
    account_id text collate "C",
    direction text collate "C" not null,
    status text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index card_transactions_keyset on card_transactions (platform_id, created_ms, id)`,
  `create index card_transactions_card on card_transactions (platform_id, card_id, created_ms, id)`,
  `create index card_transactions_customer on card_transactions (platform_id, customer_id, created_ms, id)`,
  `create index card_transactions_account on card_transactions (platform_id, account_id, created_ms, id)`
)

/**
 * Stablecoin issuance (docs/stablecoins.md): provider account links, registered
 * stablecoins and their issuer operations, each a JSON document with real columns for the
 * list filters and the unique keys (one link per provider account, one stablecoin per
 * symbol and per network token identifier, in each platform).
 */
const v9_stablecoins = statements(
  `create table stablecoin_provider_accounts (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    provider text collate "C" not null,
    provider_account_id text collate "C" not null,
    status text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.stablecoinProviderAccountsAccount} on stablecoin_provider_accounts (platform_id, provider, provider_account_id)`,
  `create index stablecoin_provider_accounts_keyset on stablecoin_provider_accounts (platform_id, created_ms, id)`,
  `create table stablecoins (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    symbol text collate "C" not null,
    network text collate "C" not null,
    network_token_identifier text collate "C" not null,
    issuance_status text collate "C" not null,
    grid_operations_status text collate "C" not null,
    provider text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create unique index ${UniqueConstraints.stablecoinsSymbol} on stablecoins (platform_id, symbol)`,
  `create unique index ${UniqueConstraints.stablecoinsTokenIdentifier} on stablecoins (platform_id, network, network_token_identifier)`,
  `create index stablecoins_keyset on stablecoins (platform_id, created_ms, id)`,
  `create table stablecoin_operations (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    stablecoin_id text collate "C" not null,
    operation_type text collate "C" not null,
    status text collate "C" not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index stablecoin_operations_stablecoin on stablecoin_operations (platform_id, stablecoin_id, created_ms, id)`
)

/** Agents (docs/agents.md): agents, device codes, access tokens and actions as documents. */
const v10_agents = statements(
  `create table agent_records (
    platform_id text collate "C" not null,
    kind text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    agent_id text collate "C",
    customer_id text collate "C" not null,
    status text collate "C",
    doc jsonb not null,
    primary key (platform_id, kind, id)
  )`,
  // Device codes and tokens are found without a platform (redeem, the agent scheme): unique service-wide.
  `create unique index ${AGENT_ID_INDEXES.deviceCodes} on agent_records (id) where kind = 'deviceCode'`,
  `create unique index ${AGENT_ID_INDEXES.tokens} on agent_records (id) where kind = 'token'`,
  `create index agent_records_keyset on agent_records (platform_id, kind, created_ms, id)`,
  `create index agent_records_agent on agent_records (platform_id, kind, agent_id) where agent_id is not null`
)

const v11_invitations = statements(
  `create table invitations (
    code text collate "C" primary key,
    platform_id text collate "C" not null,
    created_ms bigint not null,
    status text collate "C" not null,
    doc jsonb not null
  )`,
  `create index invitations_platform on invitations (platform_id)`
)

/**
 * The journal of each internal account (GET /sandbox/internal-accounts/{id}/journal):
 * one row per internal account and journal entry that posts to it, kept by a trigger
 * on `journal_entries` (since migration 20: written by the entry's statement), so a page of one account's journal is an index range however
 * large the platform's journal grows. Rows of entries written before this migration
 * are filled in by it.
 */
const v12_account_journal = statements(
  `create table journal_account_postings (
    platform_id text collate "C" not null,
    account text collate "C" not null,
    seq bigint not null,
    currency text collate "C" not null,
    amount bigint not null,
    primary key (platform_id, account, seq)
  )`,
  `create function payments_journal_account_postings() returns trigger language plpgsql as $$
  begin
    insert into journal_account_postings (platform_id, account, seq, currency, amount)
    select new.platform_id, p->>'account', new.seq, min(p->>'currency'), sum((p->>'amount')::bigint)
    from jsonb_array_elements(new.doc->'postings') p
    where p->>'account' like 'InternalAccount:%'
    group by p->>'account';
    return null;
  end
  $$`,
  `create trigger journal_entries_account_postings after insert on journal_entries
     for each row execute function payments_journal_account_postings()`,
  `insert into journal_account_postings (platform_id, account, seq, currency, amount)
   select j.platform_id, p->>'account', j.seq, min(p->>'currency'), sum((p->>'amount')::bigint)
   from journal_entries j, jsonb_array_elements(j.doc->'postings') p
   where p->>'account' like 'InternalAccount:%'
   group by j.platform_id, p->>'account', j.seq`
)

/** Sandbox fault rules (docs/sandbox.md#fault-injection): one row per platform, with the counter their probabilities draw from. */
const v13_sandbox_faults = statements(
  `create table sandbox_faults (
    platform_id text collate "C" primary key,
    config jsonb not null,
    matched bigint not null default 0
  )`
)

/**
 * Ordered indexes for the list filters that had none, so a first page and its bounded
 * total (TOTAL_COUNT_LIMIT) read index entries of the matching rows only, whatever the
 * table holds (found with EXPLAIN (ANALYZE, BUFFERS) at 200,000 payments: a filter
 * without its own index walked the keyset index discarding rows, and a count of a rare
 * match, such as the platform's own accounts, read the whole table).
 */
const v14_list_indexes = statements(
  `create index transactions_type on transactions (platform_id, type, created_ms, id)`,
  `create index transactions_status on transactions (platform_id, status, created_ms, id)`,
  `create index transactions_type_status on transactions (platform_id, type, status, created_ms, id)`,
  `create index transactions_customer_type on transactions (platform_id, customer_id, type, created_ms, id)`,
  `create index internal_accounts_customer on internal_accounts (platform_id, customer_id, created_ms, id)`,
  `create index internal_accounts_platform on internal_accounts (platform_id, created_ms, id) where customer_id is null`,
  `create index external_accounts_customer on external_accounts (platform_id, customer_id, created_ms, id)`,
  `create index external_accounts_platform on external_accounts (platform_id, created_ms, id) where customer_id is null`
)

const v15_bulk_jobs = statements(
  `create table bulk_jobs (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    status text collate "C" not null,
    doc jsonb not null,
    rows jsonb not null,
    primary key (platform_id, id)
  )`
)

const v16_api_tokens = statements(
  `create table api_tokens (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    client_id text collate "C" not null,
    created_ms bigint not null,
    updated_ms bigint not null,
    name text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  // Client ids are random (128 bits): a violation is a defect, never a StoreConflict.
  `create unique index api_tokens_client_id on api_tokens (client_id)`,
  `create index api_tokens_platform_created on api_tokens (platform_id, created_ms, id)`
)

/**
 * The retention sweep (src/operations/retention.ts): finished deliveries (DELIVERED or
 * FAILED) in the order they finished on the platform's clock, so a sweep reads the due
 * ones only. Events are swept in `seq` order through `events_platform` (since migration 22,
 * the primary key `(platform_id, seq)`).
 */
const v17_webhook_retention = statements(
  `create index webhook_deliveries_finished on webhook_deliveries (platform_id, ((doc->>'updatedAt')::float8)) where status <> 'PENDING'`
)

/**
 * Sandbox snapshots (docs/sandbox.md#snapshots, ./snapshots.ts): a record per snapshot
 * (with the schema it was taken on) and each saved row of the platform's tables as its
 * row text (`row::text`, read back with a cast to the table's row type); and the function
 * a restore calls, which rewrites the given tables of one platform from a snapshot in one
 * round trip (inside the caller's transaction): every table emptied first, then each
 * emptied again and refilled, in the order given.
 */
const v18_sandbox_snapshots = statements(
  `create table sandbox_snapshots (
    platform_id text collate "C" not null,
    id text collate "C" not null,
    created_ms bigint not null,
    schema text not null,
    doc jsonb not null,
    primary key (platform_id, id)
  )`,
  `create index sandbox_snapshots_keyset on sandbox_snapshots (platform_id, created_ms, id)`,
  `create table sandbox_snapshot_rows (
    platform_id text collate "C" not null,
    snapshot_id text collate "C" not null,
    table_name text collate "C" not null,
    row text not null
  )`,
  `create index sandbox_snapshot_rows_table on sandbox_snapshot_rows (platform_id, snapshot_id, table_name)`,
  `create function payments_restore_snapshot(p_platform text, p_snapshot text, p_tables text[]) returns void language plpgsql as $$
  declare
    t text;
  begin
    foreach t in array p_tables loop
      execute format('delete from %I where platform_id = $1', t) using p_platform;
    end loop;
    -- Each table emptied again just before its rows go back: what the triggers of the
    -- tables restored before it wrote there (journal_account_postings, sent_volumes) goes.
    -- "offset 0" keeps the cast one per row (not one per column of "(r).*").
    foreach t in array p_tables loop
      execute format('delete from %I where platform_id = $1', t) using p_platform;
      execute format(
        'insert into %I select (q.r).* from (select s.row::%I as r from sandbox_snapshot_rows s where s.platform_id = $1 and s.snapshot_id = $2 and s.table_name = $3 offset 0) q',
        t, t
      ) using p_platform, p_snapshot, t;
    end loop;
  end
  $$`
)

/**
 * Narrow indexes for the bounded counts (`pageStatement` in ./documents.ts: at most
 * TOTAL_COUNT_LIMIT + 1 entries) of the lists whose unfiltered first page matches most
 * of a table: a platform's active customers, its customers' internal and its customers'
 * external accounts. Each holds the platform alone, partial on the list's own predicate,
 * so B-tree deduplication keeps a platform's entries as posting lists: a count of 1,001
 * reads 2-3 index pages, index-only, where it read 20-37 pages of the wider indexes
 * (`customers_active_platform_customer_id`, `*_accounts_customer`), and does less work
 * per entry (found with EXPLAIN (ANALYZE, BUFFERS) at 100,000 payments: docs/performance.md,
 * "The bounded counts' first pages"). Not on the money path's write side (customers and
 * accounts are written when created or changed, not per payment).
 */
const v19_count_indexes = statements(
  `create index customers_active_count on customers (platform_id) where active`,
  `create index internal_accounts_customers_count on internal_accounts (platform_id) where customer_id is not null`,
  `create index external_accounts_customers_count on external_accounts (platform_id) where customer_id is not null`
)

/**
 * What the money path's writes derive (a journal entry's rows in `journal_account_postings`,
 * a new payment's daily volume in `sent_volumes`) is written by the writes' own statement
 * (./money.ts: a second data-modifying part of the same statement, ./pending.ts `also`)
 * instead of by a PL/pgSQL trigger per row: a trigger call (and the executor its insert
 * starts) per journal entry and per payment cost the database about a tenth of a payment's
 * CPU (docs/performance.md). The journal's trigger goes (`post` is its table's only
 * writer; a snapshot's restore brings the postings back with the entries). The volume's
 * trigger stays for what the writer does not know, an update or a delete of a payment
 * (the row before it), and fires only when a column the volume depends on changed; an
 * insert's volume is the writer's (`putTransaction`, the table's only writer).
 *
 * And events' documents as `json` rather than `jsonb`: a payment's four events (about 1 KB
 * each) were parsed into jsonb on every insert (`jsonb_in`) and printed again on every
 * read, though nothing looks inside them but the retention sweep's timestamp (./events.ts).
 */
const v20_lighter_money_writes = statements(
  `drop trigger journal_entries_account_postings on journal_entries`,
  `drop function payments_journal_account_postings()`,
  `drop trigger transactions_sent_volume on transactions`,
  `create trigger transactions_sent_volume after update on transactions
     for each row
     when ((old.platform_id, old.customer_id, old.type, old.status, old.sent_currency, old.sent_amount, old.created_ms)
       is distinct from (new.platform_id, new.customer_id, new.type, new.status, new.sent_currency, new.sent_amount, new.created_ms))
     execute function payments_sent_volume()`,
  `create trigger transactions_sent_volume_delete after delete on transactions
     for each row execute function payments_sent_volume()`,
  // Events' documents are written and read whole (./events.ts: listed as text, the sweep's
  // one field read with `->>`, which json has too): stored as sent, only validated.
  `alter table events alter column doc type json using doc::json`,
  // A payment's record is written whole and read whole (lists, gets: as text); nothing
  // looks inside it in SQL.
  `alter table transactions alter column doc type json using doc::json`,
  // A quote's plan fields an execution's read ahead starts from (./payment-reads.ts), as
  // columns written with it (./money.ts `putQuote`) rather than read out of its document,
  // which is then written and read whole, as json.
  `alter table quotes add column customer_id text collate "C", add column currency text collate "C",
     add column source_id text collate "C", add column destination_id text collate "C"`,
  `update quotes set customer_id = doc->'plan'->>'customerId', currency = doc->'quote'->'sendingCurrency'->>'code',
     source_id = doc->'plan'->'source'->>'accountId',
     destination_id = coalesce(doc->'plan'->'destination'->>'accountId', doc->'plan'->'destination'->>'internalAccountId')`,
  `alter table quotes alter column doc type json using doc::json`,
  // The rest of the money path's documents, likewise: a journal entry's (the system
  // accounts' sums read its postings with json's operators, ./money.ts), an internal
  // account's and the platform's configuration (read whole by every payment).
  `alter table journal_entries alter column doc type json using doc::json`,
  `alter table internal_accounts alter column doc type json using doc::json`,
  `alter table platform_configs alter column doc type json using doc::json`
)

/** The SQLSTATE `payments_clock_offset_is` raises (a class of PostgreSQL's none uses). */
export const CLOCK_OFFSET_REFUSED = "PC001"

/**
 * The check of a request's guessed clock offset (./one-round-trip.ts), made in SQL: the
 * last statement of a unit of work's attempt calls it, and the attempt's COMMIT goes in
 * the same write as that statement (./direct.ts), so nothing in JavaScript reads the row
 * before COMMIT. A stored offset other than the guessed one raises SQLSTATE `PC001`
 * (`CLOCK_OFFSET_REFUSED`): the statement fails, the transaction is aborted, COMMIT
 * answers ROLLBACK, and the request runs again on the stored offset. A platform with no
 * stored offset has offset 0.
 */
const v21_clock_offset_check = statements(
  `create function payments_clock_offset_is(p_platform_id text, p_guessed float8) returns boolean
     language plpgsql as $$
     begin
       if coalesce((select offset_ms from platform_clocks where platform_id = p_platform_id), 0)::float8 is distinct from p_guessed then
         raise exception 'the platform''s clock offset is not the one this request ran on' using errcode = '${CLOCK_OFFSET_REFUSED}';
       end if;
       return true;
     end
     $$`
)

/**
 * Fewer index entries written per payment (docs/performance.md, "The database's work per
 * payment"; every index of a table written is opened, locked and written at each insert):
 * - `events` and `journal_entries` are keyed by `(platform_id, seq)` instead of `seq`
 *   alone beside an index on `(platform_id, seq)`: one index each instead of two, which
 *   serves every read of them (each reads one platform's rows in `seq` order: ./events.ts,
 *   ./money.ts; the account journal joins an entry by its platform and `seq`). A
 *   payment's four events and two journal entries write six index entries fewer.
 * - `transactions_sent_volume` goes: the daily window reads `sent_volumes` (migration 6),
 *   and a window that does not start a day (no caller of the service has one) reads the
 *   customer's outgoing payments since its start through `transactions_customer_type`.
 * Indexes only: no row moves.
 */
const v22_fewer_money_indexes = statements(
  `alter table events drop constraint events_pkey, add primary key (platform_id, seq)`,
  `drop index events_platform`,
  `alter table journal_entries drop constraint journal_entries_pkey, add primary key (platform_id, seq)`,
  `drop index journal_entries_platform`,
  `drop index transactions_sent_volume`
)

/** The SQLSTATE `payments_reads_are` raises (a class of PostgreSQL's none uses, as `PC001`). */
export const READS_REFUSED = "PC002"

/**
 * The check of a payment's guessed reads (./guessed-reads.ts), made in SQL like the clock
 * offset's: the last statement of an attempt that ran on rows it did not read calls it
 * with whether each of those rows is, in the transaction's snapshot, the one guessed (and
 * whether the transaction has written nothing before that statement). Anything but true
 * raises SQLSTATE `PC002` (`READS_REFUSED`): the statement fails, COMMIT answers ROLLBACK,
 * and the unit of work runs again reading the rows.
 */
const v23_guessed_reads_check = statements(
  `create function payments_reads_are(p_ok boolean) returns boolean
     language plpgsql as $$
     begin
       if p_ok is not true then
         raise exception 'a row this attempt ran on is not the one its snapshot holds' using errcode = '${READS_REFUSED}';
       end if;
       return true;
     end
     $$`
)

/**
 * The clock offset's check without a query inside a function (docs/performance.md, "16 MB
 * semi-spaces, the clock check as a subquery, fault decisions without a fiber"):
 * `payments_clock_offset_is` read the stored offset with a query of its own, which PL/pgSQL
 * runs through SPI (a plan looked up, an executor started and ended) at every quote and
 * execution. The statement now reads the offset itself, as
 * an ordinary subquery of the statement carrying the check, and hands this function only
 * whether it is the guessed one. Same refusal, SQLSTATE `PC001` (`CLOCK_OFFSET_REFUSED`).
 * `payments_clock_offset_is` stays for a process of the version before, on the same
 * database, until it stops.
 */
const v24_clock_check_as_subquery = statements(
  `create function payments_clock_is(p_ok boolean) returns boolean
     language plpgsql as $$
     begin
       if p_ok is not true then
         raise exception 'the platform''s clock offset is not the one this request ran on' using errcode = '${CLOCK_OFFSET_REFUSED}';
       end if;
       return true;
     end
     $$`
)

/**
 * The query of `payments_event_seqs` (migration 25), over its arguments: both bounds of
 * the seq range are conditions of `events_pkey` (null `upto`: no upper bound).
 */
const eventSeqsQuery = (platform: string, after: string, upto: string, limit: string) =>
  `select seq from events where platform_id = ${platform} and seq > ${after} and seq <= coalesce(${upto}, 9223372036854775807)
       order by platform_id, seq limit ${limit}`
/** `payments_event_seqs`'s query with parameters $1–$4, for the tests that read its plan (under the same settings). */
export const EVENT_SEQS_QUERY = eventSeqsQuery("$1", "$2::bigint", "$3::bigint", "$4::int")

/**
 * A resource's first pending delivery marked (`head`), and the due heads indexed by when
 * they are due (docs/webhooks.md, "Order"; docs/performance.md, "A claim that reads the
 * due heads only"): the claim walked the pending deliveries from the oldest and passed
 * every one waiting behind an earlier one of its resource, so its cost grew with the
 * backlog (a receiver down, or behind the money load: the chains of the accounts'
 * balance webhooks). The writes of ./webhooks.ts keep `head` (each batch's statement marks
 * its own rows and moves the mark of the rows it does not write). Existing pending
 * deliveries are marked here; `webhook_deliveries_pending`, which only the old claim
 * walked, goes.
 */
const v25_webhook_heads = statements(
  `alter table webhook_deliveries add column head boolean not null default false`,
  `update webhook_deliveries d set head = true
     from (select platform_id, resource_id, min(seq) as first from webhook_deliveries where status = 'PENDING' group by platform_id, resource_id) f
     where d.platform_id = f.platform_id and d.resource_id = f.resource_id and d.seq = f.first and d.status = 'PENDING'`,
  `create index webhook_deliveries_due on webhook_deliveries (platform_id, next_ms, seq) where status = 'PENDING' and head`,
  `drop index webhook_deliveries_pending`,
  // The outbox's first `p_limit` seqs of a platform after `p_after` and at most `p_upto`
  // (null: no bound), oldest first, by `events_pkey` in order. A function so that its
  // query is planned without bitmap scans: a bitmap scan, unordered, reads every event in
  // the range and sorts them to keep the first few, and PostgreSQL's planner (PGlite's,
  // with no statistics, always; PostgreSQL's for a generic plan over a small table) chose
  // it for the webhook import and the retention sweep, whose ranges grow with the backlog
  // (docs/performance.md, "A claim that reads the due heads only").
  `create function payments_event_seqs(p_platform text, p_after bigint, p_upto bigint, p_limit integer) returns setof bigint
     language sql stable
     set enable_bitmapscan = off
     set enable_seqscan = off
     as $$ ${eventSeqsQuery("p_platform", "p_after", "p_upto", "p_limit")} $$`
)

export const MIGRATIONS = {
  "1_initial": v1_initial,
  "2_customer_uma_address": v2_customer_uma_address,
  "3_money": v3_money,
  "4_webhooks": v4_webhooks,
  "5_wallets": v5_wallets,
  "6_sent_volumes": v6_sent_volumes,
  "7_cards": v7_cards,
  "8_card_transactions": v8_card_transactions,
  "9_stablecoins": v9_stablecoins,
  "10_agents": v10_agents,
  "11_invitations": v11_invitations,
  "12_account_journal": v12_account_journal,
  "13_sandbox_faults": v13_sandbox_faults,
  "14_list_indexes": v14_list_indexes,
  "15_bulk_jobs": v15_bulk_jobs,
  "16_api_tokens": v16_api_tokens,
  "17_webhook_retention": v17_webhook_retention,
  "18_sandbox_snapshots": v18_sandbox_snapshots,
  "19_count_indexes": v19_count_indexes,
  "20_lighter_money_writes": v20_lighter_money_writes,
  "21_clock_offset_check": v21_clock_offset_check,
  "22_fewer_money_indexes": v22_fewer_money_indexes,
  "23_guessed_reads_check": v23_guessed_reads_check,
  "24_clock_check_as_subquery": v24_clock_check_as_subquery,
  "25_webhook_heads": v25_webhook_heads
} as const

/** The table effect/sql's Migrator records applied migrations in. */
export const MIGRATIONS_TABLE = "payments_migrations"

/** A fixed key for the advisory lock that lets one process at a time migrate. */
const MIGRATION_LOCK_KEY = 7_285_104_331

type Statements = Effect.Effect<void, unknown, SqlClient.SqlClient>

/**
 * The listed migrations and the ones the areas carry, as one list in number order. The
 * numbers run 1, 2, 3, … with none twice and none missing, whichever way each was added:
 * anything else (or an id not `<number>_<name>`) fails `migrate` at start, before any
 * migration runs, rather than skipping a migration numbered below one already applied.
 */
export const resolveMigrations = (
  listed: Readonly<Record<string, Statements>>,
  carried: ReadonlyArray<SqlMigration>
): Effect.Effect<ReadonlyArray<ResolvedMigration>, MigrationError> =>
  Effect.suspend(() => {
    const all: Array<readonly [id: string, run: Statements]> = [
      ...Object.entries(listed),
      ...carried.map((m) => [m.id, statements(...m.statements)] as const)
    ]
    const resolved: Array<ResolvedMigration> = []
    for (const [id, run] of all) {
      const parts = /^([1-9]\d*)_(.+)$/.exec(id)
      if (parts === null) return Effect.fail(new MigrationError({ kind: "BadState", message: `Migration id "${id}" is not <number>_<name>` }))
      resolved.push([Number(parts[1]), parts[2] ?? "", Effect.succeed(run)])
    }
    resolved.sort((a, b) => a[0] - b[0])
    for (let i = 0; i < resolved.length; i++) {
      const [number, name] = resolved[i] ?? [0, ""]
      const previous = resolved[i - 1]
      if (previous !== undefined && previous[0] === number) {
        return Effect.fail(new MigrationError({ kind: "Duplicates", message: `Migrations "${previous[0]}_${previous[1]}" and "${number}_${name}" share a number` }))
      }
      if (number !== i + 1) {
        return Effect.fail(new MigrationError({ kind: "BadState", message: `No migration numbered ${i + 1} (the next is "${number}_${name}")` }))
      }
    }
    return Effect.succeed(resolved)
  })

/**
 * Refuses a database a newer version has migrated: a migration numbered above every one
 * this version knows is recorded there. effect/sql's Migrator would run nothing and go
 * on, and this version would then write what that migration changed the old way (since
 * `20_lighter_money_writes`, for example, journal entries without their account-journal
 * rows): a process must not serve a database newer than its code.
 */
const refuseNewerDatabase = (sql: SqlClient.SqlClient, known: number) =>
  Effect.gen(function*() {
    const [table] = yield* sql.unsafe<{ readonly present: boolean }>(`select to_regclass('${MIGRATIONS_TABLE}') is not null as present`)
    if (table?.present !== true) return
    const [newest] = yield* sql.unsafe<{ readonly id: number; readonly name: string }>(
      `select migration_id as id, name from ${MIGRATIONS_TABLE} order by migration_id desc limit 1`
    )
    if (newest !== undefined && newest.id > known) {
      return yield* Effect.fail(new MigrationError({
        kind: "BadState",
        message: `The database was migrated by a newer version of payments-service (migration ${newest.id}_${newest.name}; this version knows migrations 1 to ${known}): run that version or a later one`
      }))
    }
  })

/** Applies the listed migrations and `carried` not applied yet (see `migrate` in ./store.ts, which gives the areas'). */
export const runMigrations = (carried: ReadonlyArray<SqlMigration>) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const run = Migrator.make({})({ loader: resolveMigrations(MIGRATIONS, carried), table: MIGRATIONS_TABLE })
    return yield* sql.withTransaction(
      Effect.andThen(
        sql.unsafe(`select pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`),
        Effect.andThen(refuseNewerDatabase(sql, Object.keys(MIGRATIONS).length + carried.length), run)
      )
    )
  })

