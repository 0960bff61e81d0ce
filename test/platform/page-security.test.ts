/**
 * The pages that share the console's origin (/docs, the sandbox's game pages) carry a
 * Content-Security-Policy that runs only their own scripts, and still work under it in Chromium: a
 * script injected into one of them could otherwise call the console's API with an admin's cookie.
 */
import { knownCurrency } from "../../src/domain/Currency.ts"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import type { Page } from "playwright-core"
import { CasinoGateway } from "../../src/casino/CasinoGateway.ts"
import { sandboxCasinoCatalog } from "../../src/integrations/sandbox/SandboxCasinoCatalog.ts"
import { Browser, newPage, serverUrl, step } from "../support/Browser.ts"
import { live } from "../support/live.ts"
import { request, TestApp } from "../support/TestApp.ts"

/** Every Content-Security-Policy violation the page reports, from its first script on. */
const watchViolations = (page: Page) =>
  step(() =>
    page.addInitScript({
      content: `window.cspViolations = [];
        document.addEventListener("securitypolicyviolation", (event) =>
          window.cspViolations.push(event.violatedDirective + " " + event.blockedURI))`
    })
  )
const violations = (page: Page) => step(() => page.evaluate("window.cspViolations") as Promise<Array<string>>)

/** The policy's directives by name. */
const policyOf = (headers: Readonly<Record<string, string>>) =>
  Object.fromEntries(
    (headers["content-security-policy"] ?? "").split(";").filter((part) => part.trim() !== "").map((part) => {
      const [name, ...values] = part.trim().split(/\s+/)
      return [name, values.join(" ")]
    })
  )

layer(Layer.merge(TestApp(), Browser.layer), live)("pages on the console's origin", (it) => {
  it.effect(
    "/docs runs only its own scripts (by hash), and Scalar renders and sends \"Try it\" requests under it",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const policy = policyOf((yield* request("GET", "/docs")).headers)
        assert.strictEqual(policy["default-src"], "'none'")
        assert.match(
          policy["script-src"],
          /^'sha256-[A-Za-z0-9+/=]+'( 'sha256-[A-Za-z0-9+/=]+')*$/,
          "no 'unsafe-inline', no other origin"
        )
        assert.strictEqual(policy["connect-src"], "'self'")
        assert.strictEqual(policy["frame-ancestors"], "'none'")

        const base = yield* serverUrl
        const page = yield* newPage()
        yield* watchViolations(page)
        yield* step(() => page.goto(`${base}/docs`))
        yield* step(() => page.getByRole("heading", { name: "Partner Aggregator API" }).waitFor())
        yield* step(() => page.getByRole("button", { name: /Test Request/ }).first().click())
        const tried = yield* step(() =>
          Promise.all([
            page.waitForResponse((response) => response.url().includes("/api/partner/v1/")),
            page.getByRole("button", { name: /Send/ }).first().click()
          ]).then(([response]) => response.status())
        )
        assert.strictEqual(tried, 401, "the request went out (without a token)")
        // zod, in Scalar's bundle, probes `new Function("")` to choose whether to compile its validators;
        // refused, it validates without. Nothing else was refused.
        assert.deepStrictEqual((yield* violations(page)).filter((violation) => violation !== "script-src eval"), [])
      })),
    { timeout: 90_000 }
  )

  it.effect(
    "a sandbox game page runs only its own script and style (a nonce of its own), and spins under them",
    () =>
      Effect.scoped(Effect.gen(function*() {
        const game = sandboxCasinoCatalog().games.find((g) => g.enabled)!
        const session = yield* (yield* CasinoGateway).launch({
          userCode: 424242,
          gameCode: game.code,
          providerCode: game.providerCode,
          balance: 5000n,
          currency: knownCurrency("BRL")!,
          original: true,
          lang: "en",
          rtp: undefined,
          playerName: "Policy Tester",
          platform: "desktop",
          country: undefined
        })
        const path = new URL(session.url).pathname
        const first = policyOf((yield* request("GET", path)).headers)
        const second = policyOf((yield* request("GET", path)).headers)
        assert.match(first["script-src"], /^'nonce-[A-Za-z0-9+/=]{24}'$/)
        assert.strictEqual(first["style-src"], first["script-src"])
        assert.notStrictEqual(first["script-src"], second["script-src"], "a fresh nonce each time")
        assert.strictEqual(first["default-src"], "'none'")
        assert.strictEqual(first["connect-src"], "'self'")
        assert.strictEqual(
          policyOf((yield* request("GET", "/sandbox/casino/play/no-such-session")).headers)["default-src"],
          "'none'"
        )

        const base = yield* serverUrl
        const page = yield* newPage()
        yield* watchViolations(page)
        yield* step(() => page.goto(`${base}${path}`))
        const before = yield* step(() => page.locator("#result").textContent())
        yield* step(() => page.getByRole("button", { name: "Spin" }).click())
        // The page's script ran the spin and wrote its outcome (this player has no partner wallet: a refusal).
        yield* step(() => page.locator("#result").filter({ hasNotText: before ?? "" }).waitFor())
        const reelColour = yield* step(() =>
          page.locator(".reel span").first().evaluate("(span) => getComputedStyle(span).color")
        )
        assert.notStrictEqual(reelColour, "rgb(34, 34, 34)", "the symbols keep their colours (from classes)")
        assert.deepStrictEqual(yield* violations(page), [])
      })),
    { timeout: 90_000 }
  )
})
