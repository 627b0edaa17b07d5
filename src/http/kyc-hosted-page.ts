/**
 * The sandbox's hosted KYC/KYB page (GET and POST /sandbox/kyc-link?token=…): plain
 * HTML a person can use in a browser, with the customer, the link's expiry, a form that
 * submits the verification, and the result once submitted. Every value is escaped.
 */
import type { HostedKycView } from "../operations/kyc-links.js"

const escape = (text: string): string =>
  text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;").replace(/"/g, "&quot;").replace(/'/g, "&#39;")

export const renderHostedKycPage = (view: HostedKycView): string => {
  const kind = view.customerType === "BUSINESS" ? "business verification (KYB)" : "identity verification (KYC)"
  const v = view.verification
  const result = v === undefined
    ? `<form method="post"><input type="hidden" name="confirm" value="submit"><button type="submit">Submit for verification</button></form>
<p>Submitting sends the information ${escape(view.platformName)} holds for you to verification. This link can be used once.</p>`
    : `<h2>Submitted</h2>
<p>Verification <code>${escape(v.id)}</code>: <strong id="verification-status">${escape(v.verificationStatus)}</strong></p>
${v.errors.length === 0 ? "" : `<ul>${v.errors.map((e) => `<li>${escape(e.type)}${e.field === undefined ? "" : ` (${escape(e.field)})`}: ${escape(e.reason)}</li>`).join("")}</ul>
<p>Ask ${escape(view.platformName)} for a new link once this is fixed.</p>`}
${view.redirectUri === undefined ? "" : `<p><a id="continue" href="${escape(view.redirectUri)}">Continue</a></p>`}`
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escape(view.platformName)}: ${kind}</title></head>
<body>
<h1>${escape(view.platformName)}: ${kind}</h1>
<p>Sandbox hosted flow (no real provider): the outcome follows the sandbox rules, as POST /verifications.</p>
<p>${escape(view.name)} (<code>${escape(view.customerId)}</code>), status <strong id="customer-status">${escape(view.status)}</strong>. This link expires at ${escape(view.expiresAt)}.</p>
${result}
</body></html>
`
}
