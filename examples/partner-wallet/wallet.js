/**
 * A reference partner wallet: what docs/partners.md ("For partners: receiving callbacks") asks a partner to build, in
 * one file of plain JavaScript on Node's standard library, passing every case of the wallet certification.
 *
 * - Every callback's signature and timestamp are checked first, on the raw body, in constant time.
 * - Each event id is decided once; a repeat gets the identical first answer; another body under a used id is refused.
 * - One balance per player AND currency, in integer minor units (BigInt), never a float: amounts are read from the
 *   JSON's exact text and balances written as decimal strings at the currency's scale.
 * - A bet the balance cannot cover is refused (`insufficient_funds`), a player it does not know too (`unknown_player`);
 *   a rollback gives back a stake taken once, and a rollback of a bet not seen yet refuses that bet if it comes.
 *
 * The books are in memory: see `decide` for what a real wallet does in one database transaction.
 *
 * Configuration (environment):
 *   WEBHOOK_SECRET    your webhook secret of the environment this wallet serves (the test one: whsec_…); during a
 *                     rotation you may give both, comma-separated
 *   PLAYERS           the external_player_ids this wallet knows, comma-separated; any other is `unknown_player`
 *   STARTING_BALANCE  whole units a known player's balance opens with in a currency it is first seen in (default 0)
 *   PORT, HOST        where to listen (default 8080 on 127.0.0.1: put it behind your https:// reverse proxy)
 */
import { createHmac, timingSafeEqual } from "node:crypto"
import { createServer } from "node:http"

// ---- Currencies ------------------------------------------------------------------------------------------------
// A callback names its currency by code (`"currency": "BRL"`), never its number of decimals: a wallet knows the
// currencies it holds. These are the service's: ISO 4217 with a minor unit, and the crypto codes a deployment may
// enable. A code not here is a currency this wallet holds no balance in (its callbacks are `unknown_player`).
const exponents = new Map()
const byExponent = {
  0: "BIF CLP DJF GNF ISK JPY KMF KRW PYG RWF UGX UYI VND VUV XAF XOF XPF",
  2: "AED AFN ALL AMD AOA ARS AUD AWG AZN BAM BBD BDT BGN BMD BND BOB BOV BRL BSD BTN BWP BYN BZD CAD CDF CHE CHF " +
    "CHW CNY COP COU CRC CUP CVE CZK DKK DOP DZD EGP ERN ETB EUR FJD FKP GBP GEL GHS GIP GMD GTQ GYD HKD HNL HTG " +
    "HUF IDR ILS INR IRR JMD KES KGS KHR KPW KYD KZT LAK LBP LKR LRD LSL MAD MDL MGA MKD MMK MNT MOP MRU MUR MVR " +
    "MWK MXN MXV MYR MZN NAD NGN NIO NOK NPR NZD PAB PEN PGK PHP PKR PLN QAR RON RSD RUB SAR SBD SCR SDG SEK SGD " +
    "SHP SLE SOS SRD SSP STN SVC SYP SZL THB TJS TMT TOP TRY TTD TWD TZS UAH USD USN UYU UZS VED VES WST XCD XCG " +
    "YER ZAR ZMW ZWG uBTC",
  3: "BHD IQD JOD KWD LYD OMR TND",
  4: "CLF UYW",
  5: "mBTC mLTC",
  6: "USDT USDC TRX XRP",
  8: "BTC LTC BCH DOGE",
  9: "TON SOL",
  18: "ETH"
}
for (const [exponent, codes] of Object.entries(byExponent)) {
  for (const code of codes.split(" ")) exponents.set(code, Number(exponent))
}

// ---- Amounts: exact decimal text <-> integer minor units --------------------------------------------------------
const plainDecimal = /^(-?)(\d+)(?:\.(\d+))?$/

