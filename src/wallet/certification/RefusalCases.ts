/** The certification cases that must leave the test player's balance where it was: refusals and strangers. */
import { Effect } from "effect"
import { wordsIn } from "../../domain/Certification.ts"
import { amountText, caseAmounts, otherCurrencyOf } from "../../domain/CertificationCaseTexts.ts"
import type { makeSteps } from "./CaseSteps.ts"
import { type RunSetting, type Signing, valid } from "./CertificationCalls.ts"

/**
 * The cases a correct wallet refuses, or answers without moving the run's balance: a bet after its rollback, three
 * badly signed bets, a bet past the balance, a player it never saw, a bet in another currency. Each gives back a stake
 * it should not have taken. Played over the run's steps, in the order certify sends them.
 */
export const refusalCases = (setting: RunSetting, steps: ReturnType<typeof makeSteps>) => {
  const { balanceAfter, calls, money, refusedBet, round } = steps
  const currency = setting.party.currency
  const { otherBody, unit } = caseAmounts(currency)
  const { compared, reading, say } = wordsIn(currency)

  /** A bet signed in a way the wallet must refuse. */
  const badlySigned = (
    key: "bad_signature" | "stale_timestamp" | "other_body",
    label: string,
    signing: (other: string) => Signing
  ) =>
    money(key, (log, before) =>
      Effect.gen(function*() {
        const call = yield* calls.betCall(log, round(key), unit)
        // Another body of the same event: the same bet, of 10 whole units and one minor unit.
        const other = yield* calls.betCall(log, round(key), otherBody, { eventId: call.eventId })
        const { answer, given, problems } = yield* refusedBet(
          log,
          before,
          { name: key, amount: unit, label, call },
          signing(other.body)
        )
        return {
          problems: [
            ...(answer._tag === "Balance" ? [`The bet was accepted: it was answered ${reading(answer)}.`] : []),
            ...problems
          ],
          before,
          expected: before,
          after: given
        }
      }))

  return {
    rollback_first: money("rollback_first", (log, before) =>
      Effect.gen(function*() {
        const betEventId = calls.nextEventId()
        const acknowledged = yield* calls.rollback(
          log,
          round("late"),
          unit,
          betEventId,
          "rollback of a bet the wallet has not seen yet"
        )
        const call = yield* calls.betCall(log, round("late"), unit, { eventId: betEventId })
        const { answer, given, problems } = yield* refusedBet(log, before, {
          name: "late",
          amount: unit,
          label: "the bet, arriving after its rollback",
          call
        })
        return {
          problems: [
            ...(acknowledged ? [] : ["The rollback was not acknowledged with a 2xx."]),
            ...(answer._tag === "Balance"
              ? [`The bet was applied although its rollback came first: it was answered ${reading(answer)}.`]
              : []),
            ...problems
          ],
          before,
          expected: before,
          after: given
        }
      })),

    bad_signature: badlySigned(
      "bad_signature",
      `bet ${say(unit)} signed with another secret`,
      () => ({ _tag: "OtherSecret" })
    ),
    stale_timestamp: badlySigned(
      "stale_timestamp",
      `bet ${say(unit)} signed correctly 10 minutes ago`,
      () => ({ _tag: "Stale", seconds: 600 })
    ),
    other_body: badlySigned(
      "other_body",
      `bet ${say(unit)} carrying the signature of the same bet of ${say(otherBody)}`,
      (body) => ({ _tag: "OtherBody", body })
    ),

    insufficient_funds: money("insufficient_funds", (log, before) =>
      Effect.gen(function*() {
        const amount = before + unit
        const call = yield* calls.betCall(log, round("insufficient"), amount)
        const { answer, given, problems } = yield* refusedBet(log, before, {
          name: "insufficient",
          amount,
          label: `bet ${say(amount)}, ${say(unit)} more than the balance`,
          call
        })
        return {
          problems: [
            ...(answer._tag === "InsufficientFunds"
              ? []
              : [`The bet was answered ${reading(answer)}, not {"error": "insufficient_funds"}.`]),
            ...problems
          ],
          before,
          expected: before,
          after: given
        }
      })),

    unknown_player: money("unknown_player", (log, before) =>
      Effect.gen(function*() {
        const stranger = { ...setting.party, externalPlayerId: `${setting.id}_unknown`, userCode: 0 }
        const problems: Array<string> = []
        const asked = yield* calls.balance(
          log,
          `balance of ${stranger.externalPlayerId}, a player the wallet never saw`,
          stranger
        )
        if (asked._tag !== "UnknownPlayer") {
          problems.push(`Its balance was answered ${reading(asked)}, not {"error": "unknown_player"}.`)
        }
        const call = yield* calls.betCall(log, round("unknown"), unit, { party: stranger })
        const answer = yield* calls.ask(log, `bet ${say(unit)} of that player`, call.eventId, call.body)
        if (answer._tag !== "UnknownPlayer") {
          problems.push(`Its bet was answered ${reading(answer)}, not {"error": "unknown_player"}.`)
        }
        if (answer._tag === "Balance") {
          yield* calls.rollback(
            log,
            round("unknown"),
            unit,
            call.eventId,
            "give back: a rollback of that player's bet",
            stranger
          )
        }
        const after = yield* balanceAfter(log, "balance of the test player")
        problems.push(...compared("of the test player afterwards", after, before))
        return { problems, before, expected: before, after }
      })),

    other_currency: money("other_currency", (log, before) =>
      Effect.gen(function*() {
        const other = otherCurrencyOf(currency)
        const party = { ...setting.party, currency: other }
        const stake = caseAmounts(other).unit
        const call = yield* calls.betCall(log, round("other_currency"), stake, { party })
        const answer = yield* calls.ask(
          log,
          `bet ${amountText(stake, other)} of the test player, in ${other.code}`,
          call.eventId,
          call.body,
          valid,
          other
        )
        // Read before anything is given back: a wallet that took the stake from this balance shows it here.
        const middle = yield* balanceAfter(log, `balance in ${currency.code} after the bet in ${other.code}`)
        const problems = [
          ...compared(`in ${currency.code} after the bet of ${amountText(stake, other)}`, middle, before)
        ]
        // A stake taken (or perhaps taken: no usable answer) in that currency is given back, as the service would.
        if (answer._tag === "Balance" || answer._tag === "Unavailable") {
          yield* calls.rollback(
            log,
            round("other_currency"),
            stake,
            call.eventId,
            `give back: a rollback of the bet in ${other.code}`,
            party
          )
          const after = yield* balanceAfter(log, "balance after the give-back")
          problems.push(...compared("after the give-back", after, before))
          return { problems, before, expected: before, after }
        }
        return { problems, before, expected: before, after: middle }
      }))
  }
}
