/**
 * The partner guide's callbacks page (docs/partner-guide/callbacks.md), as a partner copies it: its test vectors are
 * what the service's signing writes, its Node check accepts them and refuses them changed, its amount helpers are
 * exact, and every body it shows is one the service writes and its own schema reads.
 */
import { assert, describe, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import path from "node:path"
import { pathToFileURL } from "node:url"
import { webhookBodies, webhookExamples, type WebhookKind } from "../../src/api/Webhooks.ts"
import { sign, signedHeaders } from "../../src/wallet/outbox/Signature.ts"

const page = readFileSync(new URL("../../docs/partner-guide/callbacks.md", import.meta.url), "utf8")

/** The ```js block of the page that defines `name`, imported as a module. */
const jsBlock = async <A>(name: string): Promise<A> => {
  const code = [...page.matchAll(/```js\n([\s\S]*?)\n```/g)].map((match) => match[1]).find((block) =>
    block.includes(`export const ${name}`)
  )
  assert.isDefined(code, `the guide defines ${name}`)
  const file = path.join(tmpdir(), `partner-guide-${name}-${process.pid}-${Date.now()}.mjs`)
  writeFileSync(file, code!)
  try {
    return await import(pathToFileURL(file).href) as A
  } finally {
    rmSync(file, { force: true })
  }
}

interface Vector {
  readonly secret: string
  readonly timestamp: number
  readonly body: string
  readonly signature: string
}

/** The rows of the table after the vectors' marker; "the same bet" is the row above's body. */
const vectors = (): ReadonlyArray<Vector> => {
  const table = page.slice(page.indexOf("<!-- vectors:")).split("\n\n")[1]
  const rows: Array<Vector> = []
  for (const line of table.split("\n").slice(2)) {
    const cells = line.split(" | ").map((cell) => cell.replace(/^\|? ?`?/, "").replace(/`? ?\|?$/, ""))
    const body = cells[2] === "the same bet" ? rows[rows.length - 1].body : cells[2]
    rows.push({ secret: cells[0], timestamp: Number(cells[1]), body, signature: cells[3] })
  }
  return rows
}

type Verified = (secret: string, headers: Record<string, string>, rawBody: string, now?: number) => boolean

describe("the partner guide's callbacks page", () => {
  it("its test vectors are the service's signatures", () => {
    const rows = vectors()
    assert.strictEqual(rows.length, 3)
    for (const row of rows) assert.strictEqual(sign(row.secret, row.timestamp, row.body), row.signature, row.body)
    const [first, second] = rows
    const rotated = signedHeaders([second.secret, first.secret], "evt", first.body, new Date(first.timestamp * 1000))
    assert.include(page, `X-Partner-Signature: ${rotated["x-partner-signature"]}`)
  })

  it("its Node check accepts each vector and refuses it changed", async () => {
    const { verified } = await jsBlock<{ verified: Verified }>("verified")
    for (const row of vectors()) {
      const headers = { "x-partner-timestamp": String(row.timestamp), "x-partner-signature": row.signature }
      const now = row.timestamp * 1000
      assert.isTrue(verified(row.secret, headers, row.body, now))
      assert.isTrue(
        verified(
          row.secret,
          { ...headers, "x-partner-signature": `v1=${"0".repeat(64)},${row.signature}` },
          row.body,
          now
        )
      )
      assert.isFalse(verified(row.secret, headers, row.body.replace("}", " }"), now))
      assert.isFalse(verified(`${row.secret}x`, headers, row.body, now))
      assert.isFalse(
        verified(row.secret, { ...headers, "x-partner-timestamp": String(row.timestamp + 1) }, row.body, now)
      )
      assert.isFalse(verified(row.secret, headers, row.body, now + 301_000))
      assert.isFalse(verified(row.secret, { "x-partner-timestamp": String(row.timestamp) }, row.body, now))
    }
  })

  it("its amount helpers keep integer minor units, and refuse a float's digits", async () => {
    const { toMinor, toWire } = await jsBlock<{
      toMinor: (amount: number | string, currency: string) => bigint
      toWire: (minor: bigint, currency: string) => string
    }>("toMinor")
    assert.strictEqual(toMinor(12.34, "BRL"), 1234n)
    assert.strictEqual(toMinor(-3, "BRL"), -300n)
    assert.strictEqual(toMinor("12.50", "EUR"), 1250n)
    assert.strictEqual(toMinor(1250, "JPY"), 1250n)
    assert.strictEqual(toMinor(1.005, "KWD"), 1005n)
    assert.strictEqual(toMinor("0.00000001", "BTC"), 1n)
    assert.throws(() => toMinor(88.75999999999999, "EUR"))
    assert.throws(() => toMinor(1250.5, "JPY"))
    assert.strictEqual(toWire(10150n, "BRL"), "101.50")
    assert.strictEqual(toWire(-300n, "BRL"), "-3.00")
    assert.strictEqual(toWire(1250n, "JPY"), "1250")
    assert.strictEqual(toWire(12345678n, "BTC"), "0.12345678")
  })

  it("every body it shows is the service's, and the service's schema reads it", () => {
    const shown = [...page.matchAll(/```json\n(\{"event_id"[\s\S]*?)\n```/g)].map((match) => JSON.parse(match[1]))
    const kinds = shown.map((body) => body.kind as WebhookKind)
    assert.deepStrictEqual(kinds, ["balance", "bet", "win", "refund", "rollback", "test"])
    for (const body of shown) {
      const kind = body.kind as WebhookKind
      assert.deepStrictEqual(body, webhookExamples[kind], kind)
      assert.strictEqual(Schema.decodeUnknownExit(webhookBodies[kind])(body)._tag, "Success", kind)
    }
  })
})
