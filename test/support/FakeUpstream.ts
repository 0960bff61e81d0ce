/**
 * A fake upstream (aggregator, sports provider) on a real port, for the
 * adapters' tests. Each request is recorded and answered as the current
 * script says: JSON variants from the protocol notes, an error answer,
 * garbage, a delay, a hang, or a dropped connection.
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
  /** The body as it arrived, byte for byte (signatures are over it). */
  readonly raw: string
}

export type Answer =
  | { readonly kind: "json"; readonly status?: number; readonly body: unknown }
  | { readonly kind: "text"; readonly status?: number; readonly body: string }
  | { readonly kind: "hang" }
  | { readonly kind: "delay"; readonly millis: number; readonly answer: Answer }
  /** Decides only after `millis`: what it answers (and does) is worked out then. */
  | { readonly kind: "later"; readonly millis: number; readonly answerThen: () => Answer }
  | { readonly kind: "close" }

export type Script = (call: RecordedCall) => Answer

export class FakeUpstream extends Context.Service<FakeUpstream, {
  readonly url: string
  readonly calls: Array<RecordedCall>
  /** Replaces how the fake answers from now on. */
  script(script: Script): void
  reset(): void
}>()("test/FakeUpstream") {
  static readonly layer = (initial: Script) =>
    Layer.effect(
      FakeUpstream,
      Effect.acquireRelease(
        Effect.promise(() =>
          new Promise<{ service: FakeUpstream["Service"]; close: () => Promise<void> }>((resolve) => {
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
                  body,
                  raw
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
                      setTimeout(() => respond(answer.answer), answer.millis)
                      return
                    case "later":
                      setTimeout(() => respond(answer.answerThen()), answer.millis)
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
      ).pipe(Effect.map(({ service }) => FakeUpstream.of(service)))
    )
}
