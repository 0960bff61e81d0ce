import { Effect, Schema, SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import { Wallet } from "./Wallet.ts"
import { WalletCredentials } from "./WalletCredentials.ts"
import { CallEnvelope, WalletCall } from "./WalletProtocol.ts"

/** Where the aggregator posts its wallet calls (its "operator URL"): outside the partner API, in its protocol. */
export const walletPath = "/aggregator/wallet"

const decodeEnvelope = Schema.decodeUnknownResult(CallEnvelope)
const decodeCall = Schema.decodeUnknownResult(WalletCall, { errors: "all" })
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const answer = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status })

/**
 * POST /aggregator/wallet. Only calls carrying the configured agent code
 * and secret get in (compared in constant time); anything else is refused
 * and logged without the secret. Protocol answers are 200 with `msg`;
 * a call that cannot be read is a 400, a stranger a 401.
 */
export const WalletRoutes = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const wallet = yield* Wallet
  const credentials = yield* WalletCredentials

  const refuse = (status: number, msg: string, reason: string, request: HttpServerRequest.HttpServerRequest) =>
    Effect.as(
      Effect.logWarning("Wallet call refused").pipe(
        Effect.annotateLogs({ reason, status, remote_address: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : null })
      ),
      answer(status, { msg, balance: 0 })
    )

  yield* router.add(
    "POST",
    walletPath,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      const json = yield* Effect.result(request.json)
      if (json._tag === "Failure") return yield* refuse(400, "INVALID_REQUEST", "the body is not JSON", request)
      const envelope = decodeEnvelope(json.success)
      if (envelope._tag === "Failure" || json.success === null || typeof json.success !== "object") {
        return yield* refuse(400, "INVALID_REQUEST", "the body is not a JSON object", request)
      }
      if (!credentials.matches(envelope.success.agent_code, envelope.success.agent_secret)) {
        return yield* refuse(401, "INVALID_AGENT", "unknown agent code or wrong agent secret", request)
      }
      const call = decodeCall(json.success)
      if (call._tag === "Failure") {
        const problems = formatIssue(call.failure.issue).issues
          .map(({ message, path }) => `${(path ?? []).join(".") || "body"}: ${message}`)
        return yield* refuse(400, "INVALID_REQUEST", `not a Balance, WinBet or Refund call (${problems.join("; ")})`, request)
      }
      return yield* wallet.handle(call.success).pipe(
        Effect.map((result) => answer(200, result)),
        Effect.catchTag("InvalidWalletCall", (error) => refuse(400, "INVALID_REQUEST", error.message, request))
      )
    })
  )
}))
