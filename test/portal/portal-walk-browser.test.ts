/**
 * The portal walked as a partner walks it (issue 37, part 7), in a real headless Chromium at a laptop's 1280 px: an
 * invitation link cut at its `#` is refused in words; the only owner's row offers no role change or removal, and says
 * why; the delivery log fits its card with Redeliver in view whatever the ids' length; and every page writes a moment
 * one way (`2026-11-28 21:05:09 UTC`); and the Statements page beside Wallet lists the days, opens one and downloads
 * its signed file.
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { TestClock } from "effect/testing"
import { createHash } from "node:crypto"
import { readFileSync } from "node:fs"
import type { Page } from "playwright-core"
import { dayOf, dayStart, nextDay } from "../../src/domain/Statements.ts"
import { Statements } from "../../src/wallet/statements/Statements.ts"
import { Browser, newPage, serverUrl, step } from "../support/Browser.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { logIn, openSection as open, ready } from "../support/PanelSteps.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { givenPartner } from "../support/TestApp.ts"
import { givenPlayer, givenWalletPartner, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

/** Accepts the next confirmation the page asks. */
const confirming = (page: Page, action: () => Promise<unknown>) =>
  step(async () => {
    page.once("dialog", (dialog) => void dialog.accept())
    await action()
  })

/** A moment as every portal page writes it. */
const oneFormat = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/

