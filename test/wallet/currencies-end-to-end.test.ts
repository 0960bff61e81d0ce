/**
 * Issue 33's "Done when", end to end over real HTTP and PostgreSQL: one player of a partner launched in EUR and in
 * BTC through the partner API, played through the sandbox game's spin endpoint, its callbacks delivered to the
 * sandbox partner wallet. Then the partner's wallet, the ledger, the partner API's reconciliation, the day's
 * statement and the console's transactions agree to the last minor unit in each currency, with EUR amounts JSON
 * numbers of at most 2 decimals and BTC amounts decimal strings of 8 everywhere; and a spin in one currency never
 * moves the other's balance.
 *
 * The statement is the real close (Statements.closeDays, what the fleet runs once a day has ended) over the rows
 * the spins wrote today, with only its clock moved to just after the day's end (as test/wallet/statements.test.ts
 * does), then read over HTTP like any partner reads it.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpClient, HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import { TestClock } from "effect/testing"
import { type Currency, knownCurrency } from "../../src/domain/Currency.ts"
import { type Minor, minorOf, signedMinorOf } from "../../src/domain/Money.ts"
import { dayOf, dayStart, nextDay } from "../../src/domain/Statements.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxPartnerWallet.ts"
import { CallbackWorker } from "../../src/wallet/outbox/CallbackWorker.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { adminRequest, givenAdmin, sessionOf } from "../support/AdminConsole.ts"
import { eventually, live } from "../support/live.ts"
import { bearer, givenPartner, givenSyncedCatalog, request, TestApp } from "../support/TestApp.ts"

const eur = knownCurrency("EUR")!
const btc = knownCurrency("BTC")!
const currencyOf = (code: unknown): Currency => {
  assert.include(["EUR", "BTC"], code, "every amount's currency is named beside it")
  return code === "EUR" ? eur : btc
}
const player = "duo"
/** What the partner's wallet holds at launch: odd cents and odd satoshis, so a lost or rounded unit shows. */
const starts = { EUR: "100.37", BTC: "25.12345679" } as const

/** The wire's amount fields (entries, rounds, answers, statement lines and totals, spins). */
const amountKeys = new Set([
  "bet",
  "win",
  "amount",
  "balance",
  "balance_after",
  "bet_total",
  "win_total",
  "bets",
  "wins",
  "refunds",
  "rollbacks",
  "net"
])

/** An amount as the wire must carry it in its currency (EUR: a number of at most 2 decimals; BTC: 8-decimal text). */
const minorOnWire = (value: unknown, currency: Currency, where: string): Minor => {
  if (currency.code === "EUR") {
    assert.isNumber(value, `${where}: EUR is a JSON number`)
    assert.match(String(value), /^-?\d+(\.\d{1,2})?$/, `${where}: EUR has at most 2 decimals`)
  } else {
    assert.isString(value, `${where}: BTC is a decimal string`)
    assert.match(value as string, /^-?\d+\.\d{8}$/, `${where}: BTC has 8 decimals`)
  }
  return signedMinorOf(String(value), currency)!
}

/**
 * Every amount anywhere in an answer, checked in the currency named by its nearest enclosing object (an entry, a
 * round, a statement line or a currency's totals); the count of those checked, so a test knows the walk saw them.
 */
const checkAmounts = (value: unknown, where: string, currency?: Currency): number => {
  if (Array.isArray(value)) {
    return value.reduce((n: number, item, i) => n + checkAmounts(item, `${where}[${i}]`, currency), 0)
  }
  if (typeof value !== "object" || value === null) return 0
  const record = value as Record<string, unknown>
  const own = "currency" in record ? currencyOf(record.currency) : currency
  let checked = 0
  for (const [key, field] of Object.entries(record)) {
    // `counts` has keys of the totals' names, but they count transactions.
    if (key === "counts") continue
    if (amountKeys.has(key) && field !== null && typeof field !== "object") {
      assert.isDefined(own, `${where}.${key} has a currency`)
      minorOnWire(field, own!, `${where}.${key}`)
      checked++
    } else checked += checkAmounts(field, `${where}.${key}`, own)
  }
  return checked
}

