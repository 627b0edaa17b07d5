import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // One throwaway PostgreSQL cluster per run; tests take its URL with inject("databaseAdminUrl").
    globalSetup: ["test/support/postgres-global-setup.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000
  }
})