/** The minor units a decimal text says (`"12.5"` in BRL is 1250n); undefined if it is not one, or finer than the currency. */
export const toMinor = (text, exponent) => {
  const match = plainDecimal.exec(String(text))
  if (match === null) return undefined
  const fraction = (match[3] ?? "").replace(/0+$/, "")
  if (fraction.length > exponent) return undefined
  const minor = BigInt(match[2]) * 10n ** BigInt(exponent) + BigInt(fraction.padEnd(exponent, "0") || "0")
  return match[1] === "-" ? -minor : minor
}

/** Minor units written at the currency's scale (1250n in BRL is `"12.50"`): a string, so no reader rounds it. */
export const toText = (minor, exponent) => {
  const sign = minor < 0n ? "-" : ""
  const digits = (minor < 0n ? -minor : minor).toString().padStart(exponent + 1, "0")
  if (exponent === 0) return sign + digits
  return `${sign}${digits.slice(0, -exponent)}.${digits.slice(-exponent)}`
}

/**
 * A callback's JSON with every number kept as the text it was written as (`12.5` stays "12.5"), never a double: a
 * double of a balance is how 88.75999999999999 gets answered, which the service cannot use.
 */
const parseExact = (raw) =>
  JSON.parse(raw, (_key, value, context) => typeof value === "number" ? context.source : value)

// ---- Signatures ---------------------------------------------------------------------------------------------------
/** How old (or how far ahead) a timestamp may be: 5 minutes, as the guide says. An older one may be a replay. */
const toleranceSeconds = 300

/**
 * Whether one of the callback's signatures (`v1=<hex>`, several during a secret rotation) is HMAC-SHA256 of
 * `<timestamp>.<raw body>` with a secret we hold, and the timestamp is recent. Checked before anything else.
 */
export const verified = (secrets, timestamp, signatures, rawBody, nowSeconds = Date.now() / 1000) => {
  if (!/^\d+$/.test(timestamp ?? "") || Math.abs(nowSeconds - Number(timestamp)) > toleranceSeconds) return false
  const given = String(signatures ?? "").split(",").map((signature) => Buffer.from(signature.trim()))
  return secrets.some((secret) => {
    const expected = Buffer.from(`v1=${createHmac("sha256", secret).update(`${timestamp}.${rawBody}`).digest("hex")}`)
    // Compared as bytes in constant time; lengths first, since timingSafeEqual needs equal lengths.
    return given.some((candidate) => candidate.length === expected.length && timingSafeEqual(candidate, expected))
  })
}

// ---- The books -------------------------------------------------------------------------------------------------
/**
 * What a real wallet keeps in its database, here in memory (lost on restart: a test wallet only):
 * - `balances`: minor units by player and currency;
 * - `events`: every event id decided, with what its body said and the exact answer given (keep them for as long as a
 *   callback can come again: notifications are retried for about 3 days, and an operator may replay one later);
 * - `bets`: the stakes taken, by the bet's event id, so a rollback gives back exactly what was taken, once;
 * - `rolledBackFirst`: bets whose rollback came before them, to refuse them if they arrive.
 */
