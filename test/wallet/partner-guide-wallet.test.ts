/**
 * The partner guide's quickstart wallet (docs/partner-guide/quickstart.md), as a partner copies it: its ```js block
 * that exports `wallet`, run as written against a real certification run. It must pass every case and end where it
 * started, or the guide promises what it cannot keep.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { tmpdir } from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { certify, failedCases, givenCertifiable } from "../support/CertificationWallet.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { live } from "../support/live.ts"
import { TestApp } from "../support/TestApp.ts"

const books = new PartnerBooks()
const App = TestApp({ callbacks: { timeout: Duration.seconds(10) } }).pipe(
  Layer.provideMerge(FakeUpstream.layer(books.script))
)

type GuideWallet = (secret: string, balances: Map<string, bigint>) => Server

/** The quickstart's wallet module, imported from a file of its own as `node wallet.mjs` would load it. */
const guideWallet = Effect.promise(async () => {
  const page = readFileSync(new URL("../../docs/partner-guide/quickstart.md", import.meta.url), "utf8")
  const code = [...page.matchAll(/```js\n([\s\S]*?)\n```/g)].map((match) => match[1]).find((block) =>
    block.includes("export const wallet")
  )
  assert.isDefined(code, "the quickstart shows a wallet")
  const file = path.join(tmpdir(), `guide-wallet-${process.pid}-${Date.now()}.mjs`)
  writeFileSync(file, code!)
  try {
    return (await import(pathToFileURL(file).href) as { wallet: GuideWallet }).wallet
  } finally {
    rmSync(file, { force: true })
  }
})

layer(App, live)("the partner guide's quickstart wallet", (it) => {
  it.effect("passes every case of a certification run, and ends where it started", () =>
    Effect.gen(function*() {
      const wallet = yield* guideWallet
      // The wallet's address is the partner's test callback URL, and the partner's secret the wallet's: a port first.
      const probe = createServer()
      yield* Effect.promise(() => new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve)))
      const port = (probe.address() as { readonly port: number }).port
      yield* Effect.promise(() => new Promise<void>((resolve) => probe.close(() => resolve())))
      const { external, partner, test } = yield* givenCertifiable(books, "Guide wallet", {
        testCallbackUrl: `http://127.0.0.1:${port}/`
      })
      // The wallet as the quickstart runs it: the test player's balance (50.00 BRL) and the partner's test secret.
      const balances = new Map([[`${external}:BRL`, 5_000n]])
      const server = wallet(test.webhookSecret, balances)
      yield* Effect.promise(() => new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve)))
      yield* Effect.addFinalizer(() =>
        Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
      )
      const run = yield* certify(partner.id, external)
      assert.deepStrictEqual(failedCases(run), [], run.summary ?? "")
      assert.strictEqual(run.status, "passed", run.summary ?? "")
      assert.strictEqual(balances.get(`${external}:BRL`), 5_000n)
    }).pipe(Effect.scoped))
})
