import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Node 24 flags the Web Crypto features the verifier tests probe as experimental; the
    // warning says nothing about the project, so keep `npm test` quiet.
    execArgv: ["--disable-warning=ExperimentalWarning"],
    // One throwaway PostgreSQL cluster per run; tests take its URL with inject("databaseAdminUrl").
    globalSetup: ["test/support/postgres-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
