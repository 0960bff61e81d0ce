import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    // Two projects: the rules (pure functions and the contract's records) need nothing, so a run of them alone starts
    // no PostgreSQL and picks no browser; the service's tests get both from the global set-up, once per run.
    projects: [
      { extends: true, test: { name: "rules", include: ["test/domain/**/*.test.ts", "test/api/**/*.test.ts"] } },
      {
        extends: true,
        test: {
          name: "service",
          include: ["test/**/*.test.ts"],
          exclude: ["test/domain/**", "test/api/**"],
          globalSetup: ["test/support/globalSetup.ts"]
        }
      }
    ],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Most of a test file's time is spent waiting (on PostgreSQL, on sockets, on a partner's time-out), so three
    // files run at once even on two cores; each works in a database of its own (TestDatabase) and on ports of its
    // own. Files share a worker's modules (isolate: false): the service's modules are loaded once per worker, not
    // once per file, which was a third of the run. What a file keeps is its own: layers are built per file, and
    // the few process-wide registries (the metrics) are read by label of a partner the file created.
    maxWorkers: 3,
    isolate: false,
    // A green run is a short summary: the service's logs (many of them expected warnings from tests of
    // failures) are shown only for the tests that fail, and each passing test is a dot.
    silent: "passed-only",
    reporters: ["dot"]
  }
})