export const createBooks = ({ players, startingBalance }) => {
  const balances = new Map()
  const events = new Map()
  const bets = new Map()
  const rolledBackFirst = new Set()

  const walletKey = (player, currency) => `${player}\u0000${currency}`
  /** A known player's balance in a currency, opened at the starting balance the first time it is seen in it. */
  const balanceOf = (key, exponent) => {
    if (!balances.has(key)) balances.set(key, startingBalance * 10n ** BigInt(exponent))
    return balances.get(key)
  }

  const answer = (status, body) => ({ status, body: JSON.stringify(body) })
  /**
   * A balance as the service reads it: what the player can stake. A refund may take back a win the player already
   * spent and leave a debt in the books; the service reads no negative balance, so a debt is answered as 0.
   */
  const stated = (minor, exponent) => toText(minor < 0n ? 0n : minor, exponent)

  /**
   * The decision on one verified callback: its answer ({status, body}), and the books moved by it.
   *
   * ATOMICITY. Everything here happens at once or not at all. Node runs this function to its end without
   * interleaving anything (it never awaits), so 20 copies of one event arriving together are decided one after the
   * other: the first applies, the others find its answer. A real wallet does it in ONE database transaction:
   *   1. look the event id up (a unique key on it) and, if it is there, answer what is stored, moving nothing;
   *   2. lock the player's balance row in that currency (SELECT … FOR UPDATE) and read it;
   *   3. decide, move the balance, record the bet or the rollback, and insert the event id with its answer;
   *   4. commit, and only then answer. A copy running at the same time waits on the unique key or the row lock, then
   *      finds the stored answer; a failure before the commit moves nothing and records nothing, so the retry decides.
   */
  const decide = (callback) => {
    const kind = callback.kind
    // A balance moves nothing: it is answered as the books stand, whatever its event id.
    const isEvent = kind !== "balance"
    const fingerprint = JSON.stringify([
      kind,
      callback.player?.external_player_id,
      callback.currency,
      callback.transaction_id ?? null,
      callback.round_id ?? null,
      callback.amount ?? null,
      callback.rolls_back ?? null
    ])
    if (isEvent) {
      const seen = events.get(callback.event_id)
      // A repeat (a retry, a replay) gets the very answer the event got first, and moves nothing again. A retry is
      // the same body with a fresh signature (its `created_at` may differ); another transaction or amount under a
      // used id is no repeat: it is refused and moves nothing (a 4xx: a bet so refused is rolled back by no one).
      if (seen !== undefined) {
        return seen.fingerprint === fingerprint ? seen.answer : answer(409, {
          error: "event_id_reused",
          message: "This event id was used for another callback: nothing was moved."
        })
      }
    }
    const decided = decideNew(callback)
    if (isEvent) events.set(callback.event_id, { fingerprint, answer: decided })
    return decided
  }

  /** The decision on an event never seen before. */
  const decideNew = (callback) => {
    const exponent = exponents.get(callback.currency)
    const player = callback.player?.external_player_id
    const key = walletKey(player, callback.currency)
    const amount = exponent === undefined ? undefined : toMinor(callback.amount ?? "0", exponent)
    const unknownPlayer = answer(404, { error: "unknown_player" })

    if (callback.kind === "rollback") {
      // Acknowledged in every case (a 2xx, or it is retried). A stake taken is given back once, exactly as taken.
      const bet = bets.get(callback.rolls_back)
      if (bet !== undefined && !bet.givenBack) {
        bets.set(callback.rolls_back, { ...bet, givenBack: true })
        balances.set(bet.key, balances.get(bet.key) + bet.amount)
      } else if (!events.has(callback.rolls_back)) {
        // A rollback can overtake its bet: remember it, and refuse that bet if it comes.
        rolledBackFirst.add(callback.rolls_back)
      }
      return answer(200, { ok: true })
    }
    if (exponent === undefined || !players.has(player)) return unknownPlayer
    const balance = balanceOf(key, exponent)
    switch (callback.kind) {
      case "balance":
        return answer(200, { balance: stated(balance, exponent) })
      case "bet":
        if (rolledBackFirst.has(callback.event_id)) {
          return answer(409, { error: "rolled_back", balance: stated(balance, exponent) })
        }
        if (amount > balance) return answer(402, { error: "insufficient_funds", balance: stated(balance, exponent) })
        balances.set(key, balance - amount)
        bets.set(callback.event_id, { key, amount, givenBack: false })
        return answer(200, { balance: stated(balance - amount, exponent) })
      case "win":
      case "refund":
        // A refund's amount is the stake back less the round's win: negative when the win was larger.
        balances.set(key, balance + amount)
        return answer(200, { ok: true })
    }
  }

  return { decide, balances }
}

// ---- Reading a callback -----------------------------------------------------------------------------------------
const kinds = new Set(["balance", "bet", "win", "refund", "rollback"])

