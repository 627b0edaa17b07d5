#!/usr/bin/env node
/**
 * The package's `payments-service` command (built to dist/server.js; `npm start` runs
 * main.ts directly). The JIT schema compiler must be installed before any schema is
 * built; a bundle evaluates its shared chunks before the entry's own imports, so the
 * server is loaded only after the install, by a dynamic import.
 */
import "effect/schema/SchemaJITCompiler/enable"

await import("./main.js")
