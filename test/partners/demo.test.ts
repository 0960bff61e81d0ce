import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { sandboxPartnerWalletPath } from "../../src/callbacks/SandboxPartnerWallet.ts"
import { ensureDemoPartner } from "../../src/partners/DemoPartner.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { live } from "../support/live.ts"
import { TestServices } from "../support/TestApp.ts"

const token = "pak_demo_test_0000000000000000000000000000000000"

layer(
  TestServices({ app: { demoPartnerToken: Option.some(Redacted.make(token)), publicUrl: Option.some("http://demo.example") } }),
  live
)("the demo partner", (it) => {
  it.effect("holds DEMO_PARTNER_TOKEN and, on the sandbox, pays through the sandbox's own wallet", () =>
    Effect.gen(function*() {
      yield* ensureDemoPartner
      const partners = yield* Partners
      const demo = yield* partners.show("demo")
      assert.strictEqual(demo.callback_url, `http://demo.example${sandboxPartnerWalletPath}`)
      assert.isTrue(Option.isSome(yield* partners.authenticate(token)))

      // An operator's own choice of callback_url is kept across restarts.
      yield* partners.update("demo", { callbackUrl: "https://operator.example/wallet" }).pipe(Effect.orDie)
      yield* ensureDemoPartner
      assert.strictEqual((yield* partners.show("demo")).callback_url, "https://operator.example/wallet")
    }))
})
