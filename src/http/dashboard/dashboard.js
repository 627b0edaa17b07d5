// The dashboard of the reference server (docs/dashboard.md): a client of the public API
// like any other. Plain browser JavaScript, no build step, no dependencies. Every element
// is built with textContent (never innerHTML), so nothing the API returns is run as markup.

const API = "/2025-10-13"
const SESSION_KEY = "payments-service-dashboard"
const TERMINAL = new Set(["COMPLETED", "FAILED", "EXPIRED", "REJECTED", "CANCELLED", "REFUNDED", "RETURNED"])
const VIEWS = {
  clock: "Sandbox clock",
  customers: "Customers",
  accounts: "Accounts",
  transactions: "Transactions",
  cards: "Cards",
  webhooks: "Webhook deliveries",
  requests: "Request log",
  audit: "Ledger audit"
}

let session = null
let sandbox = false

// ---------------------------------------------------------------- helpers

const $ = (id) => document.getElementById(id)

/** An element with attributes (`on*` are listeners) and children (strings become text). */
const h = (tag, attrs = {}, ...children) => {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith("on")) el.addEventListener(k.slice(2), v)
    else if (k === "class") el.className = v
    else el.setAttribute(k, v === true ? "" : String(v))
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) el.append(c instanceof Node ? c : String(c))
  return el
}

const say = (text) => { $("status").textContent = text }

