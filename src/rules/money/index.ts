/** The money-movement rules: rates, fees, quote arithmetic, rails, limits, sandbox payment tables, the payment machine, the discovery catalogue. */
export * as Discoveries from "./discoveries.js"
export * as Fees from "./fees.js"
export * as Limits from "./limits.js"
export * as PaymentMachine from "./payment.js"
export * as QuoteMath from "./quote-math.js"
export * as Rails from "./rails.js"
export * as Rates from "./rates.js"
export * as SandboxPayments from "./sandbox-payments.js"
