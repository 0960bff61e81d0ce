import { Clock, Effect } from "effect"
import { randomBytes } from "node:crypto"
import {
  balanceBody,
  betBody,
  type CallbackParty,
  type CallbackTransaction,
  refundBody,
  rollbackBody,
  winBody
} from "../../domain/Callbacks.ts"
import {
  answerReading,
  certificationBody,
  certificationEventId,
  certificationHeader,
  type Exchange,
  keptBody
} from "../../domain/Certification.ts"
import { amountText, type CaseKey } from "../../domain/CertificationCaseTexts.ts"
import type { Currency } from "../../domain/Currency.ts"
import type { Minor } from "../../domain/Money.ts"
import { type CallbackTarget, signingSecrets } from "../../domain/Partner.ts"
import { answerOfSent, type PartnerCallbacks, type SentCallback, signedAt } from "../outbox/PartnerCallbacks.ts"
import { signedHeaders } from "../outbox/Signature.ts"

/**
 * How a certification run talks to the partner's test wallet: the wallet's own callback bodies (domain/Callbacks.ts)
 * with the run's event ids and its `certification` field, sent through PartnerCallbacks and signed as every callback
 * is (Signature.ts), or deliberately not, and each exchange written down for the report exactly as it went.
 */

/** How a callback is signed: as every callback, or in one of the ways a wallet must refuse. */
export type Signing =
  | { readonly _tag: "Valid" }
  /** With a secret that is not the partner's. */
  | { readonly _tag: "OtherSecret" }
  /** Correctly, but `seconds` ago (a replayed callback). */
  | { readonly _tag: "Stale"; readonly seconds: number }
  /** The signature of `body`, sent with another body. */
  | { readonly _tag: "OtherBody"; readonly body: string }

export const valid: Signing = { _tag: "Valid" }

/** The exchanges of one case, in the order they ended. */
export class CaseLog {
  readonly key: CaseKey
  readonly exchanges: Array<Exchange> = []
  constructor(key: CaseKey) {
    this.key = key
  }
}

export interface RunSetting {
  readonly id: string
  readonly target: CallbackTarget
  /** The test player, as its callbacks name it, in the run's currency (`party.currency`). */
  readonly party: CallbackParty
  readonly timeoutMillis: number
}

/** A round of the run: its transaction and round id are the run's (`cert_…_<name>`). */
export const roundOf = (runId: string, name: string): CallbackTransaction => ({
  txnId: `${runId}_${name}`,
  roundId: `${runId}_${name}`,
  gameCode: "certification",
  providerCode: "certification"
})

