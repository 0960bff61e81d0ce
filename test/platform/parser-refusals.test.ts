import { afterAll, assert, beforeAll, describe, it } from "@effect/vitest"
import type { AddressInfo } from "node:net"
import { connect } from "node:net"
import { createHttpServer } from "../../src/platform/HttpEdge.ts"

// The server factory the service listens with (src/server.ts), answering every routed request with 200,
// and hearing `Expect: 100-continue` itself, as effect's server does.
const server = createHttpServer()
  .on("request", (_request, response) => response.end("routed"))
  .on("checkContinue", (_request, response) => {
    response.writeContinue()
    response.end("routed")
  })
let port = 0

beforeAll(() =>
  new Promise<void>((resolve) =>
    server.listen(0, "127.0.0.1", () => {
      port = (server.address() as AddressInfo).port
      resolve()
    })
  )
)
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** Sends raw bytes and reads everything the server answers until it closes the connection. */
const raw = (text: string) =>
  new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1")
    const chunks: Array<Buffer> = []
    socket.on("data", (chunk) => chunks.push(chunk))
    socket.on("error", reject)
    socket.on("close", () => {
      const answer = Buffer.concat(chunks).toString("utf8")
      const [head, body = ""] = answer.split("\r\n\r\n")
      resolve({ status: Number(head.split(" ")[1]), headers: head, body })
    })
    socket.end(text)
  })

describe("requests Node's HTTP parser refuses", () => {
  it("a header over Node's limit is a 431 in the error envelope", async () => {
    const answer = await raw(`GET /health HTTP/1.1\r\nHost: x\r\nX-Big: ${"a".repeat(64 * 1024)}\r\n\r\n`)
    assert.strictEqual(answer.status, 431)
    assert.match(answer.headers, /content-type: application\/json/i)
    assert.deepStrictEqual(JSON.parse(answer.body), { success: false, message: "The request headers are too large." })
  })

  it("a 2 MB query string: every client still sending reads its 431 (the connection lingers before it closes)", async () => {
    // What each client read before the connection ended, and how it ended: a close that is not lingering resets
    // the connection while the client still sends (EPIPE, ECONNRESET), and what was answered may be lost with it.
    const oversized = () =>
      new Promise<{ status: number; error: string | undefined }>((resolve) => {
        const socket = connect(port, "127.0.0.1")
        const chunks: Array<Buffer> = []
        let error: string | undefined
        socket.on("data", (chunk) => chunks.push(chunk))
        socket.on("error", (failure: NodeJS.ErrnoException) => (error = failure.code ?? failure.message))
        socket.on("close", () => {
          const head = Buffer.concat(chunks).toString("utf8").split("\r\n")[0] ?? ""
          resolve({ status: Number(head.split(" ")[1]), error })
        })
        // Sent piece by piece, as a client on a real network does: still sending when the answer comes.
        socket.write("GET /health?q=")
        const piece = "a".repeat(16 * 1024)
        let sent = 0
        const send = () => {
          while (sent < 2 * 1024 * 1024 && !socket.destroyed) {
            sent += piece.length
            if (!socket.write(piece)) return void socket.once("drain", send)
          }
          if (!socket.destroyed) socket.end(" HTTP/1.1\r\nHost: x\r\n\r\n")
        }
        send()
      })
    const answers = await Promise.all(Array.from({ length: 20 }, oversized))
    assert.deepStrictEqual(
      answers,
      answers.map(() => ({ status: 431, error: undefined })),
      "each read its answer, and the connection closed without a reset"
    )
  })

  it("a bad method, a CR or LF inside a header, or garbage are a 400 in the error envelope", async () => {
    for (
      const request of [
        "GE(T /health HTTP/1.1\r\nHost: x\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Split: a\rb\r\n\r\n",
        "GET /health HTTP/1.1\r\nHost: x\r\nX-Split: a\nb c\r\n\r\n",
        "\u0000\u0001 nothing like HTTP\r\n\r\n"
      ]
    ) {
      const answer = await raw(request)
      assert.strictEqual(answer.status, 400, JSON.stringify(request))
      assert.deepStrictEqual(JSON.parse(answer.body), { success: false, message: "The request is not valid HTTP." })
    }
  })

  it("an HTTP/1.1 request without Host is a 400 in the error envelope, then the connection closes", async () => {
    for (
      const request of [
        "GET /health HTTP/1.1\r\n\r\n",
        "GET /api/partner/v1/status HTTP/1.1\r\nAuthorization: Bearer x\r\n\r\n",
        "POST /aggregator/wallet HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}",
        "POST /aggregator/wallet HTTP/1.1\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n{}"
      ]
    ) {
      const answer = await raw(request)
      assert.strictEqual(answer.status, 400, JSON.stringify(request))
      assert.match(answer.headers, /content-type: application\/json/i)
      assert.match(answer.headers, /connection: close/i)
      assert.deepStrictEqual(JSON.parse(answer.body), { success: false, message: "The request has no Host header." })
    }
  })

  it("an Expect the server cannot meet is a 417 in the error envelope", async () => {
    const answer = await raw("GET /health HTTP/1.1\r\nHost: x\r\nExpect: something-else\r\nConnection: close\r\n\r\n")
    assert.strictEqual(answer.status, 417)
    assert.match(answer.headers, /content-type: application\/json/i)
    assert.deepStrictEqual(JSON.parse(answer.body), {
      success: false,
      message: "The Expect header's expectation cannot be met."
    })
  })

  it("HTTP/1.0 may leave Host out, and reaches the routes", async () => {
    const answer = await raw("GET /health HTTP/1.0\r\n\r\n")
    assert.strictEqual(answer.status, 200)
    assert.strictEqual(answer.body, "routed")
  })

  it("a well-formed request still reaches the routes", async () => {
    const answer = await raw("GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
    assert.strictEqual(answer.status, 200)
    assert.strictEqual(answer.body, "routed")
  })
})