/** Calls the API as the signed-in platform: `{ status, body }`. */
const api = async (method, path, body) => {
  const headers = { authorization: `Basic ${session.token}` }
  if (body !== undefined) headers["content-type"] = "application/json"
  const res = await fetch(`${API}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await res.text()
  let parsed = null
  try { parsed = text === "" ? null : JSON.parse(text) } catch { parsed = text }
  return { status: res.status, body: parsed }
}

/** The body of a 2xx answer, or throws an Error with the API's reason. */
const ok = async (method, path, body) => {
  const r = await api(method, path, body)
  if (r.status >= 200 && r.status < 300) return r.body
  const reason = r.body && typeof r.body === "object" ? `${r.body.code}: ${r.body.reason}` : `HTTP ${r.status}`
  const error = new Error(reason)
  error.status = r.status
  throw error
}

/** Every item of a list endpoint, following cursors (at most `max`). */
const all = async (path, max = 500) => {
  const out = []
  let cursor
  const sep = path.includes("?") ? "&" : "?"
  while (out.length < max) {
    const page = await ok("GET", `${path}${sep}limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ""}`)
    out.push(...page.data)
    if (!page.hasMore || !page.nextCursor) break
    cursor = page.nextCursor
  }
  return out
}

const money = (a) => {
  if (!a || typeof a !== "object") return ""
  const c = a.currency || {}
  const decimals = typeof c.decimals === "number" ? c.decimals : 2
  return `${(a.amount / 10 ** decimals).toFixed(decimals)} ${c.code || ""}`
}

const table = (caption, headers, rows) =>
  h("table", {},
    h("caption", {}, caption),
    h("thead", {}, h("tr", {}, headers.map((x) => h("th", { scope: "col" }, x)))),
    h("tbody", {}, rows.length === 0 ? h("tr", {}, h("td", { colspan: headers.length, class: "muted" }, "None")) : rows))

const status = (s) => h("span", { class: s }, s)
const sandboxOnly = () => h("p", { class: "notice" }, "Available to sandbox platforms only.")
const json = (v) => h("pre", {}, JSON.stringify(v, null, 2))

// ---------------------------------------------------------------- views

const views = {}

views.clock = async (body) => {
  if (!sandbox) return body.append(h("p", { class: "notice" }, "A production platform's clock is the real time; it cannot be moved."))
  const clock = await ok("GET", "/sandbox/clock")
  const now = h("p", { id: "clock-now" }, `Platform time: ${clock.now} (offset ${clock.offsetSeconds} s)`)
  const seconds = h("input", { id: "advance-seconds", type: "number", min: "0", max: "31536000", value: "3600", required: true })
  const form = h("form", {
    onsubmit: async (e) => {
      e.preventDefault()
      const c = await ok("POST", "/sandbox/clock/advance", { seconds: Number(seconds.value) })
      say(`Advanced ${seconds.value} s: platform time is now ${c.now}`)
      await show("clock")
    }
  }, h("label", { for: "advance-seconds" }, "Advance by (seconds)"), seconds, h("button", { type: "submit", class: "primary" }, "Advance"))
  const until = h("button", {
    type: "button",
    id: "advance-until-idle",
    onclick: async () => {
      until.disabled = true
      try {
        const days = await advanceUntilIdle()
        say(days === 0 ? "Nothing is pending." : `Advanced ${days} day(s): nothing is pending now.`)
      } finally {
        until.disabled = false
      }
      await show("clock")
    }
  }, "Advance until nothing is pending")
  body.append(now, form, h("p", {}, until, " moves the clock a day at a time (at most 30) until no transaction is in progress and no webhook waits for a retry."))
}

/** Whether anything still waits for the clock: a transaction in progress, a webhook to retry. */
const pendingWork = async () => {
  const txs = await all("/transactions", 1000)
  const deliveries = await all("/sandbox/webhooks/deliveries", 1000)
  return txs.filter((t) => !TERMINAL.has(t.status)).length + deliveries.filter((d) => d.status === "PENDING").length
}

const advanceUntilIdle = async () => {
  let days = 0
  while (days < 30 && (await pendingWork()) > 0) {
    await ok("POST", "/sandbox/clock/advance", { seconds: 86400 })
    days += 1
    say(`Advanced ${days} day(s)…`)
  }
  return days
}

const nameOf = (c) => c.fullName || (c.businessInfo && c.businessInfo.legalName) || ""

views.customers = async (body) => {
  const [customers, verifications] = await Promise.all([all("/customers"), all("/verifications").catch(() => [])])
  const latest = new Map()
  for (const v of verifications) {
    const seen = latest.get(v.customerId)
    if (!seen || v.createdAt > seen.createdAt) latest.set(v.customerId, v)
  }
  const search = h("input", { id: "customer-search", type: "search", placeholder: "name, id or platformCustomerId" })
  const rowsOf = (q) => customers
    .filter((c) => q === "" || [c.id, nameOf(c), c.platformCustomerId || ""].some((s) => s.toLowerCase().includes(q.toLowerCase())))
    .map((c) => {
      const v = latest.get(c.id)
      const errors = v ? v.errors : []
      return h("tr", {},
        h("td", {}, c.id),
        h("td", {}, nameOf(c)),
        h("td", {}, c.customerType),
        h("td", {}, c.platformCustomerId || ""),
        h("td", {}, status(c.kycStatus || c.kybStatus || "")),
        h("td", {}, v ? status(v.verificationStatus) : h("span", { class: "muted" }, "none")),
        h("td", {}, errors.length === 0 ? "" : h("ul", {}, errors.map((e) => h("li", {}, `${e.type}${e.field ? ` (${e.field})` : ""}: ${e.reason}`)))))
    })
  const holder = h("div", {})
  const render = () => holder.replaceChildren(table(`${customers.length} customers`, ["Id", "Name", "Type", "Platform customer id", "KYC/KYB status", "Latest verification", "Outstanding verification errors"], rowsOf(search.value)))
  search.addEventListener("input", render)
  body.append(h("form", { role: "search", onsubmit: (e) => e.preventDefault() }, h("label", { for: "customer-search" }, "Find a customer"), search), holder)
  render()
}

views.accounts = async (body) => {
  const [customerAccounts, platformAccounts, customerExternal, platformExternal] = await Promise.all([
    all("/customers/internal-accounts"),
    ok("GET", "/platform/internal-accounts").then((r) => r.data),
    all("/customers/external-accounts"),
    all("/platform/external-accounts")
  ])
  const journal = h("div", { id: "journal", "aria-live": "polite" })
  const showJournal = async (account) => {
    if (!sandbox) return journal.replaceChildren(sandboxOnly())
    const page = await ok("GET", `/sandbox/internal-accounts/${encodeURIComponent(account.id)}/journal?limit=100`)
    journal.replaceChildren(table(`Journal of ${account.id} (${page.totalCount} entries, newest first)`, ["When", "Kind", "Amount", "Transaction", "Postings"], page.data.map((l) =>
      h("tr", {},
        h("td", {}, l.at),
        h("td", {}, l.kind),
        h("td", {}, `${l.amount} ${l.currency}`),
        h("td", {}, l.transactionId || ""),
        h("td", {}, l.postings.map((p) => `${p.account} ${p.amount > 0 ? "+" : ""}${p.amount}`).join("; "))))))
    journal.querySelector("caption")?.setAttribute("tabindex", "-1")
  }
  const internalRows = [...platformAccounts.map((a) => ["platform", a]), ...customerAccounts.map((a) => [a.customerId, a])].map(([owner, a]) =>
    h("tr", {},
      h("td", {}, a.id),
      h("td", {}, owner),
      h("td", {}, a.type),
      h("td", {}, status(a.status)),
      h("td", {}, money(a.balance)),
      h("td", {}, h("button", { type: "button", onclick: () => showJournal(a), "aria-label": `Journal of ${a.id}` }, "Journal"))))
  const externalRows = [...platformExternal, ...customerExternal].map((x) =>
    h("tr", {},
      h("td", {}, x.id),
      h("td", {}, x.customerId || "platform"),
      h("td", {}, x.currency),
      h("td", {}, status(x.status)),
      h("td", {}, x.beneficiaryVerificationStatus ? status(x.beneficiaryVerificationStatus) : h("span", { class: "muted" }, "not verified"))))
  body.append(
    table("Internal accounts", ["Id", "Owner", "Type", "Status", "Balance", "Journal"], internalRows),
    journal,
    table("External accounts", ["Id", "Owner", "Currency", "Status", "Beneficiary verification"], externalRows))
}

const amountOf = (t) => money(t.sentAmount || t.receivedAmount || t.authorizedAmount)

views.transactions = async (body) => {
  const [txs, deliveries] = await Promise.all([all("/transactions"), sandbox ? all("/sandbox/webhooks/deliveries", 1000) : Promise.resolve([])])
  const detail = h("div", { id: "transaction-detail", "aria-live": "polite" })
  const showMoves = (t) => {
    const moves = deliveries.filter((d) => d.resourceId === t.id).sort((a, b) => a.createdAt.localeCompare(b.createdAt))
    const next = TERMINAL.has(t.status)
      ? "Nothing: the transaction is final."
      : t.expectedSettlementAt ? `Settlement expected at ${t.expectedSettlementAt} (platform clock).` : "The next move when the clock reaches it (advance the clock)."
    detail.replaceChildren(
      h("h3", { tabindex: "-1" }, `Transaction ${t.id}`),
      h("p", {}, "Status: ", status(t.status), ` · created ${t.createdAt} · updated ${t.updatedAt}${t.settledAt ? ` · settled ${t.settledAt}` : ""}`),
      h("p", { id: "scheduled-next" }, `Scheduled next: ${next}`),
      sandbox
        ? table("State moves (the webhooks sent, on the platform clock)", ["When", "Event"], moves.map((d) => h("tr", {}, h("td", {}, d.createdAt), h("td", {}, d.type))))
        : sandboxOnly(),
      h("details", {}, h("summary", {}, "The transaction as the API returns it"), json(t)))
    detail.querySelector("h3").focus()
  }
  body.append(table(`${txs.length} transactions, newest first`, ["Id", "Type", "Status", "Amount", "Created", "Updated", ""], txs.map((t) =>
    h("tr", {},
      h("td", {}, t.id),
      h("td", {}, t.type),
      h("td", {}, status(t.status)),
      h("td", {}, amountOf(t)),
      h("td", {}, t.createdAt),
      h("td", {}, t.updatedAt),
      h("td", {}, h("button", { type: "button", onclick: () => showMoves(t), "aria-label": `State moves of ${t.id}` }, "State moves"))))), detail)
}

views.cards = async (body) => {
  let cards
  try {
    cards = await all("/cards")
  } catch (e) {
    return body.append(h("p", { class: "notice" }, `Cards: ${e.message}`))
  }
  const txs = (await all("/transactions")).filter((t) => t.type === "CARD" || t.cardId)
  body.append(
    table("Cards", ["Id", "Cardholder", "Status", "Form", "Last four", "Created"], cards.map((c) =>
      h("tr", {}, h("td", {}, c.id), h("td", {}, c.cardholderId || c.customerId || ""), h("td", {}, status(c.status || "")), h("td", {}, c.form || c.cardType || ""), h("td", {}, c.last4 || c.lastFour || ""), h("td", {}, c.createdAt || "")))),
    table("Card transactions", ["Id", "Card", "Status", "Merchant", "Authorized", "Settled"], txs.map((t) =>
      h("tr", {}, h("td", {}, t.id), h("td", {}, t.cardId || ""), h("td", {}, status(t.status)), h("td", {}, (t.merchant && t.merchant.name) || ""), h("td", {}, money(t.authorizedAmount)), h("td", {}, money(t.settledAmount))))))
}

const attemptText = (a) => `${a.statusCode !== undefined ? `HTTP ${a.statusCode}` : "no answer"} in ${a.durationMs} ms${a.error ? ` (${a.error})` : ""}`

views.webhooks = async (body) => {
  if (!sandbox) return body.append(sandboxOnly())
  const page = await ok("GET", "/sandbox/webhooks/deliveries?limit=100")
  body.append(table(`Webhook deliveries (${page.totalCount}, newest first)`, ["Id", "Type", "Resource", "Status", "Attempts", "Next attempt", ""], page.data.map((d) =>
    h("tr", {},
      h("td", {}, d.id),
      h("td", {}, d.type),
      h("td", {}, d.resourceId),
      h("td", {}, status(d.status)),
      h("td", {}, d.attempts.length === 0 ? h("span", { class: "muted" }, "none yet") : h("details", {},
        h("summary", {}, `${d.attempts.length} attempt(s); last: ${attemptText(d.attempts[d.attempts.length - 1])}`),
        h("ol", {}, d.attempts.map((a) => h("li", {}, `${a.at}: ${attemptText(a)}`))))),
      h("td", {}, d.nextAttemptAt || ""),
      h("td", {}, h("button", {
        type: "button",
        "aria-label": `Redeliver ${d.id}`,
        onclick: async () => {
          const r = await ok("POST", `/sandbox/webhooks/deliveries/${encodeURIComponent(d.id)}/redeliver`)
          say(`Redelivered ${d.id}: ${r.status}`)
          await show("webhooks")
        }
      }, "Redeliver"))))))
}

views.requests = async (body) => {
  if (!sandbox) return body.append(sandboxOnly())
  const params = new URLSearchParams(location.hash.split("?")[1] || "")
  const method = h("select", { id: "filter-method" }, ["", "GET", "POST", "PATCH", "PUT", "DELETE"].map((m) => h("option", { value: m, selected: params.get("method") === m }, m || "any")))
  const prefix = h("input", { id: "filter-path", value: params.get("pathPrefix") || "", placeholder: `${API}/customers` })
  const code = h("input", { id: "filter-status", value: params.get("status") || "", placeholder: "404 or 4xx", size: "6" })
  const query = new URLSearchParams({ limit: "50" })
  for (const [k, v] of params) if (v !== "") query.set(k, v)
  const page = await ok("GET", `/sandbox/requests?${query}`)
  const rows = page.data.flatMap((r) => {
    const bodies = h("tr", { hidden: true }, h("td", { colspan: 8 },
      h("h4", {}, "Request body"), r.requestBody === undefined ? h("p", { class: "muted" }, "none") : json(r.requestBody),
      h("h4", {}, "Response body"), r.responseBody === undefined ? h("p", { class: "muted" }, "none") : json(r.responseBody)))
    const toggle = h("button", {
      type: "button",
      "aria-expanded": "false",
      "aria-label": `Bodies of ${r.method} ${r.path} (${r.id})`,
      onclick: () => {
        bodies.hidden = !bodies.hidden
        toggle.setAttribute("aria-expanded", String(!bodies.hidden))
      }
    }, "Bodies")
    return [h("tr", {},
      h("td", {}, r.wallTime, h("br"), h("span", { class: "muted" }, `platform ${r.platformTime}`)),
      h("td", {}, r.method),
      h("td", {}, `${r.path}${r.query ? `?${r.query}` : ""}`),
      h("td", {}, r.operationId || ""),
      h("td", {}, status(String(r.status)), r.errorCode ? ` ${r.errorCode}` : ""),
      h("td", {}, `${r.durationMillis} ms`),
      h("td", {}, [r.requestId ? `Request-Id ${r.requestId}` : "", r.idempotencyKey ? ` Idempotency-Key ${r.idempotencyKey}` : ""].join("")),
      h("td", {}, toggle)), bodies]
  })
  body.append(
    h("form", {
      onsubmit: (e) => {
        e.preventDefault()
        const q = new URLSearchParams()
        if (method.value) q.set("method", method.value)
        if (prefix.value) q.set("pathPrefix", prefix.value)
        if (code.value) q.set("status", code.value)
        location.hash = `requests?${q}`
      }
    }, h("label", { for: "filter-method" }, "Method"), method, h("label", { for: "filter-path" }, "Path prefix"), prefix, h("label", { for: "filter-status" }, "Status"), code, h("button", { type: "submit" }, "Filter")),
    table(`Requests (${page.totalCount} kept, newest first)`, ["When", "Method", "Path", "Operation", "Status", "Duration", "Headers", "Bodies"], rows))
}

views.audit = async (body) => {
  if (!sandbox) return body.append(sandboxOnly())
  const audit = await ok("GET", "/sandbox/ledger/audit")
  const words = { BALANCED: "The books balance.", UNBALANCED: "The books do not balance.", INCOMPLETE: "The audit could not check everything." }
  body.append(
    h("p", { class: `verdict ${audit.verdict}`, id: "audit-verdict" }, `${audit.verdict}: ${words[audit.verdict]}`),
    h("p", {}, `Checked at ${audit.checkedAt} (platform clock): ${audit.entriesChecked} journal entries, ${audit.accountsChecked} ledger accounts, ${audit.transactionsChecked} transactions.`),
    table("Checks", ["Check", "Status", "What must hold", "Problems"], audit.checks.map((c) =>
      h("tr", {},
        h("td", {}, c.name),
        h("td", {}, status(c.status)),
        h("td", {}, c.description, c.reason ? h("p", { class: "muted" }, c.reason) : ""),
        h("td", {}, c.problemCount === 0 ? "" : h("ul", {}, c.problems.map((p) => h("li", {}, p.message))))))))
}

// ---------------------------------------------------------------- navigation

const show = async (name) => {
  const title = VIEWS[name]
  for (const a of document.querySelectorAll("nav a")) {
    if (a.getAttribute("href") === `#${name}`) a.setAttribute("aria-current", "page")
    else a.removeAttribute("aria-current")
  }
  $("view-title").textContent = title
  const body = $("view-body")
  const fresh = h("div", { "aria-busy": "true" })
  body.replaceChildren(fresh)
  try {
    await views[name](fresh)
  } catch (e) {
    fresh.append(h("p", { role: "alert", class: "notice" }, `Could not load ${title}: ${e.message}`))
  }
  fresh.setAttribute("aria-busy", "false")
  document.body.dataset.view = name
}

