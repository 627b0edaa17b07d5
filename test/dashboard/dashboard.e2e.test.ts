/**
 * The dashboard (docs/dashboard.md) driven in a real headless Chromium (Debian's
 * `chromium`, through playwright-core) against the reference server on a loopback port:
 * sign in with the keyboard, find a customer created over the API, follow a payment
 * through its states while the clock advances, redeliver a webhook that failed, see the
 * request log with a request's bodies and the audit say the books balance; a production
 * platform sees the page read-only.
 *
 * Screenshots of every view go to a temporary directory, or to docs/ (the images
 * docs/dashboard.md shows) when DASHBOARD_SCREENSHOTS=docs.
 *
 * Needs Chromium at CHROMIUM_PATH (default /usr/bin/chromium; `.ci/run` installs
 * Debian's `chromium`): without it the suite fails, saying so.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { Effect, Exit, Layer, Scope } from "effect"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { memoryLayer } from "../../src/adapters/memory/index.js"
import { LoopbackWebhookSenderLayer } from "../../src/adapters/webhook-http.js"
import { serveReference } from "../../src/http/node.js"
import { basic } from "../support/api.js"
import { moneyPlatform } from "../support/money.js"
import { type Receiver, startReceiver } from "../support/webhook-receiver.js"

const CHROMIUM = process.env["CHROMIUM_PATH"] ?? "/usr/bin/chromium"

const sandboxPlatform = moneyPlatform("dashboard")
const productionPlatform = moneyPlatform("dashboard-production", { sandbox: false })

const shotsDir = process.env["DASHBOARD_SCREENSHOTS"] === "docs"
  ? fileURLToPath(new URL("../../docs/", import.meta.url))
  : mkdtempSync(join(tmpdir(), "dashboard-shots-"))

const scope = Scope.makeUnsafe()
let origin = ""
let receiver: Receiver
let receiverAnswers = 500
let profile = ""
let context: BrowserContext
let page: Page

const call = async (method: string, path: string, body?: unknown) => {
  const res = await fetch(`${origin}/2025-10-13${path}`, {
    method,
    headers: { authorization: basic(sandboxPlatform), ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) })
  })
  const text = await res.text()
  if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${text}`)
  return text === "" ? undefined : JSON.parse(text)
}

let customerId = ""
let paymentId = ""

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install Debian's chromium (apt-get install chromium) or set CHROMIUM_PATH`)
  receiver = await startReceiver(() => receiverAnswers)
  const served = await Effect.runPromise(Scope.provide(serveReference({
    // Webhooks to loopback only, as every harness (issue 26).
    services: Layer.merge(memoryLayer([sandboxPlatform, productionPlatform]), LoopbackWebhookSenderLayer),
    schedulerIntervalMillis: false,
    host: "127.0.0.1",
    port: 0
  }), scope))
  if (served.address._tag === "UnixPathAddress") throw new Error("expected a TCP address")
  origin = `http://127.0.0.1:${served.address.port}`
  // Over the API, as an integration would: webhooks to a receiver that fails at first, a
  // customer, its funded USD account, an external account and an ACH payout to it.
  await call("PATCH", "/config", { webhookEndpoint: receiver.url })
  const customer = await call("POST", "/customers", { customerType: "INDIVIDUAL", fullName: "Grace Hopper", platformCustomerId: "pc-grace" })
  customerId = customer.id
  const accounts = await call("GET", `/customers/internal-accounts?customerId=${encodeURIComponent(customerId)}`)
  const usd = (accounts.data as Array<{ id: string; balance: { currency: { code: string } } }>).find((a) => a.balance.currency.code === "USD")!.id
  await call("POST", `/sandbox/internal-accounts/${encodeURIComponent(usd)}/fund`, { amount: 500_000 })
  const external = await call("POST", "/customers/external-accounts", {
    customerId,
    currency: "USD",
    accountInfo: {
      accountType: "USD_ACCOUNT",
      accountNumber: "000123456789",
      routingNumber: "021000021",
      bankAccountType: "CHECKING",
      beneficiary: { beneficiaryType: "INDIVIDUAL", fullName: "Grace Hopper" }
    }
  })
  const payment = await call("POST", "/quotes", {
    source: { sourceType: "ACCOUNT", accountId: usd },
    destination: { destinationType: "ACCOUNT", accountId: external.id },
    lockedCurrencySide: "SENDING",
    lockedCurrencyAmount: 12_345,
    immediatelyExecute: true
  })
  paymentId = payment.transactionId
  profile = mkdtempSync(join(tmpdir(), "dashboard-chromium-"))
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
    viewport: { width: 1280, height: 900 }
  })
  page = context.pages()[0] ?? await context.newPage()
  // Shorter than the test's own limit, so a step that never happens names its locator.
  page.setDefaultTimeout(10_000)
}, 60_000)

afterAll(async () => {
  await context?.close()
  await Effect.runPromise(Scope.close(scope, Exit.void))
  await receiver?.close()
  if (profile !== "") rmSync(profile, { recursive: true, force: true })
  if (process.env["DASHBOARD_SCREENSHOTS"] !== "docs") rmSync(shotsDir, { recursive: true, force: true })
})

const shot = (name: string) => page.screenshot({ path: join(shotsDir, `dashboard-${name}.png`) })

/** Opens a view with the keyboard: focus its link in the navigation, press Enter. */
const openView = async (name: string) => {
  await page.getByRole("navigation", { name: "Views" }).getByRole("link", { name }).focus()
  await page.keyboard.press("Enter")
  await expect.poll(() => page.locator("#view-body > div").getAttribute("aria-busy")).toBe("false")
}

