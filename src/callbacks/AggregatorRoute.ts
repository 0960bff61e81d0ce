import { Effect, Result, Schema, SchemaIssue } from "effect"
import { HttpRouter, HttpServerRequest, HttpServerResponse } from "effect/http"
import * as ExactJson from "../domain/ExactJson.ts"
import { recordWalletDecision } from "../platform/Metrics.ts"
import { readBodyText } from "../platform/RequestBody.ts"
import { Wallet } from "./Wallet.ts"
import { WalletCredentials } from "./WalletCredentials.ts"
import { CallEnvelope, readWalletCall } from "./WalletProtocol.ts"

/** Where the aggregator posts its wallet calls (its "operator URL"): outside the partner API, in its protocol. */
export const walletPath = "/aggregator/wallet"

const decodeEnvelope = Schema.decodeUnknownResult(CallEnvelope)
const formatIssue = SchemaIssue.makeFormatterStandardSchemaV1()

const answer = (status: number, body: unknown) => HttpServerResponse.jsonUnsafe(body, { status })

const parse = (text: string): Result.Result<unknown, string> => {
  try {
    return Result.succeed(ExactJson.parse(text))
  } catch {
    return Result.fail("the body is not JSON")
  }
}

/**
 * POST /aggregator/wallet. Only calls carrying the configured agent code
 * and secret get in (compared in constant time); anything else is refused
 * and logged without the secret. Protocol answers are 200 with `msg`;
 * a call that cannot be read is a 400, a stranger a 401.
 */
export const AggregatorRoute = HttpRouter.use(Effect.fnUntraced(function*(router) {
  const wallet = yield* Wallet
  const credentials = yield* WalletCredentials

  const refuse = (status: number, msg: string, reason: string, request: HttpServerRequest.HttpServerRequest) =>
    Effect.as(
      Effect.logWarning("Wallet call refused").pipe(
        Effect.annotateLogs({ reason, status, remote_address: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : null }),
        Effect.andThen(recordWalletDecision("unread", msg))
      ),
      answer(status, { msg, balance: 0 })
    )

  yield* router.add(
    "POST",
    walletPath,
    Effect.gen(function*() {
      const request = yield* HttpServerRequest.HttpServerRequest
      // Read strictly: bytes that are not UTF-8 would otherwise become U+FFFD, merging two ids into one.
      const text = yield* Effect.result(readBodyText(request))
      const body = Result.isSuccess(text) ? parse(text.success) : Result.fail(text.failure.message)
      if (Result.isFailure(body)) return yield* refuse(400, "INVALID_REQUEST", body.failure, request)
      const envelope = decodeEnvelope(body.success)
      if (Result.isFailure(envelope) || body.success === null || typeof body.success !== "object" || Array.isArray(body.success)) {
        return yield* refuse(400, "INVALID_REQUEST", "the body is not a JSON object", request)
      }
      if (!credentials.matches(envelope.success.agent_code, envelope.success.agent_secret)) {
        return yield* refuse(401, "INVALID_AGENT", "unknown agent code or wrong agent secret", request)
      }
      const call = readWalletCall(body.success)
      if (Result.isFailure(call)) {
        const problem = typeof call.failure === "string"
          ? call.failure
          : `not a Balance, WinBet or Refund call (${
            formatIssue(call.failure.issue).issues
              .map(({ message, path }) => `${(path ?? []).join(".") || "body"}: ${message}`)
              .join("; ")
          })`
        return yield* refuse(400, "INVALID_REQUEST", problem, request)
      }
      return answer(200, yield* wallet.handle(call.success))
    })
  )
}))
