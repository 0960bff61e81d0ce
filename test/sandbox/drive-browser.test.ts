/**
 * The sandbox game page's buttons as a person uses them, in a real headless Chromium over PostgreSQL: a bet the
 * wallet refuses, a spin, a late win, a rollback and a refund, each answered in words and shown among the signed
 * callbacks, the partner's wallet (the sandbox partner wallet) holding its start plus what the ledger applied. And a
 * test callback URL the service's policy refuses (set around the service, as a CLI with
 * PARTNER_CALLBACK_ALLOW_PRIVATE=true would): the page names that cause, not "Insufficient funds".
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { SqlClient } from "effect/sql"
import type { Page } from "playwright-core"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { Browser, newPage, serverUrl, step } from "../support/Browser.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { givenPartner, givenSyncedCatalog, TestApp } from "../support/TestApp.ts"

/** A test launch of the sandbox game: its page's address. */
const launchTest = (token: string, externalPlayerId: string) =>
  Effect.gen(function*() {
    const client = yield* partnerClient(token)
    const launched = yield* client.casino.launch({
      payload: {
        external_player_id: externalPlayerId,
        player_balance: "20.00",
        provider: "aurora-gaming",
        game_code: "ag-hidden-fortune"
      }
    })
    return new URL(launched.data.launch.url).pathname
  })

/** Presses a button and reads what the page answered. */
const press = (page: Page, name: string) =>
  Effect.gen(function*() {
    yield* step(() => page.getByRole("button", { name }).click())
    // The page disables its buttons while a call is made, and frees them once its answer is shown.
    yield* step(() => page.locator("#spin:not([disabled])").waitFor())
    return (yield* step(() => page.locator("#result").textContent())) ?? ""
  })

layer(Layer.merge(CallbackWorker.pipe(Layer.provideMerge(TestApp())), Browser.layer), live)(
  "the sandbox game page's buttons",
  (it) => {
    it.effect("a person refuses a bet, spins, wins late, rolls back and refunds, and sees each callback", () =>
      Effect.scoped(Effect.gen(function*() {
        yield* givenSyncedCatalog
        const base = yield* serverUrl
        const created = yield* givenPartner({
          name: "Button Presser",
          testCallbackUrl: `${base}${sandboxPartnerWalletPath}?environment=test`
        })
        const gamePath = yield* launchTest(created.test.token, "presser")
        const page = yield* newPage()
        yield* step(() => page.goto(`${base}${gamePath}`))

        // Before a spin, only the refused bet may be tried: the others act on the last round.
        assert.isTrue(yield* step(() => page.getByRole("button", { name: "Refund the last round" }).isDisabled()))
        assert.include(yield* press(page, "Bet the wallet refuses"), "Insufficient funds")

        let spun = ""
        for (let i = 0; i < 5 && !/won|No win/.test(spun); i++) spun = yield* press(page, "Spin")
        assert.match(spun, /won|No win/)
        assert.include(yield* press(page, "Late win"), "Late win of")
        assert.include(yield* press(page, "Roll back the last bet"), "Bet rolled back")
        assert.include(yield* press(page, "Refund the last round"), "Round refunded")

        // The signed callbacks the partner was sent, as the page lists them.
        yield* step(() => page.locator("#callbacks li", { hasText: "refund" }).first().waitFor())
        const kinds = yield* step(() => page.locator("#callbacks .kind").allTextContents())
        assert.includeMembers(kinds.map((kind) => kind.trim()), ["bet", "win", "rollback", "refund"])

        // The partner's wallet holds its start plus what the ledger applied.
        const sql = yield* SqlClient.SqlClient
        yield* eventually(
          Effect.all({
            wallet: sql<{ balance: string }>`
              SELECT balance FROM sandbox_partner_wallets WHERE partner_id = ${created.partner.id}`,
            ledger: sql<{ total: string | null }>`
              SELECT sum(amount)::text AS total FROM wallet_transactions
              WHERE partner_id = ${created.partner.id} AND status = 'applied'`
          }),
          ({ ledger, wallet }) =>
            wallet.length === 1 && BigInt(wallet[0].balance) === 2000n + BigInt(ledger[0].total ?? "0"),
          "the partner's wallet at its start plus the ledger's applied amounts"
        )
        // The balance shown is the ledger's.
        const shown = yield* step(() => page.locator("#balance").textContent())
        const [mirror] = yield* sql<{ balance: string }>`
          SELECT balance FROM partner_players WHERE partner_id = ${created.partner.id}`
        assert.strictEqual(shown, `${(Number(mirror.balance) / 100).toFixed(2)} BRL`)
      })))
  }
)

layer(
  Layer.merge(
    CallbackWorker.pipe(Layer.provideMerge(TestApp({ partners: { callbackAllowPrivate: false } }))),
    Browser.layer
  ),
  live
)("the sandbox game page names why a wallet could not be called", (it) => {
  it.effect("a private callback URL the service refuses is named as the cause, not insufficient funds", () =>
    Effect.scoped(Effect.gen(function*() {
      yield* givenSyncedCatalog
      const created = yield* givenPartner({ name: "Private Wallet" })
      // Set around the service's policy (a CLI run with PARTNER_CALLBACK_ALLOW_PRIVATE=true writes the same row).
      const sql = yield* SqlClient.SqlClient
      yield* sql`UPDATE partner_environments SET callback_url = 'http://127.0.0.1:9000/wallet?key=s3cret'
                 WHERE partner_id = ${created.partner.id} AND environment = 'test'`
      const gamePath = yield* launchTest(created.test.token, "private")
      const page = yield* newPage()
      const base = yield* serverUrl
      yield* step(() => page.goto(`${base}${gamePath}`))

      const said = yield* press(page, "Spin")
      assert.include(said, "Your wallet at http://127.0.0.1:9000/wallet?key=*** could not be called")
      assert.include(said, "PARTNER_CALLBACK_ALLOW_PRIVATE=true")
      assert.notInclude(said, "Insufficient funds")
      assert.notInclude(said, "s3cret")
    })))
})
