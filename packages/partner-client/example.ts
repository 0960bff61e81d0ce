/**
 * The typed client as a partner uses it, installed as a package (`npm install ./partner-api-client-<version>.tgz
 * effect@<its peer version>`; this file is in the package, copy it beside your package.json, with `"type": "module"`).
 * It checks the token, asks which casino providers the token's environment has (a test token's are the sandbox's),
 * lists the first one's games, and says which sports provider answers and what it can do. Run it with Node 22.18 or
 * later (which runs TypeScript as it is), against the service and with a token from the environment:
 *
 *   PARTNER_API_URL=https://partners.example.com PARTNER_API_TOKEN=pak_test_… node example.ts
 */
import { Effect } from "effect"
import { FetchHttpClient } from "effect/http"
import { makePartnerClient, ValidationFailed } from "@partner-api/client"

const baseUrl = process.env.PARTNER_API_URL
const token = process.env.PARTNER_API_TOKEN
if (!baseUrl || !token) {
  console.error(
    "Set PARTNER_API_URL (the service's address) and PARTNER_API_TOKEN (your pak_test_… or pak_live_… token)."
  )
  process.exit(2)
}

const program = Effect.gen(function*() {
  const client = yield* makePartnerClient({ baseUrl, token }) // scheme: "partnerKey" sends X-Partner-Key instead
  const status = yield* client.account.status()
  console.log(`partner: ${status.partner.name} (${status.partner.environment})`)

  // The providers are the catalog's of the token's environment: ask, rather than writing a slug in.
  const { data: providers } = yield* client.casino.providers()
  const provider = providers.list[0]
  if (provider === undefined) return console.log("providers: none")
  console.log(`providers: ${providers.list.length}, the first: ${provider.provider}`)
  const { data } = yield* client.casino.games({ query: { provider: provider.provider, per_page: 5 } })
  console.log(`games of ${provider.provider}: ${data.meta.total}; ${data.games.map((game) => game.name).join(", ")}`)

  const sports = yield* client.sports.status()
  console.log(`sports provider: ${sports.data.provider} (${sports.data.capabilities.join(", ")})`)
}).pipe(
  // A 422 names each failing field; every other error of the contract is a typed failure too (Unauthorized, ...).
  Effect.catchIf((error) => error instanceof ValidationFailed, (error) => Effect.logWarning(error.errors)),
  Effect.provide(FetchHttpClient.layer)
)

Effect.runPromise(program).catch((error: unknown) => {
  console.error(String(error))
  process.exitCode = 1
})
