/**
 * Hub88's wallet protocol, pure: its five requests read exactly, amounts times 100000 to and from each currency's
 * minor units (exact, or refused), the answer's JSON, and the launch tokens' rules.
 */
import { assert, describe, it } from "@effect/vitest"
import { Result } from "effect"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { expressibleWithImpliedDecimals, impliedOfMinor, minorOfImplied } from "../../src/domain/ImpliedDecimals.ts"
import { checkToken, mintToken, tokenKeyOf } from "../../src/integrations/hub88/Hub88LaunchTokens.ts"
import {
  amountInMinor,
  encodeWalletAnswer,
  readWalletRequest,
  walletAnswer,
  walletPaths
} from "../../src/integrations/hub88/Hub88Protocol.ts"
import { hub88Keys, operatorKeys } from "../support/FakeHub88.ts"

const currency = (code: string) => knownCurrency(code)!
const brl = currency("BRL")
const jpy = currency("JPY")
const kwd = currency("KWD")

const ok = <A, E>(result: Result.Result<A, E>): A => {
  if (Result.isFailure(result)) throw new Error(`refused: ${JSON.stringify(result.failure)}`)
  return result.success
}
const refusal = <A, E>(result: Result.Result<A, E>): E | "accepted" =>
  Result.isFailure(result) ? result.failure : "accepted"

describe("amounts times 100000, in each currency's minor units", () => {
  it("convert exactly both ways in BRL (2 places), JPY (0) and KWD (3)", () => {
    // BRL 15.50 = 1550 centavos = 1550000; JPY 1500 = 150000000; KWD 1.234 = 1234 fils = 123400.
    assert.strictEqual(ok(impliedOfMinor(1550n, brl)), 1_550_000n)
    assert.strictEqual(ok(minorOfImplied(1_550_000n, brl)), 1550n)
    assert.strictEqual(ok(impliedOfMinor(1500n, jpy)), 150_000_000n)
    assert.strictEqual(ok(minorOfImplied(150_000_000n, jpy)), 1500n)
    assert.strictEqual(ok(impliedOfMinor(1234n, kwd)), 123_400n)
    assert.strictEqual(ok(minorOfImplied(123_400n, kwd)), 1234n)
    // The docs' own example: $3.56 is 356000.
    assert.strictEqual(ok(minorOfImplied(356_000n, currency("USD"))), 356n)
    // Zero, and an amount past a double's exact range, kept to the unit.
    assert.strictEqual(ok(minorOfImplied(0n, brl)), 0n)
    assert.strictEqual(ok(impliedOfMinor(9_007_199_254_740_993n, brl)), 9_007_199_254_740_993_000n)
    assert.strictEqual(ok(minorOfImplied(9_007_199_254_740_993_000n, brl)), 9_007_199_254_740_993n)
  })

  it("refuse a value finer than the currency's minor unit, never rounding it", () => {
    assert.strictEqual(refusal(minorOfImplied(1n, brl)), "FinerThanMinorUnit")
    assert.strictEqual(refusal(minorOfImplied(1_550_001n, brl)), "FinerThanMinorUnit")
    assert.strictEqual(refusal(minorOfImplied(1_550_999n, brl)), "FinerThanMinorUnit")
    assert.strictEqual(refusal(minorOfImplied(150_050_000n, jpy)), "FinerThanMinorUnit")
    assert.strictEqual(refusal(minorOfImplied(123_410n, kwd)), "FinerThanMinorUnit")
  })

  it("cannot express a currency with more than five places (BTC, USDT, ETH); mBTC (5) can", () => {
    for (const code of ["BTC", "USDT", "ETH"]) {
      assert.isFalse(expressibleWithImpliedDecimals(currency(code)), code)
      assert.strictEqual(refusal(impliedOfMinor(100_000_000n, currency(code))), "CurrencyTooFine")
      assert.strictEqual(refusal(minorOfImplied(100_000n, currency(code))), "CurrencyTooFine")
    }
    assert.strictEqual(ok(minorOfImplied(12_345n, currency("mBTC"))), 12_345n)
  })
})

