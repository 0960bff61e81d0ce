/**
 * Shadow players, over real HTTP and PostgreSQL: a partner in shadow mode
 * leaves no player name or e-mail and no balance the partner answered in any
 * column of any table (balances are distinctive, x.65, so a search means
 * something); money is conserved; switching the mode in the middle of a round
 * strands nothing and forgets what was kept.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Fiber } from "effect"
import { SqlClient } from "effect/sql"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { eventually, live } from "../support/live.ts"
import {
  assertConserved,
  balance,
  givenPlayer,
  givenWalletPartner,
  refund,
  walletAnswer,
  WalletApp,
  winBet
} from "../support/WalletApp.ts"

const books = new PartnerBooks()
const actor = { name: "tester", via: "cli" as const }

/** Every column (any type, read as text) of every table of the schema that holds `needle`, as `table.column`. */
const columnsHolding = (needle: string) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const columns = yield* sql<{ table_name: string; column_name: string }>`
      SELECT c.table_name, c.column_name FROM information_schema.columns c
      JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
      WHERE c.table_schema = 'public' AND t.table_type = 'BASE TABLE'`
    const found: Array<string> = []
    for (const { column_name, table_name } of columns) {
      const [row] = yield* sql<{ n: number }>`
        SELECT count(*)::int AS n FROM ${sql(table_name)} WHERE ${sql(column_name)}::text LIKE ${`%${needle}%`}`
      if (row.n > 0) found.push(`${table_name}.${column_name}`)
    }
    return found
  }).pipe(Effect.orDie)

/** The balance figures (amounts, as numeric columns and JSON write them) found in any column: none is expected. */
const balancesKept = (figures: Iterable<number>) =>
  Effect.gen(function*() {
    const found: Record<string, Array<string>> = {}
    for (const figure of new Set(figures)) {
      const text = figure.toFixed(2)
      const columns = yield* columnsHolding(text)
      if (columns.length > 0) found[text] = columns
    }
    return found
  })

/** The balance the aggregator was told, as sent. */
const told = (answer: { readonly body: unknown }) => walletAnswer(answer).balance!

/** What the wallet's rows of a player keep of balances: balance_after, the kept answers and the notification bodies. */
const keptOf = (playerId: number) =>
  Effect.gen(function*() {
    const sql = yield* SqlClient.SqlClient
    const transactions = yield* sql<{ balance_after: string | null; answer: { readonly balance?: number } | null }>`
      SELECT balance_after, answer FROM wallet_transactions WHERE player_id = ${playerId}`
    const callbacks = yield* sql<
      { kind: string; body: string }
    >`SELECT kind, body FROM partner_callbacks WHERE player_id = ${playerId}`
    return {
      transactions,
      callbacks: callbacks.map((c) => ({ kind: c.kind, body: JSON.parse(c.body) as Record<string, unknown> }))
    }
  }).pipe(Effect.orDie)

