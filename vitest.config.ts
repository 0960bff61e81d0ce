import { defineConfig } from "vitest/config"

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/support/globalSetup.ts"],
    testTimeout: 30_000,
    hookTimeout: 120_000,
    // A green run is a short summary: the service's logs (many of them expected warnings from tests of
    // failures) are shown only for the tests that fail, and each passing test is a dot.
    silent: "passed-only",
    reporters: ["dot"]
  }
})