const betBody = (amount: string, extra = "") =>
  `{"user":"100042","transaction_uuid":"16d2dcfe-b89e-11e7-854a-58404eea6d16","supplier_transaction_id":"41ecc3ad",` +
  `"token":"v1.tok","supplier_user":"cg_45141","round_closed":true,"round":"rNEMwgzJAOZ6eR3V",` +
  `"reward_uuid":null,"request_uuid":"583c985f-fee6-4c0e-bbf5-308aad6265af","is_free":false,` +
  `"is_aggregated":false,"game_code":"clt_dragonrising","currency":"BRL","bet":"zero","amount":${amount},` +
  `"meta":{"selection":"home_team","odds":2.5}${extra}}`

describe("the wallet requests", () => {
  it("are the five documented paths", () => {
    assert.deepStrictEqual(Object.values(walletPaths), [
      "/user/info",
      "/user/balance",
      "/transaction/bet",
      "/transaction/win",
      "/transaction/rollback"
    ])
  })

  it("read a bet into camelCase, its amount exactly (past 2^53 too)", () => {
    const read = ok(readWalletRequest("bet", betBody("9007199254740993000")))
    assert.strictEqual(read.call, "bet")
    if (read.call !== "bet") return
    assert.deepInclude(read.request, {
      requestUuid: "583c985f-fee6-4c0e-bbf5-308aad6265af",
      user: "100042",
      token: "v1.tok",
      gameCode: "clt_dragonrising",
      currency: "BRL",
      amount: 9_007_199_254_740_993_000n,
      transactionUuid: "16d2dcfe-b89e-11e7-854a-58404eea6d16",
      round: "rNEMwgzJAOZ6eR3V",
      roundClosed: true,
      isFree: false,
      supplierUser: "cg_45141"
    })
    assert.strictEqual(ok(amountInMinor(read.request, brl)), 9_007_199_254_740_993n)
  })

  it("read a win with the bet it pays, a rollback with what it undoes, a balance and an info call", () => {
    const win = ok(readWalletRequest(
      "win",
      betBody("1550000", `,"reference_transaction_uuid":"16d2dcfe-b89e-11e7-854a-58404eea6d16"`).replace(
        `"transaction_uuid":"16d2dcfe-b89e-11e7-854a-58404eea6d16"`,
        `"transaction_uuid":"win-1"`
      )
    ))
    assert.deepInclude(win.request, {
      transactionUuid: "win-1",
      referenceTransactionUuid: "16d2dcfe-b89e-11e7-854a-58404eea6d16",
      amount: 1_550_000n
    })
    const rollback = ok(readWalletRequest(
      "rollback",
      `{"user":"100042","transaction_uuid":"rb-1","reference_transaction_uuid":"bet-1","request_uuid":"r-2",` +
        `"token":"v1.tok","game_code":"clt_dragonrising","round":"r1","round_closed":false,"meta":null}`
    ))
    assert.deepInclude(rollback.request, { transactionUuid: "rb-1", referenceTransactionUuid: "bet-1" })
    const balance = ok(readWalletRequest(
      "balance",
      `{"user":"100042","token":"v1.tok","request_uuid":"r-3","game_code":"clt_dragonrising"}`
    ))
    assert.deepStrictEqual(balance.request, {
      user: "100042",
      token: "v1.tok",
      requestUuid: "r-3",
      gameCode: "clt_dragonrising"
    })
    const info = ok(readWalletRequest("info", `{"user":"100042","request_uuid":"r-4"}`))
    assert.deepStrictEqual(info.request, { user: "100042", requestUuid: "r-4" })
  })

  it("default round_closed and is_free to false when absent", () => {
    const read = ok(readWalletRequest("bet", betBody("100000").replace(`"round_closed":true,`, "")))
    assert.deepInclude(read.request, { roundClosed: false })
  })

  it("refuse what is not JSON as WRONG_SYNTAX, and a field of another type as WRONG_TYPES, echoing the ids", () => {
    assert.deepStrictEqual(refusal(readWalletRequest("bet", "{nope")), {
      status: "RS_ERROR_WRONG_SYNTAX",
      requestUuid: "",
      user: ""
    })
    assert.deepStrictEqual(refusal(readWalletRequest("bet", "[1]")), {
      status: "RS_ERROR_WRONG_SYNTAX",
      requestUuid: "",
      user: ""
    })
    for (const amount of [`"1550000"`, "15.5", "1.5e6", "-100000", "9223372036854775808"]) {
      assert.deepStrictEqual(refusal(readWalletRequest("bet", betBody(amount))), {
        status: "RS_ERROR_WRONG_TYPES",
        requestUuid: "583c985f-fee6-4c0e-bbf5-308aad6265af",
        user: "100042"
      }, amount)
    }
    // A win without the bet it pays.
    assert.strictEqual(
      (refusal(readWalletRequest("win", betBody("100000"))) as { status: string }).status,
      "RS_ERROR_WRONG_TYPES"
    )
  })

  it("take an amount in the player's currency only, and only a whole number of its minor units", () => {
    assert.strictEqual(ok(amountInMinor({ currency: "JPY", amount: 150_000_000n }, jpy)), 1500n)
    assert.strictEqual(ok(amountInMinor({ currency: "KWD", amount: 123_400n }, kwd)), 1234n)
    assert.strictEqual(refusal(amountInMinor({ currency: "EUR", amount: 1_550_000n }, brl)), "RS_ERROR_WRONG_CURRENCY")
    assert.strictEqual(refusal(amountInMinor({ currency: "BRL", amount: 1n }, brl)), "RS_ERROR_WRONG_TYPES")
  })
})

