import { ByteSize, Data, Effect, Layer } from "effect"
import { HttpIncomingMessage, type HttpServerRequest } from "effect/http"
import { decodeUtf8, nestsDeeperThan } from "../domain/Text.ts"

/**
 * Every body this service takes is small: a launch, a refresh, a wallet
 * call, a callback. Bodies above this are refused (413), by their
 * Content-Length before a byte is read, or as soon as reading passes it.
 */
export const maxBodyBytes = 64 * 1024

/** Arrays and objects nested deeper than this are refused before they are parsed; real bodies nest 3 levels. */
export const maxJsonDepth = 32

/** Bodies above maxBodyBytes are refused before they are buffered. */
export const MaxBodySizeLive = Layer.succeed(HttpIncomingMessage.MaxBodySize, ByteSize.bytes(maxBodyBytes))

export class UnreadableBody extends Data.TaggedError("UnreadableBody")<{
  readonly reason: "TooLarge" | "NotUtf8" | "TooDeep" | "Unreadable"
  readonly message: string
}> {}

const tooLarge = new UnreadableBody({
  reason: "TooLarge",
  message: `The request body is larger than ${maxBodyBytes / 1024} KiB.`
})

/**
 * The body as text, read strictly: over maxBodyBytes, not UTF-8 (never
 * repaired into U+FFFD) or nested deeper than maxJsonDepth, it is refused
 * with the reason. The bytes stay cached on the request, so a later
 * `request.json` reads the same body.
 */
export const readBodyText = Effect.fn("RequestBody.readBodyText")(
  function*(request: HttpServerRequest.HttpServerRequest) {
    const declared = Number(request.headers["content-length"] ?? 0)
    if (declared > maxBodyBytes) return yield* tooLarge
    const bytes = yield* Effect.mapError(
      request.arrayBuffer,
      (error) =>
        error.reason._tag === "RequestParseError" && error.reason.reason === "BodyTooLarge"
          ? tooLarge
          : new UnreadableBody({ reason: "Unreadable", message: "The request body could not be read." })
    )
    if (bytes.byteLength > maxBodyBytes) {
      return yield* tooLarge
    }
    const text = decodeUtf8(bytes)
    if (text === undefined) {
      return yield* new UnreadableBody({ reason: "NotUtf8", message: "The request body must be UTF-8 text." })
    }
    if (nestsDeeperThan(text, maxJsonDepth)) {
      return yield* new UnreadableBody({
        reason: "TooDeep",
        message: `The request body nests arrays or objects deeper than ${maxJsonDepth} levels.`
      })
    }
    return text
  }
)
