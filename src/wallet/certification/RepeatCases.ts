/** The certification cases of events sent more than once, or at the same moment: what retries and traffic do. */
import { Effect } from "effect"
import { wordsIn } from "../../domain/Certification.ts"
import { caseAmounts } from "../../domain/CertificationCaseTexts.ts"
import type { Minor } from "../../domain/Money.ts"
import type { PartnerAnswer } from "../../domain/Wallet.ts"
import type { makeSteps } from "./CaseSteps.ts"
import type { RunSetting } from "./CertificationCalls.ts"

/**
 * Notifications are retried with the same event id and body, so a wallet must apply each event id once and answer a
 * repeat as it answered the first; and one player's events overlap in production (a win arrives while a bet waits),
 * so a wallet must not lose one update under another. Each case gives back what it moved. Played over the run's
 * steps, in the order certify sends them.
 */
export const repeatCases = (setting: RunSetting, steps: ReturnType<typeof makeSteps>) => {
  const { balanceAfter, calls, money, round } = steps
  const currency = setting.party.currency
  const amounts = caseAmounts(currency)
  const { compared, reading, say } = wordsIn(currency)
  /** A stake the wallet took (it answered a balance) or may have taken (no usable answer): a rollback settles both. */
  const mayHaveTaken = (answer: PartnerAnswer) => answer._tag === "Balance" || answer._tag === "Unavailable"

  /** A bet of `amount` in round `name`, its call kept for a repeat; what the wallet answered. */
  const placed = (log: Parameters<typeof calls.betCall>[0], name: string, amount: Minor) =>
    Effect.gen(function*() {
      const call = yield* calls.betCall(log, round(name), amount)
      const answer = yield* calls.ask(log, `bet ${say(amount)} (round ${round(name).roundId})`, call.eventId, call.body)
      return { call, answer }
    })

  return {
    repeat: money("repeat", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const { answer: first, call } = yield* placed(log, "repeat", amounts.repeatBet)
        const second = yield* calls.ask(
          log,
          "the same bet again (same event id and body, signed anew)",
          call.eventId,
          call.body
        )
        if (reading(first) !== reading(second)) {
          problems.push(`The two answers differ: ${reading(first)}, then ${reading(second)}.`)
        }
        const taken = first._tag === "Balance" ? amounts.repeatBet : 0n
        if (first._tag !== "Balance") problems.push(`The bet was answered: ${reading(first)}.`)
        if (first._tag === "Unavailable") {
          yield* calls.rollback(
            log,
            round("repeat"),
            amounts.repeatBet,
            call.eventId,
            "rollback of the bet that got no usable answer, as the service sends one"
          )
        }
        const win = yield* calls.win(log, round("repeat"), amounts.repeatWin)
        const acknowledged = [
          yield* calls.notify(log, win.label, win.eventId, win.body),
          yield* calls.notify(log, `the same ${win.label} again`, win.eventId, win.body)
        ]
        if (!acknowledged.every(Boolean)) problems.push("The win, sent twice, was not acknowledged both times.")
        const middle = yield* balanceAfter(log, "balance after the bet and the win, each sent twice")
        problems.push(
          ...compared("after the bet and the win, each sent twice,", middle, before - taken + amounts.repeatWin)
        )
        yield* calls.refund(log, round("repeat"), { bet: taken, win: amounts.repeatWin })
        const after = yield* balanceAfter(log, "balance after the round's refund")
        problems.push(...compared("after the round's refund", after, before))
        return { problems, before, expected: before, after }
      })),

    replay: money("replay", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const { answer: first, call } = yield* placed(log, "replay", amounts.replayBet)
        if (first._tag !== "Balance") problems.push(`The bet was answered: ${reading(first)}.`)
        const taken = mayHaveTaken(first) ? amounts.replayBet : 0n
        // The balance moves between the bet and its replay: the replay must get the first answer, not today's balance.
        const win = yield* calls.win(log, round("replay"), amounts.replayWin)
        yield* calls.notify(log, win.label, win.eventId, win.body)
        const again = yield* calls.ask(
          log,
          "the same bet replayed after the win (same event id and body, signed anew)",
          call.eventId,
          call.body
        )
        if (reading(again) !== reading(first)) {
          problems.push(
            `The replay was answered ${reading(again)}, not as the bet was first answered (${reading(first)}).`
          )
        }
        const middle = yield* balanceAfter(log, "balance after the bet, the win and the replay")
        if (first._tag === "Balance") {
          problems.push(
            ...compared("after the bet, the win and the replay", middle, before - taken + amounts.replayWin)
          )
        }
        if (first._tag !== "Balance") {
          yield* calls.rollback(log, round("replay"), amounts.replayBet, call.eventId)
        }
        yield* calls.refund(log, round("replay"), {
          bet: first._tag === "Balance" ? taken : 0n,
          win: amounts.replayWin
        })
        const after = yield* balanceAfter(log, "balance after the round's refund")
        problems.push(...compared("after the round's refund", after, before))
        return { problems, before, expected: before, after }
      })),

    repeated_refund: money("repeated_refund", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const { answer } = yield* placed(log, "repeated_refund", amounts.repeatedRefundBet)
        if (answer._tag !== "Balance") problems.push(`The bet was answered: ${reading(answer)}.`)
        const stake = answer._tag === "Balance" ? amounts.repeatedRefundBet : 0n
        const refund = yield* calls.refundCall(log, round("repeated_refund"), { bet: stake, win: 0n })
        const acknowledged = [
          yield* calls.notify(log, refund.label, refund.eventId, refund.body),
          yield* calls.notify(log, `the same ${refund.label} again`, refund.eventId, refund.body)
        ]
        if (!acknowledged.every(Boolean)) problems.push("The refund, sent twice, was not acknowledged both times.")
        const after = yield* balanceAfter(log, "balance after the refund, sent twice")
        problems.push(...compared("after the refund, sent twice,", after, before))
        return { problems, before, expected: before, after }
      })),

    repeated_rollback: money("repeated_rollback", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const { answer, call } = yield* placed(log, "repeated_rollback", amounts.repeatedRollbackBet)
        if (answer._tag !== "Balance") problems.push(`The bet was answered: ${reading(answer)}.`)
        const rollback = yield* calls.rollbackCall(
          log,
          round("repeated_rollback"),
          amounts.repeatedRollbackBet,
          call.eventId
        )
        const acknowledged = [
          yield* calls.notify(log, rollback.label, rollback.eventId, rollback.body),
          yield* calls.notify(log, `the same ${rollback.label} again`, rollback.eventId, rollback.body)
        ]
        if (!acknowledged.every(Boolean)) problems.push("The rollback, sent twice, was not acknowledged both times.")
        const after = yield* balanceAfter(log, "balance after the rollback, sent twice")
        problems.push(...compared("after the rollback, sent twice,", after, before))
        return { problems, before, expected: before, after }
      })),

    same_id_other_body: money("same_id_other_body", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const { answer: first, call } = yield* placed(log, "same_id", amounts.sameIdBet)
        if (first._tag !== "Balance") problems.push(`The bet was answered: ${reading(first)}.`)
        const other = yield* calls.betCall(log, round("same_id"), amounts.sameIdOtherBet, { eventId: call.eventId })
        const second = yield* calls.ask(
          log,
          `a bet of ${say(amounts.sameIdOtherBet)} under the same event id (another body, validly signed)`,
          other.eventId,
          other.body
        )
        // Refused, or answered as the first: either way the second body moves nothing.
        if (second._tag === "Balance" && reading(second) !== reading(first)) {
          problems.push(`The other body was answered ${reading(second)}, as a bet of its own.`)
        }
        const middle = yield* balanceAfter(log, "balance after both bodies")
        const taken = mayHaveTaken(first) ? amounts.sameIdBet : 0n
        if (first._tag === "Balance") problems.push(...compared("after both bodies", middle, before - taken))
        yield* calls.rollback(log, round("same_id"), amounts.sameIdBet, call.eventId)
        const after = yield* balanceAfter(log, "balance after the bet's rollback")
        problems.push(...compared("after the bet's rollback", after, before))
        return { problems, before, expected: before, after }
      })),

    concurrent: money("concurrent", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const call = yield* calls.betCall(log, round("concurrent"), amounts.concurrentBet)
        const answers = yield* Effect.forEach(
          Array.from({ length: 20 }, (_, i) => i + 1),
          (n) =>
            calls.ask(
              log,
              `copy ${n} of 20 of the bet ${say(amounts.concurrentBet)} (one event id), sent at once`,
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
        const taken = answers.some((answer) => answer._tag === "Balance") ? amounts.concurrentBet : 0n
        if (taken === 0n) problems.push(`The bet was answered: ${reading(answers[0])}.`)
        const middle = yield* balanceAfter(log, "balance after the 20 copies")
        problems.push(...compared("after the 20 copies", middle, before - taken))
        yield* calls.rollback(log, round("concurrent"), amounts.concurrentBet, call.eventId)
        const after = yield* balanceAfter(log, "balance after the bet's rollback")
        problems.push(...compared("after the bet's rollback", after, before))
        return { problems, before, expected: before, after }
      })),

    in_flight: money("in_flight", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        // A win of another round while a bet waits: both must land.
        const bet = yield* calls.betCall(log, round("in_flight_bet"), amounts.inFlightBet)
        const win = yield* calls.win(log, round("in_flight_win"), amounts.inFlightWin)
        const [answer] = yield* Effect.all([
          calls.ask(
            log,
            `bet ${say(amounts.inFlightBet)} (round ${round("in_flight_bet").roundId}), sent with the win`,
            bet.eventId,
            bet.body
          ),
          calls.notify(log, `${win.label}, sent with the bet`, win.eventId, win.body)
        ], { concurrency: "unbounded" })
        if (answer._tag !== "Balance") problems.push(`The bet was answered: ${reading(answer)}.`)
        const stake = mayHaveTaken(answer) ? amounts.inFlightBet : 0n
        const first = yield* balanceAfter(log, "balance after the bet and the win")
        if (answer._tag === "Balance") {
          problems.push(...compared("after the bet and the win at once", first, before - stake + amounts.inFlightWin))
        }
        // The bet's refund while another win waits.
        const second = yield* calls.win(log, round("in_flight_second"), amounts.inFlightSecondWin)
        const refund = yield* calls.refundCall(log, round("in_flight_bet"), {
          bet: answer._tag === "Balance" ? stake : 0n,
          win: 0n
        })
        yield* Effect.all([
          calls.notify(log, `${second.label}, sent with the refund`, second.eventId, second.body),
          calls.notify(log, `${refund.label}, sent with the win`, refund.eventId, refund.body)
        ], { concurrency: "unbounded" })
        if (answer._tag === "Unavailable") {
          yield* calls.rollback(log, round("in_flight_bet"), amounts.inFlightBet, bet.eventId)
        }
        const middle = yield* balanceAfter(log, "balance after the refund and the second win")
        const won = amounts.inFlightWin + amounts.inFlightSecondWin
        problems.push(...compared("after the refund and the second win at once", middle, before + won))
        // The two wins taken back by their rounds' refunds, one after the other.
        yield* calls.refund(log, round("in_flight_win"), { bet: 0n, win: amounts.inFlightWin })
        yield* calls.refund(log, round("in_flight_second"), { bet: 0n, win: amounts.inFlightSecondWin })
        const after = yield* balanceAfter(log, "balance after the wins' refunds")
        problems.push(...compared("after the wins' refunds", after, before))
        return { problems, before, expected: before, after }
      }))
  }
}
