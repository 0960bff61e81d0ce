/**
 * A fake PlayFiver-style aggregator on a real port, for the adapter's tests.
 * Each route answers as the current script says: JSON variants from the
 * protocol notes, an error answer, garbage, or a hang.
 */
import { Context, Effect, Layer } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"

export interface RecordedCall {
  readonly method: string
  readonly path: string
  readonly query: Record<string, string>
  readonly headers: IncomingMessage["headers"]
  readonly body: any
}

export type Answer =
  | { readonly kind: "json"; readonly status?: number; readonly body: unknown }
  | { readonly kind: "text"; readonly status?: number; readonly body: string }
  | { readonly kind: "hang" }
  | { readonly kind: "delay"; readonly millis: number; readonly then: Answer }
  | { readonly kind: "close" }

export type Script = (call: RecordedCall) => Answer

export class FakePlayFiver extends Context.Service<FakePlayFiver, {
  readonly url: string
  readonly calls: Array<RecordedCall>
  /** Replaces how the fake answers from now on. */
  script(script: Script): void
  reset(): void
}>()("test/FakePlayFiver") {
  static readonly layer = (initial: Script) =>
    Layer.effect(
      FakePlayFiver,
      Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<{ service: FakePlayFiver["Service"]; close: () => Promise<void> }>((resolve) => {
            const calls: Array<RecordedCall> = []
            let current = initial
            const hanging = new Set<ServerResponse>()
            const server = createServer((request, response) => {
              let raw = ""
              request.on("data", (chunk) => (raw += chunk))
              request.on("end", () => {
                const url = new URL(request.url ?? "/", "http://fake")
                let body: unknown = undefined
                try {
                  body = raw === "" ? undefined : JSON.parse(raw)
                } catch {
                  body = raw
                }
                const call: RecordedCall = {
                  method: request.method ?? "GET",
                  path: url.pathname,
                  query: Object.fromEntries(url.searchParams),
                  headers: request.headers,
                  body
                }
                calls.push(call)
                const respond = (answer: Answer): void => {
                switch (answer.kind) {
                  case "json":
                    response.writeHead(answer.status ?? 200, { "content-type": "application/json" })
                    response.end(JSON.stringify(answer.body))
                    return
                  case "text":
                    response.writeHead(answer.status ?? 200, { "content-type": "text/html" })
                    response.end(answer.body)
                    return
                  case "hang":
                    hanging.add(response)
                    return
                  case "close":
                    request.socket.destroy()
                    return
                  case "delay":
                    setTimeout(() => respond(answer.then), answer.millis)
                    return
                }
                }
                respond(current(call))
              })
            })
            server.listen(0, "127.0.0.1", () => {
              const { port } = server.address() as AddressInfo
              resolve({
                service: {
                  url: `http://127.0.0.1:${port}`,
                  calls,
                  script: (script) => {
                    current = script
                  },
                  reset: () => {
                    calls.length = 0
                    current = initial
                  }
                },
                close: () =>
                  new Promise<void>((done) => {
                    for (const response of hanging) response.destroy()
                    server.closeAllConnections()
                    server.close(() => done())
                  })
              })
            })
          })
        ),
        ({ close }) => Effect.promise(close)
      ).pipe(Effect.map(({ service }) => FakePlayFiver.of(service)))
    )
}

/** What a healthy aggregator answers, in the protocol notes' shapes and with their type variants. */
export const healthyAggregator: Script = (call) => {
  switch (call.path) {
    case "/api/v2/providers":
      return {
        kind: "json",
        body: {
          data: [
            { name: "PG Soft", image_url: "https://img.example/pg.png", status: 1, wallet: { name: "main" } },
            { name: "Pragmatic Play", image_url: null, status: "1", wallet: { name: "main" } },
            { name: "Old Studio", status: false }
          ]
        }
      }
    case "/api/v2/games": {
      const byProvider: Record<string, Array<unknown>> = {
        "PG Soft": [
          { game_code: 126, name: "Fortune Tiger", image_url: "https://img.example/tiger.png", status: 1, original: 1, rounds_free: 0, provider: { name: "PG Soft" } },
          { game_code: "98", name: "Fortune Ox", status: true, original: true, provider: { name: "PG Soft" } },
          { game_code: "1543462", name: "Fortune Rabbit", status: 0, original: "0", provider: { name: "PG Soft" } }
        ],
        "Pragmatic Play": [
          { game_code: "vs20olympgate", name: "Gates of Olympus", status: "1", original: true, provider: { name: "Pragmatic Play" } }
        ],
        "Old Studio": []
      }
      return { kind: "json", body: { status: 1, msg: "SUCCESS", data: byProvider[call.query.provider] ?? [] } }
    }
    case "/api/v2/game_launch":
      return {
        kind: "json",
        body: {
          status: 1,
          msg: "SUCCESS",
          launch_url: `https://games.example/launch?user=${call.body?.user_code}&game=${call.body?.game_code}`,
          user_balance: call.body?.user_balance,
          user_created: true,
          name: "player"
        }
      }
    default:
      return { kind: "json", status: 404, body: { status: false, msg: "NOT_FOUND" } }
  }
}
