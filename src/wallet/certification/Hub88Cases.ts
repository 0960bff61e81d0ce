/** The certification cases in Hub88's terms: the callbacks a Hub88 round sends the partner, and its rollback's race. */
import { Effect } from "effect"
import type { CallbackTransaction } from "../../domain/Callbacks.ts"
import { wordsIn } from "../../domain/Certification.ts"
import { caseAmounts } from "../../domain/CertificationCaseTexts.ts"
import type { Minor } from "../../domain/Money.ts"
import { type makeSteps, refusalProven } from "./CaseSteps.ts"
import type { CaseLog, RunSetting } from "./CertificationCalls.ts"

/**
 * A PlayFiver round reaches a partner as one bet and one win, undone whole by a `refund`; a Hub88 round does not
 * (integrations/hub88, domain/WalletDebits.ts): several bets and wins, each a transaction of its own in one round, a win
 * paying a named bet (also after the round closed), and a rollback undoing one bet, sent as the `rollback` notification
 * naming it (`rolls_back`), retried with the same event id. A wallet built for PlayFiver's rounds can fail those, so
 * they are sent as Hub88's are. Each case gives back what it moved, with Hub88's own calls only (no refund): the round's
 * wins pay back the stake that stays. Played over the run's steps, in the order certify sends them.
 */
export const hub88Cases = (setting: RunSetting, steps: ReturnType<typeof makeSteps>) => {
  const { balanceAfter, calls, money, round } = steps
  const currency = setting.party.currency
  const amounts = caseAmounts(currency)
  const { compared, reading, say } = wordsIn(currency)
  /** A transaction of round `name` (Hub88's transaction_uuid in its round): `cert_…_<name>_<part>`. */
  const transaction = (name: string, part: string): CallbackTransaction => ({
    ...round(name),
    txnId: `${round(name).txnId}_${part}`
  })

  /** A bet of `txn`, its call kept for the rollback that names it; what the wallet answered. */
  const placed = (log: CaseLog, txn: CallbackTransaction, amount: Minor, label: string) =>
    Effect.gen(function*() {
      const call = yield* calls.betCall(log, txn, amount)
      return { call, answer: yield* calls.ask(log, label, call.eventId, call.body) }
    })

  return {
    hub88_round: money("hub88_round", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const { hub88FirstBet: first, hub88LateWin: lateWin, hub88SecondBet: second, hub88Win: win } = amounts
        const roundId = round("hub88_round").roundId
        const one = yield* placed(
          log,
          transaction("hub88_round", "bet_1"),
          first,
          `first bet ${say(first)} (round ${roundId})`
        )
        if (one.answer._tag === "Balance") {
          problems.push(...compared("in the first bet's answer", one.answer.balance, before - first))
        } else {
          problems.push(`The first bet was answered: ${reading(one.answer)}.`)
          // As the service does with a bet it could not confirm: its stake back, if the wallet took it after all.
          if (one.answer._tag === "Unavailable") {
            yield* calls.rollback(log, transaction("hub88_round", "bet_1"), first, one.call.eventId)
          }
        }
        const taken = one.answer._tag === "Balance" ? first : 0n
        // The second bet's rollback comes below whatever it was answered: it gives back a stake the wallet took.
        const two = yield* placed(
          log,
          transaction("hub88_round", "bet_2"),
          second,
          `second bet ${say(second)} (round ${roundId})`
        )
        if (two.answer._tag === "Balance") {
          problems.push(...compared("in the second bet's answer", two.answer.balance, before - taken - second))
        } else {
          problems.push(`The second bet was answered: ${reading(two.answer)}.`)
        }
        const paid = yield* calls.win(log, transaction("hub88_round", "win_1"), win)
        const credited = yield* calls.notify(
          log,
          `win ${say(win)} paying the first bet (round ${roundId})`,
          paid.eventId,
          paid.body
        )
        // Hub88's rollback names one bet: the notification carries that bet's transaction and its event id.
        const rollback = yield* calls.rollbackCall(
          log,
          transaction("hub88_round", "bet_2"),
          second,
          two.call.eventId,
          `rollback of the second bet (round ${roundId})`
        )
        const rolledBack = [
          yield* calls.notify(log, rollback.label, rollback.eventId, rollback.body),
          yield* calls.notify(log, `the same ${rollback.label} again`, rollback.eventId, rollback.body)
        ]
        if (!rolledBack.every(Boolean)) problems.push("The rollback, sent twice, was not acknowledged both times.")
        const middle = yield* balanceAfter(log, "balance after the win and the rollback, sent twice")
        problems.push(
          ...compared("after the win and the second bet's rollback, sent twice,", middle, before - taken + win)
        )
        // Hub88 pays a win of a closed round while its bet stands: the round is no longer the wallet's to close.
        const late = yield* calls.win(log, transaction("hub88_round", "win_2"), lateWin)
        const lateCredited = yield* calls.notify(
          log,
          `win ${say(lateWin)} paying the first bet again, after the round closed (round ${roundId})`,
          late.eventId,
          late.body
        )
        if (!credited || !lateCredited) problems.push("A win was not acknowledged with a 2xx.")
        const after = yield* balanceAfter(log, "balance after the win that came after the round closed")
        problems.push(
          ...compared("after the win that came after the round closed", after, before - taken + win + lateWin)
        )
        // The wins pay back the first stake exactly: a wallet that took it ends where it started.
        return { problems, before, expected: before, after }
      })),

    hub88_race: money("hub88_race", (log, before) =>
      Effect.gen(function*() {
        const problems: Array<string> = []
        const stake = amounts.hub88RaceBet
        const txn = transaction("hub88_race", "bet")
        const bet = yield* calls.betCall(log, txn, stake)
        const rollback = yield* calls.rollbackCall(log, txn, stake, bet.eventId, "rollback of the bet, sent with it")
        const [{ answer, status }, acknowledged] = yield* Effect.all([
          calls.askWithStatus(
            log,
            `bet ${say(stake)} (round ${txn.roundId}), sent with its rollback`,
            bet.eventId,
            bet.body
          ),
          calls.notify(log, rollback.label, rollback.eventId, rollback.body)
        ], { concurrency: "unbounded" })
        if (!acknowledged) problems.push("The rollback, sent with its bet, was not acknowledged with a 2xx.")
        // A balance: the bet came first (its rollback gives the stake back). A refusal: the rollback came first.
        if (answer._tag === "Balance") {
          problems.push(...compared("in the bet's answer", answer.balance, before - stake))
        } else if (!refusalProven(answer, status)) {
          problems.push(`The bet was answered: ${reading(answer)}.`)
        }
        // No second rollback of the bet: this one already names it, and a wallet gives a stake back once per bet.
        const after = yield* balanceAfter(log, "balance after the bet and its rollback")
        const lost = compared("after the bet and its rollback at once", after, before)
        problems.push(...lost)
        if (lost.length > 0 && after === before - stake) {
          problems.push(
            answer._tag === "Balance"
              ? "The stake was taken and not given back: the rollback found no bet, or the bet was taken after it."
              : "The stake is gone, although the bet was not answered with a balance."
          )
        }
        return { problems, before, expected: before, after }
      }))
  }
}