const serverUrl = Effect.map(
  Effect.service(HttpServer.HttpServer),
  (server) => `http://127.0.0.1:${(server.address as { readonly port: number }).port}`
)

interface Spin {
  readonly txnId: string
  readonly currency: "EUR" | "BTC"
  readonly bet: Minor
  readonly win: Minor
  readonly balance: Minor
}

layer(
  CallbackWorker.pipe(Layer.provideMerge(TestApp({ currencies: { crypto: ["BTC"] } }))),
  live
)("currencies end to end", (it) => {
  it.effect("EUR and BTC of one player agree everywhere to the last minor unit, and never touch", () =>
    Effect.gen(function*() {
      yield* givenSyncedCatalog
      const sql = yield* SqlClient.SqlClient
      const { partner, token } = yield* givenPartner({
        name: "Two Currencies",
        callbackUrl: `${yield* serverUrl}${sandboxPartnerWalletPath}`
      })
      const day = dayOf(Date.now())

      // The same player launched in each currency: a partner_players row and a game session of each.
      const gamePaths = { EUR: "", BTC: "" }
      for (const code of ["EUR", "BTC"] as const) {
        const launched = yield* request("POST", "/api/partner/v1/launch", {
          headers: bearer(token),
          json: {
            external_player_id: player,
            player_balance: starts[code],
            currency: code,
            provider: "aurora-gaming",
            game_code: "ag-hidden-fortune"
          }
        })
        assert.strictEqual(launched.status, 200, JSON.stringify(launched.body))
        const data = (launched.body as { data: { launch: { url: string }; partner_player: { currency: string } } }).data
        assert.strictEqual(data.partner_player.currency, code)
        assert.strictEqual(checkAmounts(data, "launch"), 1, "the launch answers the player's balance")
        assert.strictEqual(
          minorOnWire((data.partner_player as { balance?: unknown }).balance, currencyOf(code), "launch balance"),
          minorOf(starts[code], currencyOf(code))
        )
        gamePaths[code] = new URL(data.launch.url).pathname
      }
      const players = yield* sql<{ currency: string; user_code: string }>`
        SELECT currency, internal_user_id::text AS user_code FROM partner_players
        WHERE partner_id = ${partner.id} AND external_player_id = ${player} ORDER BY currency`
      assert.deepStrictEqual(players.map((row) => row.currency), ["BTC", "EUR"])
      assert.notStrictEqual(players[0].user_code, players[1].user_code, "a user code of each currency")

      // The partner's wallet: one balance per currency (opened by the first callback of each).
      const wallets = Effect.map(
        sql<{ currency: string; balance: string }>`
          SELECT currency, balance::text FROM sandbox_partner_wallets
          WHERE partner_id = ${partner.id} AND external_player_id = ${player}`,
        (rows) => Object.fromEntries(rows.map((row) => [row.currency, BigInt(row.balance)])) as Record<string, Minor>
      )

      // Spins alternating EUR and BTC through the game's own endpoint; each waits for the partner's wallet to hold
      // the balance the spin answered (its win arrives as a notification), then the other currency is where it was.
      const stakes = [0.5, 1, 2, 5, 1, 0.5] as const
      const spins: Array<Spin> = []
      for (const stake of stakes) {
        for (const code of ["EUR", "BTC"] as const) {
          const currency = currencyOf(code)
          const other = code === "EUR" ? "BTC" : "EUR"
          const before = yield* wallets
          const answer = yield* request("POST", `${gamePaths[code]}/spin`, { json: { bet: stake } })
          assert.strictEqual(answer.status, 200, JSON.stringify(answer.body))
          const body = answer.body as Record<string, unknown>
          assert.strictEqual(body.msg, "", JSON.stringify(body))
          const spin: Spin = {
            txnId: body.txn_id as string,
            currency: code,
            bet: minorOnWire(body.bet, currency, "spin.bet"),
            win: minorOnWire(body.win, currency, "spin.win"),
            balance: minorOnWire(body.balance, currency, "spin.balance")
          }
          assert.strictEqual(spin.bet, minorOf(String(stake), currency))
          spins.push(spin)
          yield* eventually(wallets, (held) => held[code] === spin.balance, `the partner's ${code} wallet`)
          assert.strictEqual((yield* wallets)[other], before[other], `a ${code} spin leaves ${other} unchanged`)
        }
      }

      // Every callback delivered: nothing is still on its way to the wallet, and no bet holds the day's close back.
      yield* eventually(
        sql<
          { n: number }
        >`SELECT count(*)::int AS n FROM partner_callbacks c JOIN partner_players pp ON pp.id = c.player_id
            WHERE pp.partner_id = ${partner.id} AND c.status <> 'delivered'`,
        (rows) => rows[0].n === 0,
        "every callback delivered"
      )
      // What the partner was sent (the game page lists a session's latest callbacks): amounts in its currency.
      for (const code of ["EUR", "BTC"] as const) {
        const shown = yield* request("GET", `${gamePaths[code]}/callbacks`)
        const bodies = (shown.body as { callbacks: Array<{ body: Record<string, unknown> }> }).callbacks.map((c) =>
          c.body
        )
        assert.isAtLeast(checkAmounts(bodies, `${code} callbacks`), 1)
        assert.isTrue(bodies.every((body) => body.currency === code), `${code} callbacks are all in ${code}`)
      }

      // What each currency moved, by the spins' own answers: the partner's balance is its start plus that.
      const sums = { EUR: 0n, BTC: 0n }
      for (const spin of spins) sums[spin.currency] += spin.win - spin.bet
      const held = yield* wallets
      for (const code of ["EUR", "BTC"] as const) {
        const start = minorOf(starts[code], currencyOf(code))!
        assert.strictEqual(held[code], start + sums[code], `the partner's ${code} wallet: start + applied`)
      }

      // The ledger: one applied row per spin, in its player's currency, amounts in that currency's minor units.
      const ledger = yield* sql<
        {
          txn_id: string
          currency: string
          player_currency: string
          status: string
          bet: string
          win: string
          amount: string
          balance_after: string
        }
      >`SELECT t.txn_id, t.currency, pp.currency AS player_currency, t.status, t.bet::text, t.win::text,
               t.amount::text, t.balance_after::text
        FROM wallet_transactions t JOIN partner_players pp ON pp.id = t.player_id
        WHERE t.partner_id = ${partner.id} ORDER BY t.id`
      assert.deepStrictEqual(
        ledger.map((
          row
        ) => [row.txn_id, row.currency, row.player_currency, row.status, BigInt(row.bet), BigInt(row.win)]),
        spins.map((spin) => [spin.txnId, spin.currency, spin.currency, "applied", spin.bet, spin.win])
      )
      for (const [i, row] of ledger.entries()) {
        assert.strictEqual(BigInt(row.amount), spins[i].win - spins[i].bet, `${row.txn_id}: amount`)
        assert.strictEqual(BigInt(row.balance_after), spins[i].balance, `${row.txn_id}: balance after`)
      }
      const mirrors = yield* sql<{ currency: string; balance: string }>`
        SELECT currency, balance::text FROM partner_players
        WHERE partner_id = ${partner.id} AND external_player_id = ${player}`
      for (const row of mirrors) assert.strictEqual(BigInt(row.balance), held[row.currency], `${row.currency} mirror`)

      /** An answer's entries by transaction id, each as [currency, bet, win, amount] in minor units. */
      const byTxn = (entries: ReadonlyArray<Record<string, unknown>>, id = "transaction_id") =>
        new Map(entries.map((entry) => {
          const currency = currencyOf(entry.currency)
          return [entry[id] as string, [
            currency.code,
            minorOnWire(entry.bet, currency, "bet"),
            minorOnWire(entry.win, currency, "win"),
            minorOnWire(entry.amount, currency, "amount")
          ]]
        }))
      const expected = new Map(
        spins.map((spin) => [spin.txnId, [spin.currency, spin.bet, spin.win, spin.win - spin.bet]])
      )

      // The partner API's reconciliation: every transaction, and a round of each currency.
      const listed = yield* request("GET", "/api/partner/v1/wallet/transactions?per_page=200", {
        headers: bearer(token)
      })
      assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
      const entries = (listed.body as { data: { transactions: Array<Record<string, unknown>> } }).data.transactions
      assert.isAtLeast(checkAmounts(entries, "transactions"), spins.length * 5)
      assert.deepStrictEqual(byTxn(entries), expected)
      for (const spin of [spins[0], spins[1]]) {
        const round = yield* request("GET", `/api/partner/v1/wallet/rounds/${spin.txnId}`, { headers: bearer(token) })
        assert.strictEqual(round.status, 200, JSON.stringify(round.body))
        const [found] = (round.body as { data: { rounds: Array<Record<string, unknown>> } }).data.rounds
        assert.isAtLeast(checkAmounts(found, "round"), 7)
        const currency = currencyOf(found.currency)
        assert.strictEqual(currency.code, spin.currency)
        assert.deepStrictEqual(
          [minorOnWire(found.bet_total, currency, "bet_total"), minorOnWire(found.win_total, currency, "win_total")],
          [spin.bet, spin.win]
        )
      }

      // The console's transactions: the same entries, amounts and currencies.
      yield* givenAdmin("ops@currencies.test")
      const session = yield* sessionOf("ops@currencies.test")
      const console = yield* adminRequest(
        "GET",
        `/admin/api/wallet/transactions?partner=${partner.slug}&per_page=200`,
        {
          session
        }
      )
      assert.strictEqual(console.status, 200, JSON.stringify(console.body))
      const consoleEntries = (console.body as { transactions: Array<Record<string, unknown>> }).transactions
      assert.isAtLeast(checkAmounts(consoleEntries, "console"), spins.length * 5)
      assert.deepStrictEqual(byTxn(consoleEntries), expected)

      // The day's statement: the real close, as if just after the day ended, then read as the partner reads it.
      const closed = yield* Effect.flatMap(
        Effect.service(Statements),
        (statements) =>
          Effect.flatMap(TestClock.setTime(dayStart(nextDay(day)).getTime() + 5 * 60_000), () => statements.closeDays)
            .pipe(Effect.provide(TestClock.layer()))
      )
      assert.deepStrictEqual(closed, [day], "the spins were all of one day, closed once")
      const read = yield* request("GET", `/api/partner/v1/wallet/statements/${day}?per_page=200`, {
        headers: bearer(token)
      })
      assert.strictEqual(read.status, 200, JSON.stringify(read.body))
      const { statement, transactions } = (read.body as {
        data: { statement: { currencies: Array<Record<string, any>> }; transactions: Array<Record<string, unknown>> }
      }).data
      assert.isAtLeast(checkAmounts(statement, "statement"), 10)
      assert.isAtLeast(checkAmounts(transactions, "lines"), spins.length * 3)
      assert.deepStrictEqual(byTxn(transactions), expected)
      assert.deepStrictEqual(statement.currencies.map((entry) => entry.currency), ["BTC", "EUR"])
      for (const entry of statement.currencies) {
        const code = entry.currency as "EUR" | "BTC"
        const currency = currencyOf(code)
        const ofCurrency = spins.filter((spin) => spin.currency === code)
        const total = (key: string) => minorOnWire(entry.totals[key], currency, `${code} ${key}`)
        assert.deepStrictEqual(
          [total("bets"), total("wins"), total("refunds"), total("rollbacks"), total("net")],
          [
            ofCurrency.reduce((sum, spin) => sum + spin.bet, 0n),
            ofCurrency.reduce((sum, spin) => sum + spin.win, 0n),
            0n,
            0n,
            sums[code]
          ],
          `${code}'s totals`
        )
        assert.strictEqual(total("net"), held[code] - minorOf(starts[code], currency)!, `${code}: net = wallet moved`)
        assert.strictEqual(entry.counts.transactions, ofCurrency.length)
      }

      // The signed JSON lines document says the same, in the same forms.
      const document = yield* Effect.flatMap(
        HttpClient.HttpClient,
        (client) =>
          client.get(`/api/partner/v1/wallet/statements/${day}?format=jsonl`, { headers: bearer(token) }).pipe(
            Effect.flatMap((response) => response.text)
          )
      ).pipe(Effect.orDie)
      const [summary, ...lines] = document.trimEnd().split("\n").map((line) => JSON.parse(line))
      assert.deepStrictEqual(summary.currencies, statement.currencies)
      assert.isAtLeast(checkAmounts(lines, "document"), spins.length * 3)
      assert.deepStrictEqual(byTxn(lines), expected)
    }))
})