const signIn = async (clientId: string, secret: string) => {
  await page.goto(`${origin}/dashboard`)
  await page.getByLabel("Client id").focus()
  await page.keyboard.type(clientId)
  await page.keyboard.press("Tab")
  await page.keyboard.type(secret)
  await page.keyboard.press("Enter")
  await page.getByText(`Signed in as ${clientId}`).waitFor()
}

describe("the dashboard in headless Chromium", () => {
  it("is served by the server itself, with no other origin", async () => {
    const res = await fetch(`${origin}/dashboard`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toContain("text/html")
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'")
    const html = await res.text()
    expect(html).not.toMatch(/https?:\/\//)
    expect((await fetch(`${origin}/dashboard/dashboard.js`)).headers.get("content-type")).toContain("javascript")
  })

  it("signs in with the keyboard and finds a customer created over the API", async () => {
    await signIn(sandboxPlatform.clientId, sandboxPlatform.clientSecret)
    await expect.poll(() => page.getByText("sandbox platform").count()).toBe(1)
    await openView("Customers")
    await page.getByLabel("Find a customer").fill("grace")
    const row = page.getByRole("row").filter({ hasText: customerId })
    await expect.poll(() => row.count()).toBe(1)
    expect(await row.innerText()).toContain("pc-grace")
    await shot("customers")
  })

  it("shows accounts with balances and an account's journal", async () => {
    await openView("Accounts")
    await page.getByRole("button", { name: /^Journal of InternalAccount:/ }).first().waitFor()
    const rows = page.getByRole("row").filter({ hasText: customerId }).filter({ hasText: "4876.55 USD" })
    await expect.poll(() => rows.count()).toBe(1)
    await rows.getByRole("button").click()
    const journal = page.locator("#journal table")
    await journal.waitFor()
    expect(await journal.innerText()).toContain(paymentId)
    expect(await journal.innerText()).toContain("FUND")
    await shot("accounts")
  })

  it("follows a payment through its states while the clock advances", async () => {
    await openView("Transactions")
    await page.getByRole("button", { name: `State moves of ${paymentId}` }).click()
    const detail = page.locator("#transaction-detail")
    await expect.poll(() => detail.innerText()).toContain("PROCESSING")
    expect(await page.locator("#scheduled-next").innerText()).toContain("Settlement expected at")
    await shot("transactions-processing")
    await openView("Clock")
    await shot("clock")
    await page.getByRole("button", { name: "Advance until nothing is pending" }).click()
    await page.getByText(/nothing is pending now/).waitFor({ timeout: 30_000 })
    await openView("Transactions")
    await page.getByRole("button", { name: `State moves of ${paymentId}` }).click()
    await expect.poll(() => detail.innerText()).toContain("COMPLETED")
    const moves = await detail.locator("table").innerText()
    expect(moves).toMatch(/OUTGOING_PAYMENT\.\w+/)
    expect(await page.locator("#scheduled-next").innerText()).toContain("Nothing")
    await shot("transactions")
  })

  it("redelivers a webhook that failed", async () => {
    await openView("Webhooks")
    const failed = page.getByRole("row").filter({ hasText: "FAILED" }).first()
    await failed.waitFor()
    const id = (await failed.locator("td").first().innerText()).trim()
    receiverAnswers = 200
    await page.getByRole("button", { name: `Redeliver ${id}` }).click()
    await page.getByText(`Redelivered ${id}: DELIVERED`).waitFor()
    const row = page.getByRole("row").filter({ hasText: id })
    await expect.poll(() => row.innerText()).toContain("last: HTTP 200")
    // Every attempt, one click away: the failed ones before the redelivery too.
    await row.locator("summary").click()
    expect(await row.innerText()).toContain("HTTP 500")
    await shot("webhooks")
  })

  it("shows cards (or why not), the request log with a request's bodies one click away, and the audit", async () => {
    await openView("Cards")
    await shot("cards")
    await openView("Requests")
    // The page's own requests fill the log: filter it down to the customer's creation.
    await page.getByLabel("Method").selectOption("POST")
    await page.getByLabel("Path prefix").fill("/2025-10-13/customers")
    await page.getByRole("button", { name: "Filter" }).click()
    await expect.poll(() => page.evaluate(() => location.hash)).toContain("method=POST")
    await expect.poll(() => page.locator("#view-body > div").getAttribute("aria-busy")).toBe("false")
    const post = page.getByRole("button", { name: /^Bodies of POST \/2025-10-13\/customers \(/ }).first()
    await post.click()
    expect(await post.getAttribute("aria-expanded")).toBe("true")
    await page.locator("tr:not([hidden]) pre", { hasText: "\"platformCustomerId\": \"pc-grace\"" }).first().waitFor()
    await shot("requests")
    await openView("Audit")
    await expect.poll(() => page.locator("#audit-verdict").innerText()).toContain("BALANCED: The books balance.")
    await shot("audit")
  })

  it("is read-only for a production platform", async () => {
    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("Client id").waitFor()
    await signIn(productionPlatform.clientId, productionPlatform.clientSecret)
    await page.getByText("production platform: read-only").waitFor()
    await openView("Clock")
    expect(await page.getByRole("button", { name: /Advance/ }).count()).toBe(0)
    await openView("Audit")
    await page.getByText("Available to sandbox platforms only.").waitFor()
    await openView("Webhooks")
    expect(await page.getByRole("button", { name: /Redeliver/ }).count()).toBe(0)
    await shot("production")
  })
})
