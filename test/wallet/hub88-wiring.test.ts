/**
 * Hub88's wallet paths are served only when the deployment has a Hub88 account: with no HUB88_* setting they do not
 * exist; any one set, every setting is read (a missing one stops the start, never a half-configured wallet).
 */
import { assert, describe, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect } from "effect"
import { Hub88Config } from "../../src/integrations/hub88/Hub88Config.ts"
import { hub88Configured } from "../../src/integrations/hub88/Hub88Wiring.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { signBody } from "../../src/integrations/hub88/Hub88Signature.ts"
import { hub88Keys, operatorKeys } from "../support/FakeHub88.ts"
import { hub88Env, Hub88WalletApp } from "../support/Hub88Wallet.ts"
import { live } from "../support/live.ts"
import { request } from "../support/TestApp.ts"
import { WalletApp } from "../support/WalletApp.ts"

const withEnv = (env: Record<string, string>) => Effect.provide(ConfigProvider.layer(ConfigProvider.fromEnv({ env })))

describe("whether Hub88 is configured", () => {
  it.effect("no HUB88_* setting: not configured; any one: configured, and then all are read", () =>
    Effect.gen(function*() {
      assert.isFalse(yield* hub88Configured.pipe(withEnv({ DEFAULT_CURRENCY: "BRL" })))
      assert.isTrue(yield* hub88Configured.pipe(withEnv({ HUB88_PUBLIC_KEY_FILE: "/nowhere.pem" })))
      assert.isTrue(yield* hub88Configured.pipe(withEnv(hub88Env)))
      const partial = yield* Effect.flip(
        Effect.gen(function*() {
          return yield* Hub88Config.config
        }).pipe(withEnv({ HUB88_BASE_URL: "https://api.hub88.io" }))
      )
      assert.include(String(partial), "HUB88_PRIVATE_KEY")
    }))
})

layer(WalletApp(new PartnerBooks()), live)("Hub88 not configured", (it) => {
  it.effect("its wallet paths are not served", () =>
    Effect.gen(function*() {
      for (
        const path of ["/user/info", "/user/balance", "/transaction/bet", "/transaction/win", "/transaction/rollback"]
      ) {
        const answer = yield* request("POST", `/aggregator/hub88${path}`, { body: "{}" })
        assert.strictEqual(answer.status, 404, path)
      }
    }))
})

layer(Hub88WalletApp(new PartnerBooks(), { app: { authFailureLimit: 2 } }), live)("Hub88's bad signatures", (it) => {
  it.effect("count toward AUTH_FAILURE_LIMIT: past it an address gets a 429, a good signature too", () =>
    Effect.gen(function*() {
      const body = JSON.stringify({ request_uuid: "limit-1", user: "1" })
      const send = (signature: string) =>
        request("POST", "/aggregator/hub88/user/info", {
          body,
          headers: { "content-type": "application/json", "x-hub88-signature": signature }
        })
      const forged = signBody(body, operatorKeys.privateKey)
      const answers = [yield* send(forged), yield* send(forged), yield* send(forged)]
      assert.deepStrictEqual(answers.map((answer) => answer.status), [200, 200, 429])
      for (const answer of answers) {
        assert.strictEqual((answer.body as { status: string }).status, "RS_ERROR_INVALID_SIGNATURE")
      }
      assert.isDefined(answers[2]!.headers["retry-after"])
      assert.strictEqual((yield* send(signBody(body, hub88Keys.privateKey))).status, 429)
    }))
})
