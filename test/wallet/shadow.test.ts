/**
 * Shadow players, over real HTTP and PostgreSQL: a partner in shadow mode
 * leaves no player name or e-mail in any column of any table, and no balance
 * mirror; money is conserved; switching the mode in the middle of a round
 * strands nothing.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { PartnerAdmin } from "../../src/admin/AdminChanges.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import { assertConserved, balance, givenWalletPartner, refund, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()
const actor = { name: "tester", via: "cli" as const }

/** Every text-like column of every table of the schema that holds `needle`, as `table.column`. */
const columnsHolding = (needle: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = yield* sql<{ table_name: string; column_name: string }>`
      SELECT table_name, column_name FROM information_schema.columns
      WHERE table_schema = 'public' AND data_type IN ('text', 'character varying', 'jsonb', 'json')`
    const found: Array<string> = []
    for (const { column_name, table_name } of columns) {
      const [row] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM ${sql(table_name)} WHERE ${sql(column_name)}::text LIKE ${`%${needle}%`}`
      if (row.n > 0) found.push(`${table_name}.${column_name}`)
    }
    return found
  }).pipe(Effect.orDie)

layer(WalletApp(books), live)("shadow players", (it) => {
  it.effect("after launches and whole rounds no column holds the player's name or e-mail, and no mirror is kept", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(books)
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "shadow")
      const players = yield* PartnerPlayers
      // A launch's arrival, with the PII a partner would send: none of it is kept.
      const player = yield* players.arrive({
        partnerId: acme.partner.id, environment: "live", externalPlayerId: "shadow-1",
        name: "Zelda Quixotic", email: "zelda.quixotic@example.test", balance: 10_000
      })
      books.balances.set("shadow-1", 10_000)
      assert.deepInclude(player, { name: null, email: null, balance: null })
      yield* winBet(player.internal_user_id, "sh-1", { bet: 10, win: 25 }, "sh-round-1")
      yield* winBet(player.internal_user_id, "sh-2", { bet: 5, win: 0 }, "sh-round-2")
      yield* refund(player.internal_user_id, "sh-r2", "sh-round-2")
      yield* assertConserved(books, { external: "shadow-1", playerId: player.id, start: 100 })
      // Balance always asks the partner: once the notifications are in, it holds 100 - 10 + 25 - 5 + 5.
      assert.deepStrictEqual(walletAnswer(yield* balance(player.internal_user_id)), { msg: "", balance: 115 })
      assert.deepStrictEqual(yield* columnsHolding("Zelda"), [])
      assert.deepStrictEqual(yield* columnsHolding("zelda.quixotic"), [])
      const sql = yield* SqlClient.SqlClient
      const [row] = yield* sql<{ name: string | null; email: string | null; balance: string | null }>`
        SELECT name, email, balance FROM partner_players WHERE id = ${player.id}`.pipe(Effect.orDie)
      assert.deepStrictEqual(row, { name: null, email: null, balance: null })
    }))

  it.effect("switching to shadow in the middle of a round: the round ends, money is conserved, what was kept is forgotten", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(books)
      const players = yield* PartnerPlayers
      const player = yield* players.arrive({
        partnerId: acme.partner.id, environment: "live", externalPlayerId: "switch-1",
        name: "Ulysses Persisted", email: "ulysses@example.test", balance: 5_000
      })
      books.balances.set("switch-1", 5_000)
      assert.strictEqual(player.name, "Ulysses Persisted")
      books.behaviour = "slow"
      books.delayMillis = 600
      const bet = yield* Effect.forkChild(winBet(player.internal_user_id, "sw-1", { bet: 10, win: 0 }, "sw-round"))
      yield* eventually(Effect.sync(() => books.receivedFor(transactionEventId("bet", "sw-1")).length), (n) => n === 1)
      // The bet waits for the partner while the operator switches the partner to shadow.
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "shadow")
      const answer = yield* Fiber.join(bet)
      books.behaviour = "fine"
      assert.deepStrictEqual(answer.body, { msg: "", balance: 40 })
      const refunded = yield* refund(player.internal_user_id, "sw-r1", "sw-round")
      assert.strictEqual(walletAnswer(refunded).msg, "")
      yield* assertConserved(books, { external: "switch-1", playerId: player.id, start: 50 })
      const after = yield* players.findById(player.id)
      assert.deepInclude(after.pipe((o) => o._tag === "Some" ? o.value : undefined), { name: null, email: null, balance: null })
      assert.deepStrictEqual(yield* columnsHolding("Ulysses"), [])
      // Back to persisted: the next launch keeps the player's data again.
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "persisted")
      const again = yield* players.arrive({
        partnerId: acme.partner.id, environment: "live", externalPlayerId: "switch-1", name: "U", email: null, balance: 5_000
      })
      assert.deepInclude(again, { name: "U", balance: 5_000 })
    }).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))))
})
