/**
 * A partner's wallet, as a fake over FakeUpstream: it checks each callback's
 * signature the way the partner guide tells partners to, keeps its players'
 * balances in minor units, one balance per player and currency (`walletOf`),
 * applies each event id once (a repeat gets the first
 * answer), remembers a rollback of a bet it has not seen and refuses that
 * bet if it arrives later, and can be told to misbehave: slow, late, down,
 * garbage, or failing notifications.
 */
import { verify } from "../../src/wallet/outbox/Signature.ts"
import { knownCurrency } from "../../src/domain/Currency.ts"
import { amountOnWire, formatMinor, type Minor, signedMinorOf } from "../../src/domain/Money.ts"
import type { Answer, RecordedCall, Script } from "./FakeUpstream.ts"

export type PartnerBehaviour =
  | "fine"
  /** Applies a callback at once, then answers after `delayMillis`. */
  | "slow"
  /** Holds a bet for `delayMillis` and only then applies it (unless it was rolled back meanwhile) and answers. */
  | "late"
  | "down"
  | "garbage"
  /** Every bet is refused for insufficient funds. */
  | "broke"
  /** Does not know the player. */
  | "unknown-player"
  /** Applies each callback as `fine` does, and answers it with its usual JSON padded past 64 KiB. */
  | "huge"
  /** Applies each callback as `fine` does, and pads its usual JSON to about 60 KB: under the 64 KiB the service reads. */
  | "padded"

/** Faults of a partner's wallet that the wallet certification must catch, each switched on alone (`faults`). */
export type WalletFault =
  /** Applies every copy of an event: a retry, or copies arriving together, move money again. */
  | "double-applies-retry"
  /** Takes any callback, whatever its signature and timestamp. */
  | "skips-signature-checks"
  /** Applies a bet that arrives after its rollback. */
  | "applies-late-bet"
  /** Applies amounts rounded to whole units. */
  | "rounds-amounts"
  /** Keeps one balance per player whatever the currency: a stake in one currency is taken from another's balance. */
  | "mixes-currencies"
  /** Answers every balance with a digit more than the callback's currency has (half a minor unit more). */
  | "answers-finer-balance"
  /** Applies a refund again when it comes again (same event id): only bets and wins are kept once. */
  | "repeats-refunds"
  /** Applies a rollback again when it comes again (same event id). */
  | "repeats-rollbacks"
  /** Reads the balance, waits, and writes it back changed: of two events of one player at once, one is lost. */
  | "loses-updates"
  /** Knows an event by its id and amount: the same id with another amount is a new event. */
  | "keys-on-body"
  /** Answers a repeated bet with the balance as it is now, not with its first answer (it moves nothing again). */
  | "answers-replay-anew"
  /**
   * Pays one win per round, as PlayFiver's rounds have: a later win of a round that was paid is acknowledged and not
   * credited (a Hub88 round pays several, and after it closed).
   */
  | "one-win-per-round"
  /** Takes a bet the balance cannot cover, and answers the negative balance that leaves (which no one can read). */
  | "overdraws"

export interface ReceivedCallback {
  readonly eventId: string
  readonly kind: string
  readonly verified: boolean
  readonly body: any
  /** The body byte for byte, as signed. */
  readonly raw: string
  readonly headers: RecordedCall["headers"]
}

export class PartnerBooks {
  /** The partner's copies of webhook secrets (one fake can stand for several partners). */
  readonly secrets = new Set<string>()
  behaviour: PartnerBehaviour = "fine"
  /** How long a slow or late partner takes. */
  delayMillis = 1_500
  /** How many of the next notifications (win, refund, rollback) to answer with a 500. */
  failNotifications = 0
  /** Notifications are received and never answered (the connection stays open). */
  hangNotifications = false
  /** Notifications (their failures too) are answered with the usual JSON padded past 64 KiB. */
  hugeNotifications = false
  /** Notifications are applied at once and answered this much later. */
  notificationDelayMillis = 0
  /** The faults switched on. */
  readonly faults = new Set<WalletFault>()
  /** Only players with a balance here are known; any other is answered `unknown_player` (off: every player is known, at 0). */
  knownPlayersOnly = false
  /**
   * The currency whose balances `balances` keys by the player's id alone (the tests' DEFAULT_CURRENCY); another
   * currency's are keyed by `walletOf(player, currency)`.
   */
  homeCurrency = "BRL"
  /** Balances in minor units of their currency, by `walletOf`. */
  readonly balances = new Map<string, Minor>()
  readonly received: Array<ReceivedCallback> = []
  /** Event ids whose money was moved, in the order they were applied. */
  readonly applied: Array<string> = []
  /** Event ids the wallet has decided (applied or refused), in that order: what a test waits on for a late answer. */
  readonly decided: Array<string> = []
  /** Bets (by event id) rolled back before they were seen: refused if they come. */
  readonly rolledBack = new Set<string>()
  /** Rounds (by round id) a win was credited in: a wallet with `one-win-per-round` credits no other. */
  private readonly paidRounds = new Set<string>()
  private readonly answers = new Map<string, Answer>()

