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
  keptBodiesBudget,
  keptBody,
  keptBodyBytes,
  keptBodyBytesPastBudget
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
export const makeCalls = (
  setting: RunSetting,
  callbacks: PartnerCallbacks["Service"],
  /** The event id of the n-th call: the run's own numbering unless another pass over the run (recovery) names its own. */
  eventIdOf: (n: number) => string = (n) => certificationEventId(setting.id, n)
) => {
  let sent = 0
  let timedOut = 0
  /** Why the service could not send a call (the URL policy, DNS): the run then says nothing of the wallet. */
  let notSent: string | undefined
  const all: Array<Exchange> = []
  const now = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis))
  const nextEventId = () => eventIdOf(++sent)

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

  /** Bytes of bodies the run's report keeps so far: past keptBodiesBudget, each body keeps its beginning only. */
  let kept = 0
  const keep = (text: string) => {
    const cut = keptBody(text, kept < keptBodiesBudget ? keptBodyBytes : keptBodyBytesPastBudget)
    kept += Buffer.byteLength(cut.body)
    return cut
  }

  // Bodies are cut here, as the exchange is made: nothing a wallet answers grows a report past its bounds.
  const exchangeOf = (label: string, body: string, sentCallback: SentCallback, reading: string): Exchange => ({
    label,
    sentAt: sentCallback.sentAt,
    millis: sentCallback.millis,
    request: { headers: { ...sentCallback.headers }, ...keep(body) },
    response: sentCallback.answer === null
      ? null
      : {
        status: sentCallback.answer.status,
        ...(sentCallback.answer.text === undefined
          ? { body: null, bodyBytes: null }
          : keep(sentCallback.answer.text))
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
      if (sentCallback.failure?.reason === "UnsafeUrl" || sentCallback.failure?.reason === "Unresolved") {
        notSent ??= sentCallback.failure.message
      }
      const exchange = exchangeOf(label, body, sentCallback, read(sentCallback))
      log.exchanges.push(exchange)
      all.push(exchange)
      return sentCallback
    })

  /**
   * A balance or a bet: the answer as the wallet reads one, its balance in `currency` (the run's unless the call was
   * in another): finer than the currency's minor unit is no usable answer.
   */
  const askWithStatus = (
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
      (sentCallback) => ({ answer: answerOfSent(sentCallback, currency), status: sentCallback.answer?.status ?? null })
    )
  const ask = (...args: Parameters<typeof askWithStatus>) => Effect.map(askWithStatus(...args), (asked) => asked.answer)

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

  const refundCall = (
    log: CaseLog,
    round: CallbackTransaction,
    stakes: { readonly bet: Minor; readonly win: Minor },
    fixedEventId?: string
  ) =>
    Effect.map(now, (at) => {
      const eventId = fixedEventId ?? nextEventId()
      const amount = stakes.bet - stakes.win
      const refundTxn = { ...round, txnId: `${round.txnId}_refund` }
      return {
        eventId,
        body: bodyOf(log, refundBody(setting.party, refundTxn, stakes, amount, null, at), eventId),
        label: `refund of round ${round.roundId} (amount ${amountText(amount, setting.party.currency)})`
      }
    })

  const rollbackCall = (
    log: CaseLog,
    round: CallbackTransaction,
    amount: Minor,
    betEventId: string,
    label = `rollback of the bet of round ${round.roundId}`,
    party: CallbackParty = setting.party
  ) =>
    Effect.map(now, (at) => {
      const eventId = nextEventId()
      return { eventId, body: bodyOf(log, rollbackBody(party, round, amount, at), eventId, betEventId), label }
    })

  return {
    nextEventId,
    timedOut: () => timedOut,
    notSent: () => notSent,
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
    /** The same, with the answer's HTTP status (null when none came): a refusal is proven by its status too. */
    askWithStatus,
    notify,

    win: (log: CaseLog, round: CallbackTransaction, amount: Minor) =>
      Effect.gen(function*() {
        const eventId = nextEventId()
        const body = bodyOf(log, winBody(setting.party, round, amount, null, yield* now), eventId)
        return { eventId, body, label: `win ${amountText(amount, setting.party.currency)} (round ${round.roundId})` }
      }),

    /** A refund of `round`, to be sent (once, or as a case repeats it): its stake back less its win. */
    refundCall,
    /** A refund of `round`, sent: its stake back less its win (`amount`, negative when the win was larger). */
    refund: (log: CaseLog, round: CallbackTransaction, stakes: { readonly bet: Minor; readonly win: Minor }) =>
      Effect.flatMap(refundCall(log, round, stakes), (call) => notify(log, call.label, call.eventId, call.body)),

    /** A rollback of the bet `betEventId` of `round`, to be sent (once, or as a case repeats it). */
    rollbackCall,
    /** A rollback of the bet `betEventId` of `round`, sent: the stake back if the wallet took it. */
    rollback: (
      log: CaseLog,
      round: CallbackTransaction,
      amount: Minor,
      betEventId: string,
      label?: string,
      party?: CallbackParty
    ) =>
      Effect.flatMap(
        rollbackCall(log, round, amount, betEventId, label, party),
        (call) => notify(log, call.label, call.eventId, call.body)
      )
  }
}

export type Calls = ReturnType<typeof makeCalls>

const isAcknowledged = (sentCallback: SentCallback) =>
  sentCallback.answer !== null && sentCallback.answer.status >= 200 && sentCallback.answer.status < 300