/** The calls of one run: it numbers their event ids, counts time-outs, and keeps every exchange for the timings. */
export const makeCalls = (setting: RunSetting, callbacks: PartnerCallbacks["Service"]) => {
  let sent = 0
  let timedOut = 0
  const all: Array<Exchange> = []
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
  const nextEventId = () => certificationEventId(setting.id, ++sent)

  const headersFor = (signing: Signing, eventId: string, body: string) => (at: Date) => {
    const secrets = signingSecrets(setting.target, at)
    const signed = (() => {
      switch (signing._tag) {
        case "Valid":
          return signedAt(setting.target, eventId, body)(at)
        case "OtherSecret":
          return signedHeaders([`whsec_${randomBytes(32).toString("hex")}`], eventId, body, at)
        case "Stale":
          return signedHeaders(secrets, eventId, body, new Date(at.getTime() - signing.seconds * 1000))
        case "OtherBody":
          return signedHeaders(secrets, eventId, signing.body, at)
      }
    })()
    return { ...signed, [certificationHeader]: setting.id }
  }

  // Bodies are cut here, as the exchange is made: nothing a wallet answers grows a report past keptBodyBytes a body.
  const exchangeOf = (label: string, body: string, sentCallback: SentCallback, reading: string): Exchange => ({
    label,
    sentAt: sentCallback.sentAt,
    millis: sentCallback.millis,
    request: { headers: { ...sentCallback.headers }, ...keptBody(body) },
    response: sentCallback.answer === null
      ? null
      : {
        status: sentCallback.answer.status,
        ...(sentCallback.answer.text === undefined
          ? { body: null, bodyBytes: null }
          : keptBody(sentCallback.answer.text))
      },
    error: sentCallback.failure?.message ?? null,
    reading
  })

  const send = (
    log: CaseLog,
    label: string,
    eventId: string,
    body: string,
    signing: Signing,
    read: (sent: SentCallback) => string
  ) =>
    Effect.map(callbacks.send(setting.target, eventId, body, headersFor(signing, eventId, body)), (sentCallback) => {
      if (sentCallback.failure?.reason === "Timeout") timedOut++
      const exchange = exchangeOf(label, body, sentCallback, read(sentCallback))
      log.exchanges.push(exchange)
      all.push(exchange)
      return sentCallback
    })

  /**
   * A balance or a bet: the answer as the wallet reads one, its balance in `currency` (the run's unless the call was
   * in another): finer than the currency's minor unit is no usable answer.
   */
  const ask = (
    log: CaseLog,
    label: string,
    eventId: string,
    body: string,
    signing: Signing = valid,
    currency: Currency = setting.party.currency
  ) =>
    Effect.map(
      send(
        log,
        label,
        eventId,
        body,
        signing,
        (sentCallback) => answerReading(answerOfSent(sentCallback, currency), currency)
      ),
      (sentCallback) => answerOfSent(sentCallback, currency)
    )

  /** A notification (win, refund, rollback): whether the wallet acknowledged it with a 2xx. */
  const notify = (log: CaseLog, label: string, eventId: string, body: string) =>
    send(log, label, eventId, body, valid, (sentCallback) =>
      sentCallback.answer === null
        ? `no answer: ${sentCallback.failure?.message ?? "none"}`
        : isAcknowledged(sentCallback)
        ? `acknowledged (HTTP ${sentCallback.answer.status})`
        : `not acknowledged: HTTP ${sentCallback.answer.status}`).pipe(Effect.map(isAcknowledged))

  const bodyOf = (log: CaseLog, body: string, eventId: string, rollsBack?: string) =>
    certificationBody(body, { id: setting.id, key: log.key }, eventId, rollsBack)

  return {
    nextEventId,
    timedOut: () => timedOut,
    exchanges: (): ReadonlyArray<Exchange> => all,

    /** The test player's balance (or `party`'s), as the wallet answers it. */
    balance: (log: CaseLog, label = "balance", party: CallbackParty = setting.party) =>
      Effect.gen(function*() {
        const eventId = nextEventId()
        return yield* ask(
          log,
          label,
          eventId,
          bodyOf(log, balanceBody(party, yield* now).body, eventId),
          valid,
          party.currency
        )
      }),

    /** A bet's callback body and its event id, to be sent (once, or as the case repeats it). */
    betCall: (
      log: CaseLog,
      round: CallbackTransaction,
      amount: Minor,
      options: { readonly party?: CallbackParty; readonly eventId?: string } = {}
    ) =>
      Effect.map(now, (at) => {
        const eventId = options.eventId ?? nextEventId()
        return { eventId, body: bodyOf(log, betBody(options.party ?? setting.party, round, amount, at), eventId) }
      }),

    ask,
    notify,

    win: (log: CaseLog, round: CallbackTransaction, amount: Minor) =>
      Effect.gen(function*() {
        const eventId = nextEventId()
        const body = bodyOf(log, winBody(setting.party, round, amount, null, yield* now), eventId)
        return { eventId, body, label: `win ${amountText(amount, setting.party.currency)} (round ${round.roundId})` }
      }),

    /** A refund of `round`: its stake back less its win (`amount`, negative when the win was larger). */
    refund: (log: CaseLog, round: CallbackTransaction, stakes: { readonly bet: Minor; readonly win: Minor }) =>
      Effect.gen(function*() {
        const eventId = nextEventId()
        const amount = stakes.bet - stakes.win
        const refundTxn = { ...round, txnId: `${round.txnId}_refund` }
        const body = bodyOf(log, refundBody(setting.party, refundTxn, stakes, amount, null, yield* now), eventId)
        return yield* notify(
          log,
          `refund of round ${round.roundId} (amount ${amountText(amount, setting.party.currency)})`,
          eventId,
          body
        )
      }),

    /** A rollback of the bet `betEventId` of `round`: the stake back if the wallet took it. */
    rollback: (
      log: CaseLog,
      round: CallbackTransaction,
      amount: Minor,
      betEventId: string,
      label = `rollback of the bet of round ${round.roundId}`,
      party: CallbackParty = setting.party
    ) =>
      Effect.gen(function*() {
        const eventId = nextEventId()
        return yield* notify(
          log,
          label,
          eventId,
          bodyOf(log, rollbackBody(party, round, amount, yield* now), eventId, betEventId)
        )
      })
  }
}

export type Calls = ReturnType<typeof makeCalls>

const isAcknowledged = (sentCallback: SentCallback) =>
  sentCallback.answer !== null && sentCallback.answer.status >= 200 && sentCallback.answer.status < 300