  balanceOf(player: string): Minor {
    return this.balances.get(player) ?? 0n
  }

  /** The key of a player's balance in a currency (the player's id alone in the home currency, or for a mixing wallet). */
  walletOf(player: string, currency: string) {
    return currency === this.homeCurrency || this.faults.has("mixes-currencies") ? player : `${player} in ${currency}`
  }

  receivedFor(eventId: string) {
    return this.received.filter((callback) => callback.eventId === eventId)
  }

  reset() {
    this.secrets.clear()
    this.behaviour = "fine"
    this.delayMillis = 1_500
    this.failNotifications = 0
    this.hangNotifications = false
    this.hugeNotifications = false
    this.notificationDelayMillis = 0
    this.faults.clear()
    this.knownPlayersOnly = false
    this.homeCurrency = "BRL"
    this.balances.clear()
    this.received.length = 0
    this.applied.length = 0
    this.decided.length = 0
    this.rolledBack.clear()
    this.paidRounds.clear()
    this.answers.clear()
  }

  /** What the partner does with a verified callback it has not answered before. */
  private apply(body: any): Answer {
    // Each currency of a player is a balance of its own (unless it mixes them); one it does not know is no player.
    const currency = knownCurrency(String(body.currency ?? this.homeCurrency))
    if (currency === undefined) return { kind: "json", status: 404, body: { error: "unknown_player" } }
    const player = this.walletOf(String(body.player?.external_player_id), currency.code)
    const unit = 10n ** BigInt(currency.exponent)
    const exact = signedMinorOf(String(body.amount ?? 0), currency) ?? 0n
    const cents = this.faults.has("rounds-amounts") ? exact / unit * unit : exact
    /** A balance as this wallet writes it: in the currency's units, or a digit finer than it has. */
    const stated = (minor: Minor) =>
      this.faults.has("answers-finer-balance")
        ? `${formatMinor(minor, currency)}${currency.exponent === 0 ? "." : ""}5`
        : amountOnWire(minor, currency)
    const balance = () => ({ kind: "json", body: { balance: stated(this.balanceOf(player)) } }) as const
    if (this.behaviour === "unknown-player" || (this.knownPlayersOnly && !this.balances.has(player))) {
      return { kind: "json", status: 404, body: { error: "unknown_player" } }
    }
    switch (body.kind) {
      case "balance":
        return balance()
      case "bet":
        if (this.rolledBack.has(body.event_id) && !this.faults.has("applies-late-bet")) {
          return { kind: "json", status: 409, body: { error: "rolled_back", balance: stated(this.balanceOf(player)) } }
        }
        if (this.behaviour === "broke" || (this.balanceOf(player) < cents && !this.faults.has("overdraws"))) {
          return {
            kind: "json",
            status: 402,
            body: { error: "insufficient_funds", balance: stated(this.balanceOf(player)) }
          }
        }
        this.balances.set(player, this.balanceOf(player) - cents)
        this.applied.push(body.event_id)
        return balance()
      case "win":
        if (this.faults.has("one-win-per-round") && this.paidRounds.has(String(body.round_id))) {
          return { kind: "json", body: { ok: true } }
        }
        this.paidRounds.add(String(body.round_id))
        this.balances.set(player, this.balanceOf(player) + cents)
        this.applied.push(body.event_id)
        return { kind: "json", body: { ok: true } }
      case "refund":
        this.balances.set(player, this.balanceOf(player) + cents)
        this.applied.push(body.event_id)
        return { kind: "json", body: { ok: true } }
      case "rollback":
        // Only a bet that was applied is given back; one not seen yet is refused if it comes.
        if (this.applied.includes(body.rolls_back)) {
          this.balances.set(player, this.balanceOf(player) + cents)
          this.applied.push(body.event_id)
        } else {
          this.rolledBack.add(body.rolls_back)
        }
        return { kind: "json", body: { ok: true } }
      default:
        return { kind: "json", status: 400, body: { error: "unknown kind" } }
    }
  }

