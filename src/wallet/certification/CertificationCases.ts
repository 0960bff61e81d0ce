import { Effect } from "effect"
import {
  amountText,
  answerReading,
  caseAmounts,
  type CaseKey,
  caseKeys,
  type CaseResult,
  compared as comparedIn,
  otherCurrencyOf,
  timingOf,
  timingProblems
} from "../../domain/Certification.ts"
import type { Minor } from "../../domain/Money.ts"
import type { PartnerCallbacks } from "../outbox/PartnerCallbacks.ts"
import { type RunSetting, type Signing, valid } from "./CertificationCalls.ts"
import { balanceOf, type Finding, makeSteps } from "./CaseSteps.ts"

/**
 * The cases of a certification run, in order (domain/Certification.ts says what each checks and catches). Each case
 * starts from the balance the previous one left and ends by reading it, so one failure does not make the next case
 * fail; every case gives back what it moved (a refund, a rollback; a stake a wallet took when it should have refused
 * is given back by a rollback), and the free round's win that funds the run is taken back at the end. A run with no
 * starting balance, or after three calls without an answer in time, stops: the cases left are not run. Every amount
 * is in the run's currency (the test player's), scaled to it (domain/Certification.ts CaseAmounts).
 */

/** Calls without an answer in time after which a run stops. */
const maxTimeouts = 3

/**
 * Runs every case against the partner's test wallet, handing each result to `record` as it finishes; the results in
 * order.
 */
