/**
 * A partner's currencies in the console, over PostgreSQL: the admin API refuses a code of the wrong shape, an
 * unknown one, a list too long or one leaving the default out with a 422 naming the field (never a 500), and the
 * partner page in a real headless Chromium shows the settings, edits them, shows a refusal and records the change.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { adminClient, adminRequest, givenAdmin, loginAs } from "../support/AdminConsole.ts"
import { Browser, newPage, step } from "../support/Browser.ts"
import { logIn, ready } from "../support/PanelSteps.ts"
import { live } from "../support/live.ts"
import { TestApp } from "../support/TestApp.ts"

layer(Layer.merge(TestApp(), Browser.layer), live)("a partner's currencies in the console", (it) => {
  it.effect("bad codes and lists are 422s naming the field; the settings are shown and cleared", () =>
    Effect.gen(function*() {
      yield* givenAdmin("currencies-api@example.com")
      const session = yield* loginAs("currencies-api@example.com")
      const api = yield* adminClient(session)
      const { partner } = yield* api.partners.create({ payload: { name: "Currency Bets" } })
      const patch = (json: unknown) => adminRequest("PATCH", `/admin/api/partners/${partner.slug}`, { session, json })

      const shapes = yield* patch({ default_currency: "R$", currencies: ["BRL", 7] })
      assert.strictEqual(shapes.status, 422)
      assert.deepStrictEqual(shapes.body.errors, {
        default_currency: [
          "The default currency field must hold currency codes such as BRL, EUR or mBTC (a letter, then 1 to 9 " +
          "letters or digits)."
        ],
        currencies: [
          "The currencies field must hold currency codes such as BRL, EUR or mBTC (a letter, then 1 to 9 letters or " +
          "digits)."
        ]
      })
      const tooMany = yield* patch({ currencies: Array.from({ length: 65 }, (_, i) => `C${i}X`) })
      assert.strictEqual(tooMany.status, 422)
      const unknown = yield* patch({ currencies: ["BRL", "ZZZ"] })
      assert.deepStrictEqual([unknown.status, unknown.body.errors], [422, {
        currencies: [
          "The currencies name \"ZZZ\", which is not a currency this deployment accepts: use an ISO 4217 code such " +
          "as BRL or EUR, or a crypto code the deployment enables in CRYPTO_CURRENCIES."
        ]
      }])
      const leftOut = yield* patch({ currencies: ["EUR"] })
      assert.strictEqual(leftOut.status, 422)
      assert.match(leftOut.body.message, /^The deployment's default currency BRL \(the partner has none of its own\)/)

      const set = yield* patch({ default_currency: "mBTC", currencies: ["mBTC", "BRL"] })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      assert.deepStrictEqual([set.body.partner.default_currency, set.body.partner.currencies], ["mBTC", [
        "mBTC",
        "BRL"
      ]])
      const cleared = yield* api.partners.update({
        params: { slug: partner.slug },
        payload: { default_currency: null, currencies: null }
      })
      assert.deepStrictEqual([cleared.partner.defaultCurrency, cleared.partner.currencies], [null, null])
    }))

  it.effect(
    "the partner page shows and edits the default currency and the restriction; a refusal is shown",
    () =>
      Effect.scoped(Effect.gen(function*() {
        yield* givenAdmin("currencies@example.com")
        const api = yield* adminClient(yield* loginAs("currencies@example.com"))
        const { partner } = yield* api.partners.create({ payload: { name: "Currency Console Bets" } })
        const page = yield* newPage()
        yield* logIn(page, "/admin", "currencies@example.com")
        yield* step(() => page.getByRole("navigation").getByRole("link", { name: "Partners" }).click())
        yield* ready(page)
        const row = page.locator("tr", { hasText: partner.name })
        assert.strictEqual(
          yield* step(() => row.locator("[data-currencies]").textContent()),
          "deployment default; all currencies"
        )

        yield* step(() => row.getByRole("button", { name: "Edit" }).click())
        const edit = page.locator("form", { has: page.getByRole("heading", { name: `Edit ${partner.name}` }) })
        assert.strictEqual(yield* step(() => edit.getByLabel("Default currency").inputValue()), "")
        yield* step(() => edit.getByLabel("Currencies").fill("EUR"))
        yield* step(() => edit.getByRole("button", { name: "Save" }).click())
        yield* step(() => page.getByText("is not among the partner's currencies (EUR)").waitFor())

        yield* step(() => edit.getByLabel("Default currency").fill("USDT"))
        yield* step(() => edit.getByLabel("Currencies").fill("USDT, EUR"))
        yield* step(() => edit.getByRole("button", { name: "Save" }).click())
        yield* step(() => page.getByText(`${partner.name} was saved.`).waitFor())
        yield* ready(page)
        assert.strictEqual(
          yield* step(() => page.locator("tr", { hasText: partner.name }).locator("[data-currencies]").textContent()),
          "USDT; USDT, EUR"
        )
        const audit = yield* api.system.audit({ query: { target: `partner:${partner.slug}` } })
        assert.deepStrictEqual(
          audit.entries.filter((entry) => entry.action === "partner.set-currencies").map((entry) => entry.after),
          [{ default_currency: "USDT", currencies: ["USDT", "EUR"] }],
          "the refused change recorded nothing"
        )
      })),
    { timeout: 60_000 }
  )
})