  private once(eventId: string, body: any): Answer {
    if (this.faults.has("double-applies-retry")) return this.apply(body)
    if (
      (this.faults.has("repeats-refunds") && body.kind === "refund") ||
      (this.faults.has("repeats-rollbacks") && body.kind === "rollback")
    ) return this.apply(body)
    const key = this.faults.has("keys-on-body") ? `${eventId} ${body.amount}` : eventId
    const known = this.answers.get(key)
    if (known !== undefined && this.faults.has("answers-replay-anew") && body.kind === "bet") {
      return this.apply({ ...body, kind: "balance" })
    }
    if (known !== undefined) return known
    const answer = this.apply(body)
    this.answers.set(key, answer)
    this.decided.push(eventId)
    return answer
  }

  /**
   * A lost update: the event is decided on the balances as they are on arrival, and its change written over them
   * 100 ms later, so whatever another event changed meanwhile is lost.
   */
  private writtenLater(decide: () => Answer): Answer {
    const before = new Map(this.balances)
    const answer = decide()
    const changes = [...this.balances].filter(([key, balance]) => before.get(key) !== balance)
    for (const [key] of changes) this.balances.set(key, before.get(key) ?? 0n)
    return {
      kind: "later",
      millis: 100,
      answerThen: () => {
        // What it read on arrival, changed by this event: written over whatever happened since.
        for (const [key, balance] of changes) this.balances.set(key, balance)
        return answer
      }
    }
  }

  /** A huge partner's answer: the same JSON with 100 KB more in it. */
  private padded(answer: Answer, isNotification: boolean): Answer {
    if (this.behaviour === "padded" && answer.kind === "json") {
      return { ...answer, body: { ...(answer.body as object), padding: "x".repeat(60_000) } }
    }
    if (!(this.behaviour === "huge" || (isNotification && this.hugeNotifications)) || answer.kind !== "json") {
      return answer
    }
    return { ...answer, body: { ...(answer.body as object), padding: "x".repeat(100_000) } }
  }

  readonly script: Script = (call) => {
    const eventId = String(call.headers["x-partner-event-id"] ?? "")
    const headers = {
      timestamp: call.headers["x-partner-timestamp"] as string | undefined,
      signature: call.headers["x-partner-signature"] as string | undefined
    }
    const verified = [...this.secrets].some((secret) => verify(secret, headers, call.raw, new Date()))
    this.received.push({
      eventId,
      kind: String(call.body?.kind),
      verified,
      body: call.body,
      raw: call.raw,
      headers: call.headers
    })
    if (this.behaviour === "down") return { kind: "close" }
    if (this.behaviour === "garbage") {
      return { kind: "text", status: 200, body: "<html>Service temporarily unavailable</html>" }
    }
    if (!verified && !this.faults.has("skips-signature-checks")) {
      return { kind: "json", status: 401, body: { error: "invalid signature" } }
    }
    const isNotification = ["win", "refund", "rollback"].includes(call.body?.kind)
    if (isNotification && this.hangNotifications) return { kind: "hang" }
    if (isNotification && this.failNotifications > 0) {
      this.failNotifications--
      return this.padded({ kind: "json", status: 500, body: { error: "try later" } }, true)
    }
    if (this.behaviour === "late" && call.body?.kind === "bet") {
      return { kind: "later", millis: this.delayMillis, answerThen: () => this.once(eventId, call.body) }
    }
    if (this.faults.has("loses-updates") && ["bet", "win", "refund", "rollback"].includes(call.body?.kind)) {
      return this.writtenLater(() => this.once(eventId, call.body))
    }
    const answer = this.padded(this.once(eventId, call.body), isNotification)
    if (isNotification && this.notificationDelayMillis > 0) {
      return { kind: "delay", millis: this.notificationDelayMillis, answer }
    }
    return this.behaviour === "slow" ? { kind: "delay", millis: this.delayMillis, answer } : answer
  }
}
