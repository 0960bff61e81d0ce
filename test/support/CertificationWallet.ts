import { Effect } from "effect"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import type { PartnerBooks } from "./FakePartner.ts"
import { givenPartner } from "./TestApp.ts"

let partners = 0

/**
 * A partner to certify, named after `name`, with a test player of 50.00 BRL on both sides (the service's and the fake
 * wallet's `books`, which then knows only the players it was told of: an unknown one is `unknown_player`, as a wallet
 * must say), and its test callbacks going where `urls.testCallbackUrl` says.
 */
export const givenCertifiable = (
  books: PartnerBooks,
  name: string,
  urls: { readonly testCallbackUrl: string | null; readonly callbackUrl?: string | null }
) =>
  Effect.gen(function*() {
    const created = yield* givenPartner({ name: `${name} ${++partners}`, ...urls })
    books.secrets.add(created.test.webhookSecret)
    const external = `tester-${created.partner.id}`
    yield* (yield* PartnerPlayers).arrive({
      partnerId: created.partner.id,
      environment: "test",
      externalPlayerId: external,
      currency: "BRL",
      name: null,
      email: null,
      balance: 5_000n
    })
    books.balances.set(external, 5_000n)
    books.knownPlayersOnly = true
    return { ...created, external }
  })