layer(Layer.merge(WalletApp(books), Browser.layer), live)("the portal walked as a partner", (it) => {
  it.effect(
    "an invitation link without its secret is refused in words, as a wrong secret is",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const base = yield* serverUrl
        const page = yield* newPage()
        const alert = page.getByRole("alert")
        for (const cut of ["/portal/invitation", "/portal/invitation#"]) {
          yield* step(() => page.goto(`${base}${cut}`))
          yield* ready(page)
          assert.strictEqual(
            yield* step(() => alert.textContent()),
            "This invitation link cannot be used: it lacks its secret, the part after #. Open the whole link exactly " +
              "as you were sent it; if it was cut or is lost, ask your partner's owner or the operator for a new one.",
            cut
          )
          assert.strictEqual(yield* step(() => page.getByLabel("Password").count()), 0, "nothing to fill in")
        }
        yield* step(() => page.goto(`${base}/portal/invitation#not-a-secret-anyone-was-sent`))
        yield* ready(page)
        assert.match((yield* step(() => alert.textContent()))!, /^This invitation link cannot be used: it was used/)
      })),
    { timeout: 60_000 }
  )

  it.effect(
    "the only owner's row offers no role change or removal; the delivery log keeps Redeliver in its card at 1280 px; one date format",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const mine = yield* givenPartner({
          name: "Walked Bets",
          slug: "walked-bets",
          testCallbackUrl: `${fake.url}/wallet`
        })
        books.secrets.add(mine.test.webhookSecret)
        yield* givenPortalUser(mine.partner, "owner@walked.example")
        yield* givenPortalUser(mine.partner, "dev@walked.example", "developer")
        const owner = yield* newPage({ width: 1280 })
        yield* logIn(owner, "/portal", "owner@walked.example")

        // The only owner: no role form, no Remove, and why; the developer's row has both.
        yield* open(owner, "Users")
        const row = (email: string) => owner.locator("tbody tr", { hasText: email })
        const ownerRow = row("owner@walked.example")
        assert.strictEqual(yield* step(() => ownerRow.getByRole("button").count()), 0)
        assert.strictEqual(yield* step(() => ownerRow.getByRole("combobox").count()), 0)
        assert.strictEqual(
          yield* step(() => ownerRow.locator("[data-only-owner]").textContent()),
          "The only owner: make another user owner before changing this role or removing them."
        )
        const devRow = row("dev@walked.example")
        assert.strictEqual(yield* step(() => devRow.getByRole("button", { name: /^(Save role|Remove)$/ }).count()), 2)
        // Once the developer is an owner too, either may be changed or removed.
        yield* step(() => devRow.getByRole("combobox", { name: "Role of dev@walked.example" }).selectOption("owner"))
        yield* step(() => devRow.getByRole("button", { name: "Save role" }).click())
        yield* step(() => owner.getByText("dev@walked.example is now owner.").waitFor())
        assert.strictEqual(yield* step(() => owner.locator("[data-only-owner]").count()), 0)
        assert.strictEqual(yield* step(() => ownerRow.getByRole("button", { name: "Remove" }).count()), 1)
        // An invitation's link is valid until a moment written as every page writes one.
        yield* step(() => owner.getByLabel("E-mail").fill("viewer@walked.example"))
        yield* step(() => owner.getByRole("button", { name: "Invite" }).click())
        const advice = (yield* step(() =>
          owner.locator(".secret", { hasText: "Invitation for viewer@walked.example" }).locator("p").first()
            .textContent()
        ))!
        assert.match(advice, /It works once, until \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/)

        // A test player and a transaction with long ids, as a sandbox makes them: Redeliver stays in the card.
        const longPlayer = `sandbox-player-${"7f3a9c2e".repeat(8)}`
        const longTxn = `sandbox-txn-${"0123456789abcdef".repeat(5)}`
        const player = yield* givenPlayer(books, mine.partner.id, longPlayer, 100, "test")
        yield* winBet(player.internalUserId, longTxn, { bet: 1, win: 5 }, longTxn, "test")
        const card = owner.locator("section.card[data-environment=test]")
        const redeliver = card.locator("tbody tr", { hasText: "win" }).getByRole("button", { name: "Redeliver" })
        yield* eventually(
          Effect.andThen(
            open(owner, "Webhooks"),
            step(() => redeliver.count())
          ),
          (n) =>
            n === 1,
          "the win in the test log"
        )
        const [cardBox, buttonBox, pageWidth] = yield* step(() =>
          Promise.all([
            card.boundingBox(),
            redeliver.boundingBox(),
            owner.evaluate("document.documentElement.scrollWidth") as Promise<number>
          ])
        )
        assert.isTrue(
          buttonBox!.x >= cardBox!.x && buttonBox!.x + buttonBox!.width <= cardBox!.x + cardBox!.width,
          `Redeliver (${JSON.stringify(buttonBox)}) inside its card (${JSON.stringify(cardBox)})`
        )
        assert.isAtMost(pageWidth, 1280, "no sideways scroll of the page")
        const scrolls = yield* step(() =>
          card.locator(".table-wrap").evaluate((wrap) => wrap.scrollWidth > wrap.clientWidth)
        )
        assert.isFalse(scrolls, "the table fits its card without scrolling")
        assert.include(
          (yield* step(() => card.locator("tbody tr", { hasText: "win" }).textContent()))!,
          longTxn,
          "the id shown whole"
        )
        yield* confirming(owner, () => redeliver.click())

        // Every page writes its moments one way: no ISO date outside the wire's bodies.
        for (
          const section of ["Tokens", "Webhooks", "Wallet", "Statements", "Usage", "Certification", "Users", "Account"]
        ) {
          yield* open(owner, section)
          if (section === "Wallet") {
            yield* step(() => owner.getByLabel("Environment").selectOption("test"))
            yield* step(() => owner.getByRole("button", { name: "Search" }).click())
            yield* step(() => owner.getByRole("heading", { name: /test transaction/ }).waitFor())
          }
          const times = yield* step(() => owner.locator("main time").allTextContents())
          for (const time of times) assert.match(time, oneFormat, section)
          const text = yield* step(() =>
            // The page's text but the bodies of callbacks and transactions (the wire's ISO dates, byte for byte).
            owner.evaluate(`(() => {
              const copy = document.querySelector("main").cloneNode(true)
              for (const body of copy.querySelectorAll("pre, details")) body.remove()
              return copy.textContent
            })()`) as Promise<string>
          )
          assert.notMatch(text, /\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/, section)
        }
      })),
    { timeout: 120_000 }
  )

  it.effect(
    "the Statements page lists a closed day with its totals, opens it and downloads its signed file",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const acme = yield* givenWalletPartner(books)
        yield* givenPortalUser(acme.partner, `viewer-${acme.partner.slug}@walked.example`, "viewer")
        const bo = yield* givenPlayer(books, acme.partner.id, "portal-statement-bo", 100)
        assert.strictEqual(walletAnswer(yield* winBet(bo.internalUserId, "portal-st-1", { bet: 10, win: 4.5 })).msg, "")
        assert.strictEqual(walletAnswer(yield* winBet(bo.internalUserId, "portal-st-2", { bet: 2, win: 0 })).msg, "")
        const day = dayOf(Date.now())
        const statements = yield* Statements
        yield* Effect.andThen(TestClock.setTime(dayStart(nextDay(day)).getTime() + 5 * 60_000), statements.closeDays)
          .pipe(Effect.provide(TestClock.layer()))

        // A viewer reads them: statements change nothing.
        const page = yield* newPage()
        yield* logIn(page, "/portal", `viewer-${acme.partner.slug}@walked.example`)
        const nav = yield* step(() => page.getByRole("navigation").getByRole("link").allTextContents())
        assert.strictEqual(nav[nav.indexOf("Wallet") + 1], "Statements", "beside Wallet")
        yield* open(page, "Statements")
        const row = page.locator("tbody tr", { hasText: day })
        assert.strictEqual(
          yield* step(() => row.locator("li[data-currency=BRL]").textContent()),
          "Bets 12 BRL · wins 4.5 BRL · refunds 0 BRL · rollbacks 0 BRL · net -7.5 BRL"
        )
        assert.strictEqual(yield* step(() => row.locator("td[data-label=Transactions]").textContent()), "2")

        yield* step(() => row.getByRole("link", { name: "Open" }).click())
        yield* ready(page)
        const shown = page.locator(`[data-statement='${day}']`)
        assert.deepStrictEqual(
          yield* step(() => shown.locator("tbody tr td:first-child").allTextContents()),
          ["portal-st-1", "portal-st-2"]
        )
        const facts = (yield* step(() => shown.locator("dl").textContent()))!
        assert.match(facts, /Signaturev1=[0-9a-f]{64}/)
        const digest = /SHA-256 ([0-9a-f]{64})/.exec(facts)![1]

        // The file is the signed document, byte for byte: its digest is the one shown.
        const [saved] = yield* step(() =>
          Promise.all([page.waitForEvent("download"), shown.getByRole("button", { name: "Download" }).click()])
        )
        assert.strictEqual(saved.suggestedFilename(), `statement-${acme.partner.slug}-live-${day}.jsonl`)
        const file = readFileSync((yield* step(() => saved.path()))!)
        assert.strictEqual(createHash("sha256").update(file).digest("hex"), digest)
        const [summary] = file.toString("utf8").trim().split("\n").map((line) => JSON.parse(line))
        assert.deepStrictEqual([summary.record, summary.partner, summary.date], ["statement", acme.partner.slug, day])
        yield* step(() => page.getByText(`The statement of ${day} (live) was downloaded.`).waitFor())

        // Another day has none: said in words.
        yield* step(() => page.goto(`${new URL(page.url()).origin}/portal/statements?environment=live&date=2001-01-01`))
        yield* ready(page)
        assert.include((yield* step(() => page.getByRole("alert").textContent()))!, "2001-01-01")
      })),
    { timeout: 90_000 }
  )
})
