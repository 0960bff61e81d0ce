import { assert, describe, it } from "@effect/vitest"
import { maskedUrl, maskedUrlOrNull } from "../../src/domain/MaskedUrl.ts"

describe("URLs as they are shown", () => {
  it("credentials and query values masked; scheme, host, path and the query's names kept", () => {
    assert.strictEqual(
      maskedUrl("https://user:s3cret@partner.example:8443/wallet?key=abc123&mode=live"),
      "https://***:***@partner.example:8443/wallet?key=***&mode=***"
    )
    assert.strictEqual(maskedUrl("https://partner.example/wallet"), "https://partner.example/wallet")
    assert.strictEqual(maskedUrl("https://token@partner.example/"), "https://***@partner.example/")
    assert.strictEqual(maskedUrl("not a url"), "not a url")
    assert.isNull(maskedUrlOrNull(null))
  })
})
