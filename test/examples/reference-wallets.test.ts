/**
 * The reference partner wallets partners copy (examples/partner-wallet in Node, examples/partner-wallet-python in
 * Python), each started as a real process on a free port, registered as a partner's test callback URL and certified
 * by a whole run over real HTTP: each passes every case, in BRL (amounts as JSON numbers) and in BTC (decimal
 * strings). As a control, the Node wallet holding another secret than the partner's refuses every callback, and the
 * run fails on its first case, saying so. The runs are of different partners, so they go at once.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { caseKeys } from "../../src/domain/CertificationCaseTexts.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { certify, failedCases, givenCertifiable } from "../support/CertificationWallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { live } from "../support/live.ts"
import { onFreePort, startCommand } from "../support/process.ts"
import { TestApp } from "../support/TestApp.ts"

/** python3 is on the machines tests run on (CI's too); without it the Python wallet's tests are skipped. */
const hasPython = spawnSync("python3", ["--version"]).status === 0

const examples = path.join(import.meta.dirname, "../../examples")
const wallets = {
  node: { command: process.execPath, args: [path.join(examples, "partner-wallet", "wallet.js")] },
  python: { command: "python3", args: [path.join(examples, "partner-wallet-python", "wallet.py")] }
} as const
type Language = keyof typeof wallets

/** Far above any answer of a local wallet, as in certification.test.ts: the runs share two cores with other files. */
const App = TestApp({ callbacks: { timeout: Duration.seconds(10) } })

/**
 * A partner whose test player plays in `currency`, and a reference wallet started for it (the partner's test webhook
 * secret, or `secret` instead; the test player its only known player) and set as its test callback URL.
 */
const givenReferenceWallet = (language: Language, currency: string, secret?: string) =>
  Effect.gen(function*() {
    // The wallet keeps its own books: the fake's are not used.
    const { external, partner, test } = yield* givenCertifiable(new PartnerBooks(), `Reference ${language}`, {
      testCallbackUrl: null
    }, { currency })
    const wallet = yield* onFreePort((port) =>
      startCommand(
        wallets[language].command,
        wallets[language].args,
        {
          PORT: String(port),
          HOST: "127.0.0.1",
          WEBHOOK_SECRET: secret ?? test.webhookSecret,
          PLAYERS: external,
          STARTING_BALANCE: "50"
        },
        /partner wallet listening on/,
        "20 seconds"
      ).pipe(Effect.provide(NodeServices.layer))
    )
    yield* Effect.orDie((yield* Partners).update(partner.slug, {
      testCallbackUrl: `http://127.0.0.1:${wallet.port}/callbacks`
    }))
    return { external, partner, wallet }
  })

/** A whole run against a reference wallet, asserted passed in every case; what the wallet logged on failure. */
const passes = (language: Language, currency: string) =>
  Effect.gen(function*() {
    const { external, partner, wallet } = yield* givenReferenceWallet(language, currency)
    const run = yield* certify(partner.id, external, currency)
    const notPassed = JSON.stringify(run.cases.filter((result) => result.status !== "passed"))
    assert.deepStrictEqual(failedCases(run), [], `${notPassed}\n${wallet.output.join("\n")}`)
    assert.strictEqual(run.status, "passed", run.summary ?? "")
    assert.deepStrictEqual(
      run.cases.map((result) => [result.key, result.status]),
      caseKeys.map((key) => [key, "passed"])
    )
    assert.isTrue(run.partnerWallet)
    assert.strictEqual(run.currency, currency)
    // It starts each new balance at STARTING_BALANCE and ends the run where it started.
    const unit = 10n ** (currency === "BTC" ? 8n : 2n)
    const conservation = run.cases.find((result) => result.key === "conservation")!
    assert.deepStrictEqual([conservation.expectedBalance, conservation.balanceAfter], [50n * unit, 50n * unit])
    // Every balance it answered is a decimal string at its callback's currency's scale (the run's, or the other
    // currency's of that case): never a float.
    const scales: Readonly<Record<string, number>> = { BRL: 2, EUR: 2, BTC: 8 }
    const balances = run.cases.flatMap((result) => result.exchanges).flatMap((exchange) => {
      const scale = scales[JSON.parse(exchange.request.body).currency]
      const stated = [...(exchange.response?.body ?? "").matchAll(/"balance":("?)([^,}"]*)/g)]
      return stated.map(([text, quote, amount]) => ({ text, quote, amount, scale }))
    })
    assert.isAbove(balances.length, 40)
    for (const { amount, quote, scale, text } of balances) {
      assert.strictEqual(quote, "\"", text)
      assert.match(amount!, new RegExp(`^\\d+\\.\\d{${scale}}$`), text)
    }
  })

layer(App, { ...live, concurrent: true })("the reference partner wallets", (it) => {
  it.effect(
    "the Node wallet passes every case of a run in BRL and of one in BTC",
    () => Effect.all([passes("node", "BRL"), passes("node", "BTC")], { concurrency: "unbounded", discard: true }),
    120_000
  )

  it.effect.skipIf(!hasPython)(
    "the Python wallet passes every case of a run in BRL and of one in BTC",
    () => Effect.all([passes("python", "BRL"), passes("python", "BTC")], { concurrency: "unbounded", discard: true }),
    120_000
  )

  it.effect(
    "a wallet holding another secret than the partner's fails the run on its first case, saying why",
    () =>
      Effect.gen(function*() {
        const { external, partner, wallet } = yield* givenReferenceWallet("node", "BRL", "whsec_not_the_partners")
        const run = yield* certify(partner.id, external, "BRL")
        assert.strictEqual(run.status, "failed")
        assert.deepStrictEqual(failedCases(run), ["balance"])
        const balance = run.cases.find((result) => result.key === "balance")!
        assert.include(balance.reason, "HTTP 401")
        assert.include(balance.exchanges[0].response?.body, "invalid_signature")
        // The run stops there: the cases after it are not run (the answer times of its one call are still reported).
        assert.deepStrictEqual(
          run.cases.filter((result) => result.status !== "skipped").map((result) => [result.key, result.status]),
          [["balance", "failed"], ["slowness", "passed"]]
        )
        assert.isTrue(wallet.output.some((line) => line.startsWith("refused: invalid signature")))
      }),
    60_000
  )
})
