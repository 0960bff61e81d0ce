/**
 * A player's transactions in two currencies, in a real headless Chromium: the console's and the portal's Wallet pages
 * show each amount beside its currency's code exactly as the API writes it (BRL a number, BTC a decimal string at
 * its full scale), and their Currency field narrows the list to one currency; a value that is no currency code is
 * refused with the field named. Over PostgreSQL, with the fake partner wallet taking every stake.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { givenAdmin } from "../support/AdminConsole.ts"
import { Browser, newPage, step } from "../support/Browser.ts"
import { logIn, openSection, ready } from "../support/PanelSteps.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { live } from "../support/live.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { givenPlayer, givenWalletPartner, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** Searches with `currency` in the Currency field (the rest of the form as it is) and waits for the page. */
const searchCurrency = (page: Page, currency: string) =>
  Effect.gen(function*() {
    const form = page.getByRole("search")
    yield* step(() => form.getByLabel("Currency").fill(currency))
    yield* step(() => form.getByRole("button", { name: "Search" }).click())
    yield* step(() => page.waitForURL(new RegExp(`currency=${currency}`)))
    yield* ready(page)
  })

/** A partner whose player has a BRL row and a BTC row, with one stake in each. */
const givenTwoCurrencies = Effect.gen(function*() {
  const created = yield* givenWalletPartner(books)
  const external = `two-${created.partner.id}`
  const brl = yield* givenPlayer(books, created.partner.id, external, 100)
  const btc = yield* (yield* PartnerPlayers).arrive({
    partnerId: created.partner.id,
    environment: "live",
    externalPlayerId: external,
    currency: "BTC",
    name: null,
    email: null,
    balance: 100_000_000n
  })
  books.balances.set(books.walletOf(external, "BTC"), 100_000_000n)
  const brlTxn = `brl-${created.partner.id}`
  const btcTxn = `btc-${created.partner.id}`
  assert.strictEqual(walletAnswer(yield* winBet(brl.internalUserId, brlTxn, { bet: 12.5, win: 0 })).msg, "")
  // The protocol writes a BTC balance as a decimal string: read the answer's msg alone.
  const btcAnswer = yield* winBet(btc.internalUserId, btcTxn, { bet: 0.0005, win: 0 })
  assert.strictEqual((btcAnswer.body as { readonly msg: string }).msg, "", JSON.stringify(btcAnswer.body))
  return { ...created, external, brlTxn, btcTxn }
})

layer(Layer.merge(WalletApp(books), Browser.layer), live)("amounts and their currency in the panels", (it) => {
  it.effect(
    "the console's Wallet page shows each amount beside its currency and filters by currency",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { brlTxn, btcTxn, partner } = yield* givenTwoCurrencies
        yield* givenAdmin("wallet-currencies@example.com")
        const page = yield* newPage()
        yield* logIn(page, "/admin", "wallet-currencies@example.com")
        yield* openSection(page, "Wallet")
        yield* step(() => page.getByRole("search").getByLabel("Partner").selectOption(partner.slug))

        yield* searchCurrency(page, "BTC")
        yield* step(() => page.getByRole("heading", { name: "1 transaction (live and test)" }).waitFor())
        const btcCard = page.locator(`article[data-transaction="${btcTxn}"]`)
        assert.strictEqual(yield* step(() => btcCard.locator("[data-field=currency]").textContent()), "BTC")
        assert.strictEqual(
          yield* step(() => btcCard.locator("[data-field=amounts]").textContent()),
          "0.00050000 BTC / 0.00000000 BTC / -0.00050000 BTC"
        )
        assert.strictEqual(
          yield* step(() => btcCard.locator("[data-field=balance-after]").textContent()),
          "0.99950000 BTC"
        )
        assert.strictEqual(yield* step(() => page.locator(`article[data-transaction="${brlTxn}"]`).count()), 0)

        yield* searchCurrency(page, "BRL")
        const brlCard = page.locator(`article[data-transaction="${brlTxn}"]`)
        yield* step(() => brlCard.waitFor())
        assert.strictEqual(
          yield* step(() => brlCard.locator("[data-field=amounts]").textContent()),
          "12.5 BRL / 0 BRL / -12.5 BRL"
        )
        assert.strictEqual(yield* step(() => brlCard.locator("[data-field=balance-after]").textContent()), "87.5 BRL")
        assert.strictEqual(yield* step(() => page.locator(`article[data-transaction="${btcTxn}"]`).count()), 0)
        assert.strictEqual(yield* step(() => page.getByRole("search").getByLabel("Currency").inputValue()), "BRL")

        yield* searchCurrency(page, "EUR")
        yield* step(() => page.getByText("No transaction matches.").waitFor())

        yield* searchCurrency(page, "brl")
        const refused = yield* step(() => page.getByRole("alert").textContent())
        assert.include(refused ?? "", "The selected currency is invalid.")
      })),
    { timeout: 60_000 }
  )

  it.effect(
    "the portal's Wallet page shows each amount beside its currency, in the list and a round, and filters by currency",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const { brlTxn, btcTxn, partner } = yield* givenTwoCurrencies
        yield* givenPortalUser(partner, `owner-${partner.slug}@currencies.example`)
        const page = yield* newPage()
        yield* logIn(page, "/portal", `owner-${partner.slug}@currencies.example`)
        yield* openSection(page, "Wallet")
        const rows = page.locator("section[aria-labelledby=results-title] tbody tr")
        assert.strictEqual(yield* step(() => rows.count()), 2)

        yield* searchCurrency(page, "BTC")
        yield* step(() => page.getByRole("heading", { name: "1 live transaction" }).waitFor())
        const btcRow = rows.filter({ hasText: btcTxn })
        assert.strictEqual(
          yield* step(() => btcRow.locator("td[data-label='Bet / win / amount']").textContent()),
          "0.00050000 BTC / 0.00000000 BTC / -0.00050000 BTC"
        )
        assert.strictEqual(
          yield* step(() => btcRow.locator("td[data-label='Balance after']").textContent()),
          "0.99950000 BTC"
        )
        assert.strictEqual(yield* step(() => rows.count()), 1)

        yield* searchCurrency(page, "BRL")
        yield* step(() => page.getByRole("heading", { name: "1 live transaction" }).waitFor())
        assert.strictEqual(
          yield* step(() =>
            rows.filter({ hasText: brlTxn }).locator("td[data-label='Bet / win / amount']").textContent()
          ),
          "12.5 BRL / 0 BRL / -12.5 BRL"
        )

        // A round: its totals beside its currency.
        yield* step(() => page.getByRole("search").getByLabel("Currency").fill(""))
        yield* step(() => page.getByRole("search").getByLabel("Show a round").fill(btcTxn))
        yield* step(() => page.getByRole("search").getByRole("button", { name: "Search" }).click())
        yield* step(() => page.getByText("Bets 0.00050000 BTC, wins 0.00000000 BTC").waitFor())

        yield* searchCurrency(page, "XYZ")
        const refused = yield* step(() => page.getByRole("alert").first().textContent())
        assert.include(refused ?? "", "The selected currency is invalid.")
      })),
    { timeout: 60_000 }
  )
})
