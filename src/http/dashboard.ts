/**
 * The dashboard page (docs/dashboard.md): `/dashboard` and its two assets, plain files
 * under src/http/dashboard/ served by the server itself (no CDN, no build step). The page
 * is a client of the public API like any other.
 */
import { readFileSync } from "node:fs"
import { Layer } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"

const ASSETS = {
  "index.html": "text/html; charset=utf-8",
  "dashboard.js": "text/javascript; charset=utf-8",
  "dashboard.css": "text/css; charset=utf-8"
} as const

type Asset = keyof typeof ASSETS

/**
 * Where the files are: beside this module when it runs from src/ (`npm start`, tsx), and
 * under the package's src/http/dashboard/ when it runs bundled from dist/.
 */
const CANDIDATES = ["./dashboard/", "../src/http/dashboard/"]

const read = (name: Asset): string => {
  for (const dir of CANDIDATES) {
    try {
      return readFileSync(new URL(`${dir}${name}`, import.meta.url), "utf8")
    } catch {
      // Try the next place.
    }
  }
  throw new Error(`The dashboard file ${name} is missing from the package (src/http/dashboard/)`)
}

const HEADERS = {
  "cache-control": "no-cache",
  "x-content-type-options": "nosniff",
  // Only this server's own scripts, styles and API: nothing from anywhere else.
  "content-security-policy": "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'",
  "referrer-policy": "no-referrer"
}

const serve = (name: Asset) => {
  const body = read(name)
  return HttpServerResponse.text(body, { contentType: ASSETS[name], headers: HEADERS })
}

/** `/dashboard` and its assets; the files are read once, when the routes are built. */
export const DashboardRoutes = Layer.mergeAll(
  HttpRouter.add("GET", "/dashboard", serve("index.html")),
  HttpRouter.add("GET", "/dashboard/dashboard.js", serve("dashboard.js")),
  HttpRouter.add("GET", "/dashboard/dashboard.css", serve("dashboard.css"))
)
