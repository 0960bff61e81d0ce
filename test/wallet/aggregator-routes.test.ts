import { assert, layer } from "@effect/vitest"
import { Effect, Option, Redacted } from "effect"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { WalletCredentials } from "../../src/integrations/playfiver/WalletCredentials.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { live } from "../support/live.ts"
import { request } from "../support/TestApp.ts"
import {
  assertConserved,
  givenWalletPlayer,
  ledgerOf,
  mirrorOf,
  walletAnswer,
  WalletApp
} from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** A WinBet of the live agent (here the sandbox's own: CASINO_GATEWAY=sandbox), posted to `path`. */
const winBetAt = (path: string, userCode: number, txnId: string, bet: number) =>
  Effect.gen(function*() {
    const agent = Option.getOrThrow((yield* WalletCredentials).expected)
    return yield* request("POST", path, {
      json: {
        agent_code: agent.agentCode,
        agent_secret: Redacted.value(agent.agentSecret),
        type: "WinBet",
        user_code: userCode,
        slot: { bet, win: 0, txn_id: txnId, round_id: txnId, game_code: "g", provider_code: "p" }
      }
    })
  })

layer(WalletApp(books), live)("POST /aggregator/{aggregator}/wallet", (it) => {
  it.effect("the aggregator's own path and the path of before reach one ledger: a repeat on either moves nothing", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const first = yield* winBetAt("/aggregator/sandbox/wallet", player.userCode, "route-1", 10)
      assert.strictEqual(first.status, 200)
      assert.deepStrictEqual(first.body, { msg: "", balance: 90 })
      const again = yield* winBetAt("/aggregator/wallet", player.userCode, "route-1", 10)
      assert.deepStrictEqual(again.body, { msg: "", balance: 90 })
      assert.strictEqual((yield* ledgerOf(player.playerId)).length, 1)
      assert.strictEqual(yield* mirrorOf(player.playerId), 9_000n)
      // The sandbox's event ids are the ones they always were.
      assert.strictEqual(books.receivedFor(transactionEventId("bet", "route-1")).length, 1)
      yield* assertConserved(books, player, first.body)
    }))

  it.effect("another aggregator's path refuses this agent as a wrong one, and an unknown aggregator is not found", () =>
    Effect.gen(function*() {
      const player = yield* givenWalletPlayer(books, 100)
      const elsewhere = yield* winBetAt("/aggregator/playfiver/wallet", player.userCode, "route-2", 10)
      assert.strictEqual(elsewhere.status, 401)
      assert.deepStrictEqual(elsewhere.body, { msg: "INVALID_AGENT", balance: 0 })
      const unknown = yield* winBetAt("/aggregator/nobody/wallet", player.userCode, "route-3", 10)
      assert.strictEqual(unknown.status, 404)
      assert.strictEqual(walletAnswer(unknown).msg, "INVALID_REQUEST")
      assert.deepStrictEqual(yield* ledgerOf(player.playerId), [])
      assert.strictEqual(yield* mirrorOf(player.playerId), 10_000n)
    }))
})
