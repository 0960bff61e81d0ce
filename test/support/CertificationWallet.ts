import { Effect } from "effect"
import { HttpServer } from "effect/http"
import { SqlClient } from "effect/sql"
import type { Certification } from "../../src/domain/Certification.ts"
import { storedCurrency } from "../../src/domain/Currency.ts"
import { sandboxPartnerWalletPath } from "../../src/integrations/sandbox/SandboxConfig.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { FakeUpstream } from "./FakeUpstream.ts"
import { givenPartner } from "./TestApp.ts"

let partners = 0

/**
 * A partner to certify, named after `partner`, with a test player of `balance` minor units of `currency` (50.00 BRL unless
 * said) on both sides, the service's and the fake wallet's `books`, and its test callbacks going where
 * `urls.testCallbackUrl` says.
 */
export const givenCertifiable = (
  books: PartnerBooks,
  /** A name, numbered here to be the partner's own; or the partner's exact name and slug. */
  partner: string | { readonly name: string; readonly slug: string },
  urls: { readonly testCallbackUrl: string | null; readonly callbackUrl?: string | null },
  player: { readonly currency?: string; readonly balance?: bigint } = {}
) =>
  Effect.gen(function*() {
    const { balance = 5_000n, currency = "BRL" } = player
    const named = typeof partner === "string" ? { name: `${partner} ${++partners}` } : partner
    const created = yield* givenPartner({ ...named, ...urls })
    books.secrets.add(created.test.webhookSecret)
    const external = `tester-${created.partner.id}`
    yield* (yield* PartnerPlayers).arrive({
      partnerId: created.partner.id,
      environment: "test",
      externalPlayerId: external,
      currency,
      name: null,
      email: null,
      balance
    })
    books.balances.set(books.walletOf(external, currency), balance)
    return { ...created, external }
  })

/** The same, its test callbacks going to `wallet`: the fake, or this service's sandbox partner wallet. */
export const givenTestWallet = (books: PartnerBooks, wallet: "fake" | "sandbox", currency = "BRL", balance = 5_000n) =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    const server = yield* HttpServer.HttpServer
    const origin = `http://127.0.0.1:${(server.address as { readonly port: number }).port}`
    return yield* givenCertifiable(books, "Certified", {
      testCallbackUrl: wallet === "fake"
        ? `${fake.url}/wallet`
        : `${origin}${sandboxPartnerWalletPath}?environment=test`
    }, { currency, balance })
  })

/** The keys of a run's failed cases, in the run's order. */
export const failedCases = (run: Certification) =>
  run.cases.filter((result) => result.status === "failed").map((result) => result.key)

/** A run's failed cases with their reasons, for a failure's message: what the run saw, not only that it failed. */
export const failedReasons = (run: Certification) =>
  run.cases.filter((result) => result.status === "failed").map((result) => `${result.key}: ${result.reason}`)

/** Rows the ledger and the outbox hold for a partner: a run must write none. */
export const ledgerRows = (partnerId: number) =>
  Effect.flatMap(Effect.service(SqlClient.SqlClient), (sql) =>
    sql<{ n: number }>`
      SELECT (SELECT count(*) FROM wallet_transactions WHERE partner_id = ${partnerId})::int +
             (SELECT count(*) FROM partner_callbacks WHERE partner_id = ${partnerId})::int +
             (SELECT count(*) FROM wallet_rounds WHERE partner_id = ${partnerId})::int AS n
    `).pipe(Effect.map((rows) => rows[0].n), Effect.orDie)

/** A run to its end, in the partner's default currency or the one named. */
export const certify = (partnerId: number, external: string, currency?: string) =>
  Effect.flatMap(
    Effect.service(Certifications),
    (service) =>
      service.run(
        partnerId,
        external,
        { name: "test", via: "cli" },
        undefined,
        currency === undefined ? undefined : storedCurrency(currency)
      )
  ).pipe(Effect.orDie)
