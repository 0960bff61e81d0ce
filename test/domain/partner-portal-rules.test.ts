/** The partner portal's rules as pure functions: the role matrix, a user's status, a token's prefix and expiry. */
import { assert, describe, it } from "@effect/vitest"
import { PartnerAccess, tokenDisplayPrefix } from "../../src/domain/Partner.ts"
import { changeNeeds, PartnerUser, roleReaches } from "../../src/domain/PartnerUser.ts"
import { passRtp } from "../../src/domain/RtpPolicy.ts"

const roles = ["viewer", "developer", "owner"] as const

describe("the portal's role matrix", () => {
  it("a viewer changes only its own account; a developer also tokens and webhooks; an owner also users", () => {
    const matrix = roles.map((
      role
    ) => [
      role,
      Object.entries(changeNeeds).filter(([, needed]) => roleReaches(role, needed)).map(([change]) => change)
    ])
    assert.deepStrictEqual(matrix, [
      ["viewer", ["account"]],
      ["developer", ["account", "tokens", "webhooks"]],
      ["owner", ["account", "tokens", "webhooks", "users"]]
    ])
  })
})

describe("a partner user's status", () => {
  const user = (passwordSet: boolean, invitationExpiresAt: Date | null) =>
    new PartnerUser({
      id: 1,
      partnerId: 1,
      email: "a@b.example",
      role: "viewer",
      passwordSet,
      invitationExpiresAt,
      createdAt: new Date(0)
    })
  it("is active once a password is set, invited while a link is open, and expired otherwise", () => {
    assert.strictEqual(user(true, null).statusAt(10), "active")
    assert.strictEqual(
      user(true, new Date(100)).statusAt(10),
      "active",
      "a new link for someone with a password (a reset)"
    )
    assert.strictEqual(user(false, new Date(100)).statusAt(10), "invited")
    assert.strictEqual(user(false, new Date(100)).statusAt(100), "invitation expired")
    assert.strictEqual(user(false, null).statusAt(10), "invitation expired")
  })
})

describe("tokens", () => {
  it("show their environment's prefix and four characters, or a chosen token's first four", () => {
    assert.strictEqual(tokenDisplayPrefix("pak_live_Ab_dEfghijklmnopqrstuvwxyz0123456789ABCDEF"), "pak_live_Ab_d")
    assert.strictEqual(tokenDisplayPrefix("pak_test_xyz0123456789"), "pak_test_xyz0")
    assert.strictEqual(tokenDisplayPrefix("pak_0123456789abcdefghijklmn"), "pak_0123")
    assert.strictEqual(tokenDisplayPrefix("demo-token-of-my-own-choosing"), "demo")
  })

  it("admit until their expiry (none: the current token)", () => {
    const access = (expires: Date | null | undefined) =>
      new PartnerAccess({
        id: 1,
        name: "A",
        slug: "a",
        status: "active",
        commissionPercent: 0,
        callbackUrl: null,
        rateLimitPerMinute: null,
        createdAt: new Date(0),
        updatedAt: new Date(0),
        environment: "live",
        rtpPolicy: passRtp,
        defaultCurrency: null,
        currencies: null,
        ...(expires === undefined ? {} : { tokenExpiresAt: expires })
      })
    assert.isTrue(access(undefined).admitsAt(5))
    assert.isTrue(access(null).admitsAt(5))
    assert.isTrue(access(new Date(6)).admitsAt(5))
    assert.isFalse(access(new Date(5)).admitsAt(5))
  })
})