export const certify = Effect.fnUntraced(function*(
  setting: RunSetting,
  callbacks: PartnerCallbacks["Service"],
  record: (result: CaseResult) => Effect.Effect<void>
) {
  const { balanceAfter, bet, calls, giveBack, money, refusedBet, results, round, run, skip } = makeSteps(
    setting,
    callbacks,
    record
  )
  const currency = setting.party.currency
  /** The run's amounts; `float`: a free round's win of 100 whole units, taken back at the end, so any starting balance can play the cases. */
  const { concurrentBet, fineBet, fineWin, float, otherBody, repeatBet, repeatWin, unit } = caseAmounts(currency)
  const compared = (what: string, observed: Minor | undefined, expected: Minor) =>
    comparedIn(what, observed, expected, currency)
  const reading = (answer: Parameters<typeof answerReading>[0]) => answerReading(answer, currency)
  const say = (minor: Minor) => amountText(minor, currency)
  let start: Minor | undefined
  let floatCredited = false
  /** The bet case's stake as the service reckons it (the wallet answered a balance): what its round's refund gives back. */
  let betTaken: Minor = 0n

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

  const cases: Readonly<Record<CaseKey, Effect.Effect<void>>> = {
    balance: run("balance", (log) =>
      Effect.map(calls.balance(log, "balance of the test player"), (answer): Finding => {
        start = balanceOf(answer)
        return start === undefined
          ? { problems: [`The balance was answered: ${reading(answer)}.`] }
          : { problems: [], after: start }
      })),

    win: money("win", (log, before) =>
      Effect.gen(function*() {
        const win = yield* calls.win(log, round("float"), float)
        const acknowledged = yield* calls.notify(log, `${win.label}: the run's float`, win.eventId, win.body)
        const after = yield* balanceAfter(log)
        floatCredited = after === undefined ? acknowledged : after - before >= float
        return {
          problems: [
            ...(acknowledged ? [] : ["The win was not acknowledged with a 2xx."]),
            ...compared("after the win", after, before + float)
          ],
          before,
          expected: before + float,
          after
        }
      })),

    bet: money("bet", (log, before) =>
      Effect.gen(function*() {
        const answer = yield* bet(log, "bet", unit)
        if (answer._tag === "Balance") betTaken = unit
        const expected = before - unit
        const problems = answer._tag !== "Balance"
          ? [`The bet was answered: ${reading(answer)}.`]
          : compared("in the bet's answer", answer.balance, expected)
        const after = yield* balanceAfter(log)
        return { problems: [...problems, ...compared("afterwards", after, expected)], before, expected, after }
      })),

    refund: money("refund", (log, before) =>
      Effect.gen(function*() {
        const acknowledged = yield* calls.refund(log, round("bet"), { bet: betTaken, win: 0n })
        const after = yield* balanceAfter(log)
        const expected = before + betTaken
        return {
          problems: [
            ...(acknowledged ? [] : ["The refund was not acknowledged with a 2xx."]),
            ...compared("after the refund", after, expected)
          ],
          before,
          expected,
          after
        }
      })),

    rollback: money("rollback", (log, before) =>
      Effect.gen(function*() {
        const call = yield* calls.betCall(log, round("rollback"), unit)
        const answer = yield* calls.ask(
          log,
          `bet ${say(unit)} (round ${round("rollback").roundId})`,
          call.eventId,
          call.body
        )
        const acknowledged = yield* calls.rollback(log, round("rollback"), unit, call.eventId)
        const after = yield* balanceAfter(log)
        return {
          problems: [
            ...(answer._tag === "Balance"
              ? compared("in the bet's answer", answer.balance, before - unit)
              : [`The bet was answered: ${reading(answer)}.`]),
            ...(acknowledged ? [] : ["The rollback was not acknowledged with a 2xx."]),
            ...compared("after the rollback", after, before)
          ],
          before,
          expected: before,
          after
        }
      })),

    repeat: money("repeat", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const call = yield* calls.betCall(log, round("repeat"), repeatBet)
        const first = yield* calls.ask(log, `bet ${say(repeatBet)}`, call.eventId, call.body)
        const second = yield* calls.ask(
          log,
          "the same bet again (same event id and body, signed anew)",
          call.eventId,
          call.body
        )
        if (reading(first) !== reading(second)) {
          problems.push(`The two answers differ: ${reading(first)}, then ${reading(second)}.`)
        }
        const taken = first._tag === "Balance" ? repeatBet : 0n
        if (first._tag !== "Balance") problems.push(`The bet was answered: ${reading(first)}.`)
        if (first._tag === "Unavailable") {
          yield* calls.rollback(
            log,
            round("repeat"),
            repeatBet,
            call.eventId,
            "rollback of the bet that got no usable answer, as the service sends one"
          )
        }
        const win = yield* calls.win(log, round("repeat"), repeatWin)
        const acknowledged = [
          yield* calls.notify(log, win.label, win.eventId, win.body),
          yield* calls.notify(log, `the same ${win.label} again`, win.eventId, win.body)
        ]
        if (!acknowledged.every(Boolean)) problems.push("The win, sent twice, was not acknowledged both times.")
        const middle = yield* balanceAfter(log, "balance after the bet and the win, each sent twice")
        problems.push(...compared("after the bet and the win, each sent twice,", middle, before - taken + repeatWin))
        yield* calls.refund(log, round("repeat"), { bet: taken, win: repeatWin })
        const after = yield* balanceAfter(log, "balance after the round's refund")
        problems.push(...compared("after the round's refund", after, before))
        return { problems, before, expected: before, after }
      })),

    concurrent: money("concurrent", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const call = yield* calls.betCall(log, round("concurrent"), concurrentBet)
        const answers = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i + 1),
          (n) =>
            calls.ask(
              log,
              `copy ${n} of 20 of the bet ${say(concurrentBet)} (one event id), sent at once`,
              call.eventId,
              call.body
            ),
          { concurrency: "unbounded" }
        )
        const readings = new Map<string, number>()
        for (const answer of answers) {
          readings.set(reading(answer), (readings.get(reading(answer)) ?? 0) + 1)
        }
        if (readings.size > 1) {
          problems.push(
            `The 20 answers differ: ${[...readings].map(([reading, n]) => `${n} × ${reading}`).join("; ")}.`
          )
        }
        const taken = answers.some((answer) => answer._tag === "Balance") ? concurrentBet : 0n
        if (taken === 0n) problems.push(`The bet was answered: ${reading(answers[0])}.`)
        const middle = yield* balanceAfter(log, "balance after the 20 copies")
        problems.push(...compared("after the 20 copies", middle, before - taken))
        yield* calls.rollback(log, round("concurrent"), concurrentBet, call.eventId)
        const after = yield* balanceAfter(log, "balance after the bet's rollback")
        problems.push(...compared("after the bet's rollback", after, before))
        return { problems, before, expected: before, after }
      })),

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
      })),

    two_decimals: money("two_decimals", (log, before) =>
      Effect.gen(function*() {
        const answer = yield* bet(log, "decimals", fineBet)
        const taken = answer._tag === "Balance" ? fineBet : 0n
        const problems = answer._tag === "Balance"
          ? [...compared("in the bet's answer", answer.balance, before - fineBet)]
          : [`The bet was answered: ${reading(answer)}.`]
        const win = yield* calls.win(log, round("decimals"), fineWin)
        yield* calls.notify(log, win.label, win.eventId, win.body)
        const middle = yield* balanceAfter(log, "balance after the bet and the win")
        problems.push(
          ...compared(
            `after the bet of ${say(fineBet)} and the win of ${say(fineWin)}`,
            middle,
            before - taken + fineWin
          )
        )
        yield* calls.refund(log, round("decimals"), { bet: taken, win: fineWin })
        const after = yield* balanceAfter(log, "balance after the round's refund")
        problems.push(...compared("after the round's refund", after, before))
        return { problems, before, expected: before, after }
      })),

    zero_bet: money("zero_bet", (log, before) =>
      Effect.gen(function*() {
        const call = yield* calls.betCall(log, round("zero"), 0n)
        const answer = yield* calls.ask(log, `bet ${say(0n)}`, call.eventId, call.body)
        const problems: Array<string> = answer._tag === "Unavailable"
          ? [`The bet was answered: ${reading(answer)}.`]
          : answer._tag === "Balance"
          ? [...compared("in the bet's answer", answer.balance, before)]
          : []
        const after = yield* balanceAfter(log)
        problems.push(...compared("afterwards", after, before))
        const given = yield* giveBack(log, "zero", 0n, call.eventId, before, after)
        return { problems, before, expected: before, after: given }
      })),

    conservation: Effect.suspend(() =>
      start === undefined ?
        skip("conservation", "Not run: the starting balance could not be read (see Balance).") :
        run("conservation", (log) =>
          Effect.gen(function*() {
            if (floatCredited) yield* calls.refund(log, round("float"), { bet: 0n, win: float })
            const end = yield* balanceAfter(log, "the balance at the end")
            const problems = compared("at the end", end, start!)
            return {
              problems: problems.length === 0 ? [] : [
                `The balance started at ${say(start!)}, the cases moved ${say(0n)} in all (each gave back what it ` +
                `moved), and it ends at ${end === undefined ? "an unknown balance" : say(end)}.`,
                ...(end === undefined
                  ? []
                  : [`${end > start! ? "Created" : "Lost"}: ${say(end > start! ? end - start! : start! - end)}.`])
              ],
              before: start,
              expected: start,
              after: end
            }
          }))
    ),

    slowness: run("slowness", () =>
      Effect.sync(() => {
        const timing = timingOf(calls.exchanges(), setting.timeoutMillis, calls.timedOut())
        return { problems: timingProblems(timing), timing }
      }))
  }

  for (const key of caseKeys) {
    const moneyCase = key !== "balance" && key !== "conservation" && key !== "slowness"
    if (moneyCase && start === undefined) {
      yield* skip(key, "Not run: the test player's balance could not be read (see Balance).")
    } else if (moneyCase && calls.timedOut() >= maxTimeouts) {
      yield* skip(
        key,
        `Not run: the wallet did not answer in time ${maxTimeouts} times, so the run stopped (see Answer times).`
      )
    } else {
      yield* cases[key]
    }
  }
  return results
})