layer(WalletApp(books), live)("shadow players", (it) => {
  it.effect("after launches and whole rounds no column holds the player's name, e-mail or any balance the partner answered", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(books)
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "shadow")
      const players = yield* PartnerPlayers
      // A launch's arrival, with the PII a partner would send: none of it is kept.
      const player = yield* players.arrive({
        partnerId: acme.partner.id,
        environment: "live",
        externalPlayerId: "shadow-1",
        currency: "BRL",
        name: "Zelda Quixotic",
        email: "zelda.quixotic@example.test",
        balance: 98_765n
      })
      books.balances.set("shadow-1", 98_765n)
      assert.deepInclude(player, { name: null, email: null, balance: null })
      const user = player.internalUserId
      const figures = [987.65]
      const heard = (answer: { readonly body: unknown }) => {
        figures.push(told(answer))
        return walletAnswer(answer)
      }
      const settle = Effect.gen(function*() {
        yield* assertConserved(books, { external: "shadow-1", playerId: player.id, start: 987.65 })
        figures.push(Number(books.balanceOf("shadow-1")) / 100)
        return Number(books.balanceOf("shadow-1")) / 100
      })
      // A bet taken: the aggregator hears the partner's figure after the stake, plus the win (987.65 - 10 + 25).
      assert.deepStrictEqual(heard(yield* winBet(user, "sh-1", { bet: 10, win: 25 }, "sh-round-1")), {
        msg: "",
        balance: 1002.65
      })
      yield* settle
      heard(yield* winBet(user, "sh-2", { bet: 5, win: 0 }, "sh-round-2"))
      // A free round: the partner is asked its figure, the win comes on top (it follows as a notification).
      assert.deepStrictEqual(heard(yield* winBet(user, "sh-3", { bet: 0, win: 7 }, "sh-round-3")), {
        msg: "",
        balance: 1004.65
      })
      yield* settle
      // A refund: the partner's figure asked before, plus the stake given back.
      assert.deepStrictEqual(heard(yield* refund(user, "sh-r2", "sh-round-2")), { msg: "", balance: 1009.65 })
      // A bet of the refunded round: refused, with the partner's figure, not an invented one.
      const late = heard(yield* winBet(user, "sh-4", { bet: 3, win: 0 }, "sh-round-2"))
      assert.strictEqual(late.msg, "ROUND_REFUNDED")
      const held = yield* settle
      assert.strictEqual(held, 1009.65)
      assert.strictEqual(late.balance, held)
      // A repeat replays the decision; its balance is asked of the partner again (nothing was kept to replay).
      assert.deepStrictEqual(heard(yield* winBet(user, "sh-1", { bet: 10, win: 25 }, "sh-round-1")), {
        msg: "",
        balance: held
      })
      assert.deepStrictEqual(heard(yield* refund(user, "sh-r2", "sh-round-2")), { msg: "", balance: held })
      // Balance always asks the partner.
      assert.deepStrictEqual(heard(yield* balance(user)), { msg: "", balance: held })
      yield* settle
      // The rows keep the decisions and amounts, without a balance: none in balance_after, answers or notifications.
      const kept = yield* keptOf(player.id)
      assert.isTrue(
        kept.transactions.length === 5 &&
          kept.transactions.every((t) => t.balance_after === null && t.answer !== null && !("balance" in t.answer))
      )
      assert.deepStrictEqual(kept.callbacks.map((c) => c.kind).sort(), ["bet", "bet", "refund", "win", "win"])
      assert.isTrue(kept.callbacks.every((c) => !("balance" in c.body)))
      assert.deepStrictEqual(yield* balancesKept(figures), {})
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
        partnerId: acme.partner.id,
        environment: "live",
        externalPlayerId: "switch-1",
        currency: "BRL",
        name: "Ulysses Persisted",
        email: "ulysses@example.test",
        balance: 54_365n
      })
      books.balances.set("switch-1", 54_365n)
      assert.strictEqual(player.name, "Ulysses Persisted")
      // A whole round while persisted: its balances are kept (mirror, balance_after, answer, the win's body) ...
      assert.deepStrictEqual(
        walletAnswer(yield* winBet(player.internalUserId, "sw-0", { bet: 1, win: 3 }, "sw-round-0")),
        {
          msg: "",
          balance: 545.65
        }
      )
      yield* assertConserved(books, { external: "switch-1", playerId: player.id, start: 543.65 })
      assert.isNotEmpty(yield* columnsHolding("545.65"))
      books.behaviour = "slow"
      books.delayMillis = 600
      const bet = yield* Effect.forkChild(winBet(player.internalUserId, "sw-1", { bet: 10, win: 0 }, "sw-round"))
      yield* eventually(Effect.sync(() => books.receivedFor(transactionEventId("bet", "sw-1")).length), (n) => n === 1)
      // The bet waits for the partner while the operator switches the partner to shadow.
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "shadow")
      const answer = yield* Fiber.join(bet)
      books.behaviour = "fine"
      // Decided as persisted, answered with the partner's figure, kept without it (the partner is shadow now).
      assert.deepStrictEqual(answer.body, { msg: "", balance: 535.65 })
      const refunded = yield* refund(player.internalUserId, "sw-r1", "sw-round")
      assert.deepStrictEqual(walletAnswer(refunded), { msg: "", balance: 545.65 })
      yield* assertConserved(books, { external: "switch-1", playerId: player.id, start: 543.65 })
      // ... and forgotten with the switch, as the name: no figure the partner or the aggregator saw is left.
      const kept = yield* keptOf(player.id)
      assert.isTrue(
        kept.transactions.every((t) => t.balance_after === null && t.answer !== null && !("balance" in t.answer))
      )
      assert.isTrue(kept.callbacks.every((c) => !("balance" in c.body)))
      assert.deepStrictEqual(yield* balancesKept([543.65, 545.65, 535.65]), {})
      const after = yield* players.findById(player.id)
      assert.deepInclude(after.pipe((o) => o._tag === "Some" ? o.value : undefined), {
        name: null,
        email: null,
        balance: null
      })
      assert.deepStrictEqual(yield* columnsHolding("Ulysses"), [])
      // Back to persisted: the next launch keeps the player's data again.
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "persisted")
      const again = yield* players.arrive({
        partnerId: acme.partner.id,
        environment: "live",
        externalPlayerId: "switch-1",
        currency: "BRL",
        name: "U",
        email: null,
        balance: 5_000n
      })
      assert.deepInclude(again, { name: "U", balance: 5_000n })
    }).pipe(Effect.ensuring(Effect.sync(() => (books.behaviour = "fine")))))

  it.effect("a notification the partner refuses for now is counted as on its way; a partner that cannot be reached is not asked twice", () =>
    Effect.gen(function*() {
      const acme = yield* givenWalletPartner(books)
      yield* (yield* PartnerAdmin).setPlayerMode(actor, acme.partner.slug, "shadow")
      const player = yield* givenPlayer(books, acme.partner.id, "stalled-1", 321.65)
      const user = player.internalUserId
      books.failNotifications = 1_000
      // The bet is taken: 321.65 - 10, plus the win, which the partner refuses to take for now.
      assert.deepStrictEqual(walletAnswer(yield* winBet(user, "st-1", { bet: 10, win: 25 })), {
        msg: "",
        balance: 336.65
      })
      // A free round: the partner's figure (311.65) plus the win still on its way (25), plus this round's (7).
      assert.deepStrictEqual(walletAnswer(yield* winBet(user, "st-2", { bet: 0, win: 7 })), {
        msg: "",
        balance: 343.65
      })
      assert.strictEqual(books.balanceOf("stalled-1"), 31_165n, "the partner took neither win yet")
      // The partner takes notifications again: a Balance delivers the line first, and the partner's figure says it all.
      books.failNotifications = 0
      const told = yield* balance(user)
      assert.deepStrictEqual(walletAnswer(told), { msg: "", balance: 343.65 })
      yield* assertConserved(books, { external: "stalled-1", playerId: player.id, start: 321.65 }, told.body)

      // A win waits again, and the partner goes away: its line fails to reach it, so no balance is asked after it.
      books.failNotifications = 1_000
      assert.deepStrictEqual(walletAnswer(yield* winBet(user, "st-3", { bet: 1, win: 2 })), {
        msg: "",
        balance: 344.65
      })
      books.behaviour = "down"
      const asked = books.received.filter((c) => c.kind === "balance").length
      assert.deepStrictEqual(walletAnswer(yield* balance(user)), { msg: "", balance: 0 })
      assert.strictEqual(
        books.received.filter((c) => c.kind === "balance").length,
        asked,
        "no balance was asked of a partner away"
      )
      // Back: the next call delivers what waited before it asks (the queue's retry, seconds away, is not waited for).
      books.behaviour = "fine"
      books.failNotifications = 0
      const back = yield* balance(user)
      assert.deepStrictEqual(walletAnswer(back), { msg: "", balance: 344.65 })
      yield* assertConserved(books, { external: "stalled-1", playerId: player.id, start: 321.65 }, back.body)
    }).pipe(Effect.ensuring(Effect.sync(() => {
      books.behaviour = "fine"
      books.failNotifications = 0
    }))))
})