/** What is wrong with a verified callback's body before any decision (nothing is recorded), or undefined. */
const problemOf = (callback) => {
  if (typeof callback !== "object" || callback === null || typeof callback.event_id !== "string") {
    return "not a callback"
  }
  if (!kinds.has(callback.kind)) return `an unknown kind: ${callback.kind}`
  if (typeof callback.player?.external_player_id !== "string" || typeof callback.currency !== "string") {
    return "no player or currency"
  }
  if (callback.kind === "balance") return undefined
  if (callback.kind === "rollback" && typeof callback.rolls_back !== "string") return "a rollback without rolls_back"
  const exponent = exponents.get(callback.currency)
  const amount = exponent === undefined ? 0n : toMinor(callback.amount ?? "", exponent)
  if (amount === undefined) return `an amount that is not a plain decimal of ${callback.currency}: ${callback.amount}`
  if (amount < 0n && callback.kind !== "refund") return `a negative amount: ${callback.amount}`
  return undefined
}

// ---- The HTTP endpoint ------------------------------------------------------------------------------------------
/** Callbacks are a few hundred bytes: a body past this is refused unread. */
const maxBodyBytes = 64 * 1024

export const createWallet = ({ secrets, players, startingBalance, log = () => {} }) => {
  const books = createBooks({ players, startingBalance })
  const server = createServer((request, response) => {
    const send = (status, body) => {
      response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
      response.end(body)
    }
    if (request.method === "GET" && request.url === "/health") return send(200, JSON.stringify({ ok: true }))
    if (request.method !== "POST") return send(405, JSON.stringify({ error: "POST a callback" }))
    const chunks = []
    let size = 0
    request.on("data", (chunk) => {
      size += chunk.length
      if (size > maxBodyBytes) {
        send(413, JSON.stringify({ error: "body too large" }))
        request.destroy()
      } else chunks.push(chunk)
    })
    request.on("end", () => {
      if (size > maxBodyBytes) return
      // The raw body, byte for byte: the signature covers it, not a re-serialization of the parsed JSON.
      const raw = Buffer.concat(chunks).toString("utf8")
      const headers = request.headers
      if (!verified(secrets, headers["x-partner-timestamp"], headers["x-partner-signature"], raw)) {
        log(`refused: invalid signature or stale timestamp (event ${headers["x-partner-event-id"]})`)
        return send(401, JSON.stringify({ error: "invalid_signature" }))
      }
      let callback
      try {
        callback = parseExact(raw)
      } catch {
        return send(400, JSON.stringify({ error: "not JSON" }))
      }
      // A test callback (the portal's button) asks only for a 2xx: it moves nothing and names no player.
      if (callback?.kind === "test") return send(200, JSON.stringify({ ok: true }))
      const problem = problemOf(callback)
      if (problem !== undefined) return send(400, JSON.stringify({ error: "bad_callback", message: problem }))
      const { status, body } = books.decide(callback)
      log(`${callback.kind} ${callback.event_id} ${callback.currency}: ${status} ${body}`)
      send(status, body)
    })
  })
  return { server, books }
}

// ---- Start ------------------------------------------------------------------------------------------------------
const listed = (text) => (text ?? "").split(",").map((item) => item.trim()).filter((item) => item !== "")

if (import.meta.main) {
  const secrets = listed(process.env.WEBHOOK_SECRET)
  const startingBalance = process.env.STARTING_BALANCE ?? "0"
  if (secrets.length === 0) throw new Error("Set WEBHOOK_SECRET to your webhook secret (the test one: whsec_…).")
  if (!/^\d+$/.test(startingBalance)) throw new Error("STARTING_BALANCE is whole units of any currency: 0, 100, 5000.")
  const players = new Set(listed(process.env.PLAYERS))
  if (players.size === 0) console.warn("PLAYERS is empty: every player is unknown_player until you list yours.")
  const { server } = createWallet({
    secrets,
    players,
    startingBalance: BigInt(startingBalance),
    log: (line) => console.log(line)
  })
  const port = Number(process.env.PORT ?? 8080)
  const host = process.env.HOST ?? "127.0.0.1"
  server.listen(port, host, () => console.log(`partner wallet listening on http://${host}:${port}/`))
  for (const signal of ["SIGINT", "SIGTERM"]) process.once(signal, () => server.close(() => process.exit(0)))
}