describe("the wallet answer", () => {
  it("is {user, status, request_uuid, currency, balance}, the balance times 100000 written as an exact integer", () => {
    const answer = ok(walletAnswer({
      user: "100042",
      status: "RS_OK",
      requestUuid: "583c985f",
      currency: brl,
      balance: 10_050n
    }))
    assert.strictEqual(
      encodeWalletAnswer(answer),
      `{"user":"100042","status":"RS_OK","request_uuid":"583c985f","currency":"BRL","balance":10050000}`
    )
    const large = ok(walletAnswer({
      user: "u\"1",
      status: "RS_ERROR_NOT_ENOUGH_MONEY",
      requestUuid: "r",
      currency: jpy,
      balance: 90_071_992_547_409n
    }))
    const text = encodeWalletAnswer(large)
    assert.include(text, `"balance":9007199254740900000}`)
    assert.strictEqual(JSON.parse(text).user, "u\"1")
    assert.strictEqual(
      refusal(walletAnswer({ user: "u", status: "RS_OK", requestUuid: "r", currency: currency("BTC"), balance: 1n })),
      "CurrencyTooFine"
    )
  })
})

describe("launch tokens", () => {
  const key = tokenKeyOf(operatorKeys.privateKey)
  const claims = { user: "100042", gameCode: "clt_dragonrising", currency: "BRL" }
  const nonce = new Uint8Array(12).fill(7)
  const now = Date.UTC(2026, 10, 28, 12)
  const token = mintToken(key, claims, now + 3_600_000, nonce)

  it("are short, opaque, and bound to the user, the game and the currency", () => {
    assert.match(token, /^v1\.[0-9a-z]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
    assert.isAtLeast(token.length, 10)
    assert.isAtMost(token.length, 255)
    assert.notInclude(token, "100042")
    assert.strictEqual(checkToken(key, token, claims, now), "Valid")
    assert.strictEqual(checkToken(key, token, { ...claims, user: "100043" }, now), "Invalid")
    assert.strictEqual(checkToken(key, token, { ...claims, gameCode: "other" }, now), "Invalid")
    assert.strictEqual(checkToken(key, token, { ...claims, currency: "JPY" }, now), "Invalid")
  })

  it("expire at their time, and are refused under another operator key or when altered", () => {
    assert.strictEqual(checkToken(key, token, claims, now + 3_600_000), "Expired")
    assert.strictEqual(checkToken(tokenKeyOf(hub88Keys.privateKey), token, claims, now), "Invalid")
    const [v, expiry, nonceText, mac] = token.split(".")
    const later = (parseInt(expiry!, 36) + 86_400).toString(36)
    assert.strictEqual(checkToken(key, [v, later, nonceText, mac].join("."), claims, now), "Invalid")
    assert.strictEqual(checkToken(key, token.slice(0, -1), claims, now), "Invalid")
    assert.strictEqual(checkToken(key, "", claims, now), "Invalid")
  })
})