const route = () => {
  if (session === null) return
  const name = location.hash.slice(1).split("?")[0]
  const view = Object.hasOwn(VIEWS, name) ? name : "customers"
  say("")
  void show(view).then(() => $("view").focus())
}

const signIn = async (clientId, secret) => {
  session = { clientId, token: btoa(`${clientId}:${secret}`) }
  const probe = await api("GET", "/customers?limit=1")
  if (probe.status === 401) {
    session = null
    throw new Error(probe.body && probe.body.reason ? probe.body.reason : "The client id or secret is not valid")
  }
  sandbox = (await api("GET", "/sandbox/clock")).status === 200
  sessionStorage.setItem(SESSION_KEY, JSON.stringify(session))
  $("sign-in").hidden = true
  $("app").hidden = false
  $("sign-out").hidden = false
  $("who").textContent = `Signed in as ${clientId} · ${sandbox ? "sandbox platform" : "production platform: read-only"}`
  document.body.dataset.platform = sandbox ? "sandbox" : "production"
  route()
}

const start = () => {
  $("sign-in-form").addEventListener("submit", async (e) => {
    e.preventDefault()
    $("sign-in-error").textContent = ""
    try {
      await signIn($("client-id").value.trim(), $("client-secret").value)
    } catch (err) {
      $("sign-in-error").textContent = `Sign-in failed: ${err.message}`
    }
  })
  $("sign-out").addEventListener("click", () => {
    sessionStorage.removeItem(SESSION_KEY)
    session = null
    location.hash = ""
    location.reload()
  })
  window.addEventListener("hashchange", route)
  const saved = sessionStorage.getItem(SESSION_KEY)
  if (saved !== null) {
    const s = JSON.parse(saved)
    session = s
    const [clientId, ...rest] = atob(s.token).split(":")
    void signIn(clientId, rest.join(":")).catch(() => {
      sessionStorage.removeItem(SESSION_KEY)
      session = null
    })
  }
}

start()
