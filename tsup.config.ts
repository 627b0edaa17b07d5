import { defineConfig } from "tsup"

export default defineConfig({
  entry: {
    index: "src/index.ts",
    operations: "src/operations/index.ts",
    http: "src/http/index.ts",
    memory: "src/adapters/memory/index.ts",
    sql: "src/adapters/sql/index.ts",
    config: "src/server/services.ts",
    testing: "src/testing/index.ts",
    server: "src/server/bin.ts"
  },
  format: ["esm"],
  target: "node22",
  platform: "node",
  dts: { entry: ["src/index.ts", "src/operations/index.ts", "src/http/index.ts", "src/adapters/memory/index.ts", "src/adapters/sql/index.ts", "src/server/services.ts", "src/testing/index.ts"] },
  sourcemap: true,
  clean: true,
  splitting: true,
  treeshake: true
})
