import { assert, it } from "@effect/vitest"
import { withoutSecrets } from "../../src/platform/Secrets.ts"

it("withoutSecrets replaces secrets anywhere in a value", () => {
  assert.deepStrictEqual(
    withoutSecrets({ a: ["x s3cret y"], b: { c: "s3cret" }, d: 1, e: null }, ["s3cret", ""]),
    { a: ["x [redacted] y"], b: { c: "[redacted]" }, d: 1, e: null }
  )
  assert.strictEqual(withoutSecrets("nothing to hide", []), "nothing to hide")
})
