import { Effect } from "effect"
import { type CaseResult, timingOf, timingProblems, wordsIn } from "../../domain/Certification.ts"
import { caseAmounts, type CaseKey, caseKeys } from "../../domain/CertificationCaseTexts.ts"
import type { Minor } from "../../domain/Money.ts"
import type { PartnerCallbacks } from "../outbox/PartnerCallbacks.ts"
import type { RunSetting } from "./CertificationCalls.ts"
import { balanceOf, type Finding, makeSteps, notSentReason } from "./CaseSteps.ts"
import { hub88Cases } from "./Hub88Cases.ts"
import { refusalCases } from "./RefusalCases.ts"
import { repeatCases } from "./RepeatCases.ts"

/**
 * The cases of a certification run, in order (domain/CertificationCaseTexts.ts says what each checks and catches).
 * Each case starts from a balance the run read (the one the previous case ended with, or read again when that one
 * could not be read) and ends by reading it; every case gives back what it moved (a refund, a rollback; a stake a
 * wallet may have taken when it should have refused is given back by a rollback), a case whose wallet ended it
 * elsewhere than it should is put right by a refund of the difference (CaseSteps `money`), so one fault fails one
 * case, and the free round's win that funds the run is taken back at the end. A run the service could not send (the
 * URL policy, DNS) stops, its cases not run. A run
 * with no starting balance, or after three calls without an answer in time, stops: the cases left are not run. Every
 * amount is in the run's currency (the test player's), scaled to it (domain/CertificationCaseTexts.ts CaseAmounts).
 * The cases that must leave the balance where it was are in RefusalCases.ts; those of events sent more than once or at
 * once in RepeatCases.ts, and in Hub88's terms (its rounds' bets, wins and rollbacks) in Hub88Cases.ts.
 */

/** Calls without an answer in time after which a run stops. */
const maxTimeouts = 3

/**
 * Runs every case against the partner's test wallet, handing each result to `record` as it finishes; the results in
 * order, and why the service could not send the run's calls if it could not (the run is then no verdict: not_run).
 */
export const certify = Effect.fnUntraced(function*(
  setting: RunSetting,
  callbacks: PartnerCallbacks["Service"],
  record: (result: CaseResult) => Effect.Effect<void>
) {
  const steps = makeSteps(setting, callbacks, record)
  const { balanceAfter, bet, calls, giveBack, money, results, round, run, skip } = steps
  const currency = setting.party.currency
  /** The run's amounts; `float`: a free round's win of 100 whole units, taken back at the end, so any starting balance can play the cases. */
  const { fineBet, fineWin, float, unit } = caseAmounts(currency)
  const { compared, reading, say } = wordsIn(currency)
  let start: Minor | undefined
  let floatCredited = false
  /** The bet case's stake as the service reckons it (the wallet answered a balance): what its round's refund gives back. */
  let betTaken: Minor = 0n

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

    ...repeatCases(setting, steps),

    ...hub88Cases(setting, steps),

    ...refusalCases(setting, steps),

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
                `moved, or was put right), and it ends at ${end === undefined ? "an unknown balance" : say(end)}.`,
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
    const notSent = calls.notSent()
    if (notSent !== undefined) {
      yield* skip(key, notSentReason(notSent))
    } else if (moneyCase && start === undefined) {
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
  return { results, notSent: calls.notSent() }
})
