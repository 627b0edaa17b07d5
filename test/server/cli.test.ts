/**
 * The reference server's command line as a pure function: flags and environment to
 * settings, help, version or an error with its exit code. Starting the built command
 * from an installed tarball is .ci/package-check.sh's job.
 */
import { describe, expect, it } from "vitest"
import { type CommandLine, parseCommandLine, type ServerSettings } from "../../src/server/cli.js"

const settings = (line: CommandLine): ServerSettings => {
  if (line._tag !== "Run") throw new Error(`expected settings, got ${JSON.stringify(line)}`)
  return line.settings
}
const invalid = (line: CommandLine): { readonly message: string; readonly exitCode: number } => {
  if (line._tag !== "Invalid") throw new Error(`expected an error, got ${JSON.stringify(line)}`)
  return line
}

describe("parseCommandLine", () => {
  it("defaults: 127.0.0.1:8080, the sandbox platform, in memory", () => {
    expect(settings(parseCommandLine([], {}))).toEqual({
      host: "127.0.0.1",
      port: 8080,
      configPath: undefined,
      configSource: "PAYMENTS_CONFIG",
      store: { kind: "memory" }
    })
  })

  it("reads every flag, in both --name value and --name=value forms", () => {
    expect(settings(parseCommandLine(["--port", "9090", "--host=0.0.0.0", "--config", "platforms.json", "--data-dir=./data"], {}))).toEqual({
      host: "0.0.0.0",
      port: 9090,
      configPath: "platforms.json",
      configSource: "--config",
      store: { kind: "pglite", dataDir: "./data" }
    })
    expect(settings(parseCommandLine(["--database-url", "postgresql://u:p@localhost:5432/db"], {})).store).toEqual({
      kind: "postgres",
      url: "postgresql://u:p@localhost:5432/db"
    })
  })

  it("the environment variables keep working", () => {
    expect(
      settings(parseCommandLine([], { HOST: "::1", PORT: "0", PAYMENTS_CONFIG: "p.json", DATABASE_URL: "postgres://localhost/x" }))
    ).toEqual({ host: "::1", port: 0, configPath: "p.json", configSource: "PAYMENTS_CONFIG", store: { kind: "postgres", url: "postgres://localhost/x" } })
    expect(settings(parseCommandLine([], { PAYMENTS_DATA_DIR: "/var/lib/payments" })).store).toEqual({ kind: "pglite", dataDir: "/var/lib/payments" })
  })

  it("an empty environment variable counts as unset", () => {
    expect(settings(parseCommandLine([], { HOST: "", PORT: " ", PAYMENTS_CONFIG: "", DATABASE_URL: "", PAYMENTS_DATA_DIR: "" }))).toEqual(
      settings(parseCommandLine([], {}))
    )
  })

  it("a flag wins over its environment variable", () => {
    const s = settings(
      parseCommandLine(["--port", "7000", "--host", "localhost", "--config", "flag.json"], { PORT: "6000", HOST: "0.0.0.0", PAYMENTS_CONFIG: "env.json" })
    )
    expect(s).toMatchObject({ port: 7000, host: "localhost", configPath: "flag.json", configSource: "--config" })
  })

  it("a store flag replaces both store variables (even when they conflict)", () => {
    const env = { DATABASE_URL: "postgres://env/db", PAYMENTS_DATA_DIR: "./env-data" }
    expect(invalid(parseCommandLine([], env)).exitCode).toBe(1)
    expect(settings(parseCommandLine(["--data-dir", "./flag-data"], env)).store).toEqual({ kind: "pglite", dataDir: "./flag-data" })
    expect(settings(parseCommandLine(["--database-url", "postgres://flag/db"], env)).store).toEqual({ kind: "postgres", url: "postgres://flag/db" })
  })

  it("help and version", () => {
    expect(parseCommandLine(["--help"], {})._tag).toBe("Help")
    expect(parseCommandLine(["-h"], {})._tag).toBe("Help")
    expect(parseCommandLine(["--version"], {})._tag).toBe("Version")
    // Help wins over other flags, even a bad value: asking for help always gets it.
    expect(parseCommandLine(["--port", "nope", "--help"], {})._tag).toBe("Help")
  })

  it.each([
    [["--bogus"], /unknown option --bogus/],
    [["-x"], /unknown option -x/],
    [["serve"], /unexpected argument serve/],
    [["--port"], /--port/],
    [["--port", "http"], /--port must be a whole number from 0 to 65535, not "http"/],
    [["--port", "65536"], /--port must be a whole number/],
    [["--port", "-1"], /--port/],
    [["--port", "80.5"], /--port must be a whole number/],
    [["--port="], /--port needs a value/],
    [["--host", ""], /--host needs a value/],
    [["--config="], /--config needs a value/],
    [["--database-url", "mysql://localhost/db"], /--database-url must be a postgres:\/\/ or postgresql:\/\/ URL/],
    [["--database-url", "postgres://h/db", "--data-dir", "./d"], /--database-url or --data-dir, not both/],
    [["--help=yes"], /--help/],
    [["--version", "1"], /unexpected argument 1/]
  ])("%j is a usage error: exit code 2 and a message pointing to --help", (args, message) => {
    const error = invalid(parseCommandLine(args, {}))
    expect(error.exitCode).toBe(2)
    expect(error.message).toMatch(message)
    expect(error.message).toMatch(/^payments-service: /)
    expect(error.message).toContain("--help")
  })

  it("--seed (or PAYMENTS_SEED) asks for a deterministic run; the flag wins; a bad seed is a usage error (flag, 2) or a configuration error (variable, 1)", () => {
    expect(settings(parseCommandLine([], {})).seed).toBeUndefined()
    expect(settings(parseCommandLine(["--seed", "42"], {})).seed).toBe(42)
    expect(settings(parseCommandLine(["--seed=0"], { PAYMENTS_SEED: "9" })).seed).toBe(0)
    expect(settings(parseCommandLine([], { PAYMENTS_SEED: "4294967295" })).seed).toBe(4294967295)
    expect(settings(parseCommandLine([], { PAYMENTS_SEED: " " })).seed).toBeUndefined()
    for (const bad of ["-1", "4294967296", "1.5", "seven"]) {
      const flag = invalid(parseCommandLine([`--seed=${bad}`], {}))
      expect(flag.exitCode).toBe(2)
      expect(flag.message).toContain(`--seed must be a whole number from 0 to 4294967295, not "${bad}"`)
      expect(invalid(parseCommandLine([], { PAYMENTS_SEED: bad }))).toEqual({
        _tag: "Invalid",
        message: `PAYMENTS_SEED must be a whole number from 0 to 4294967295, not "${bad}"`,
        exitCode: 1
      })
    }
    expect(invalid(parseCommandLine(["--seed="], {})).message).toContain("--seed needs a value")
  })

  it("a wrong environment variable exits 1 with a message naming it (as npm start always has)", () => {
    expect(invalid(parseCommandLine([], { PORT: "eighty" }))).toEqual({ _tag: "Invalid", message: 'PORT must be a whole number from 0 to 65535, not "eighty"', exitCode: 1 })
    expect(invalid(parseCommandLine([], { DATABASE_URL: "mysql://x" })).message).toMatch(/DATABASE_URL must be a postgres/)
    expect(invalid(parseCommandLine([], { DATABASE_URL: "postgres://x/y", PAYMENTS_DATA_DIR: "d" })).message).toMatch(/not both/)
  })

  it("--webhook-retention (or PAYMENTS_WEBHOOK_RETENTION): a duration, 0 or off; the flag wins; a bad one is a usage error (flag, 2) or a configuration error (variable, 1)", () => {
    expect(settings(parseCommandLine([], {})).webhookRetentionMillis).toBeUndefined()
    expect(settings(parseCommandLine(["--webhook-retention", "7d"], {})).webhookRetentionMillis).toBe(7 * 86_400_000)
    expect(settings(parseCommandLine(["--webhook-retention=36h"], { PAYMENTS_WEBHOOK_RETENTION: "1d" })).webhookRetentionMillis).toBe(36 * 3_600_000)
    expect(settings(parseCommandLine([], { PAYMENTS_WEBHOOK_RETENTION: "90m" })).webhookRetentionMillis).toBe(90 * 60_000)
    expect(settings(parseCommandLine([], { PAYMENTS_WEBHOOK_RETENTION: "3600s" })).webhookRetentionMillis).toBe(3_600_000)
    expect(settings(parseCommandLine([], { PAYMENTS_WEBHOOK_RETENTION: "0" })).webhookRetentionMillis).toBe(0)
    expect(settings(parseCommandLine(["--webhook-retention", "OFF"], {})).webhookRetentionMillis).toBe(false)
    for (const bad of ["7", "7 days", "-1d", "1.5h", "1w", "on"]) {
      const flag = invalid(parseCommandLine([`--webhook-retention=${bad}`], {}))
      expect(flag.exitCode).toBe(2)
      expect(flag.message).toContain(`--webhook-retention must be a whole number with d, h, m or s (7d, 36h), 0 or off, not "${bad}"`)
      const variable = invalid(parseCommandLine([], { PAYMENTS_WEBHOOK_RETENTION: bad }))
      expect(variable.exitCode).toBe(1)
      expect(variable.message).toContain("PAYMENTS_WEBHOOK_RETENTION must be")
    }
    expect(invalid(parseCommandLine(["--webhook-retention="], {})).message).toContain("--webhook-retention needs a value")
  })

  it("--webhook-destinations (or PAYMENTS_WEBHOOK_DESTINATIONS): keywords and IP ranges; the flag wins; never link-local, metadata, multicast or unspecified", () => {
    expect(settings(parseCommandLine([], {})).webhookDestinations).toBeUndefined()
    expect(settings(parseCommandLine(["--webhook-destinations", "loopback"], {})).webhookDestinations).toEqual(["loopback"])
    expect(settings(parseCommandLine(["--webhook-destinations=Public, 10.20.0.0/16"], { PAYMENTS_WEBHOOK_DESTINATIONS: "loopback" })).webhookDestinations)
      .toEqual(["public", "10.20.0.0/16"])
    expect(settings(parseCommandLine([], { PAYMENTS_WEBHOOK_DESTINATIONS: "loopback,public,private" })).webhookDestinations).toEqual(["loopback", "public", "private"])
    for (const bad of ["169.254.0.0/16", "0.0.0.0/0", "fe80::/10", "224.0.0.0/4", "everywhere", "10.0.0.0/40", ","]) {
      const flag = invalid(parseCommandLine([`--webhook-destinations=${bad}`], {}))
      expect(flag.exitCode, bad).toBe(2)
      expect(flag.message).toContain("--webhook-destinations: ")
      const variable = invalid(parseCommandLine([], { PAYMENTS_WEBHOOK_DESTINATIONS: bad }))
      expect(variable.exitCode, bad).toBe(1)
      expect(variable.message).toContain("PAYMENTS_WEBHOOK_DESTINATIONS: ")
    }
    expect(invalid(parseCommandLine(["--webhook-destinations", "169.254.169.254"], {})).message).toContain("never")
  })
})
