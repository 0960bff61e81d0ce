import { Clock, Effect } from "effect"
import { type CaseResult, compared, type Timing } from "../../domain/Certification.ts"
import { amountText, type CaseKey, failureReason } from "../../domain/CertificationCaseTexts.ts"
import type { Minor } from "../../domain/Money.ts"
import type { PartnerAnswer } from "../../domain/Wallet.ts"
import type { PartnerCallbacks } from "../outbox/PartnerCallbacks.ts"
import { type Calls, CaseLog, makeCalls, roundOf, type RunSetting, type Signing } from "./CertificationCalls.ts"

/** What a case found: its problems (none: passed) and the test player's balance before, expected after, and after. */
export interface Finding {
  readonly problems: ReadonlyArray<string>
  readonly before?: Minor | undefined
  readonly expected?: Minor | undefined
  readonly after?: Minor | undefined
  readonly timing?: Timing | undefined
  /** The balance the next case starts from, when the case put the wallet right after `after` (CaseSteps `money`). */
  readonly next?: Minor | undefined
}

/**
 * Whether a bet's answer proves the wallet refused it: a refusal of the contract's (insufficient funds, unknown player)
 * or any 4xx status. A balance, a 2xx of another shape, a 5xx or no answer do not: the stake may have been taken.
 */
export const refusalProven = (answer: PartnerAnswer, status: number | null) =>
  answer._tag === "InsufficientFunds" || answer._tag === "UnknownPlayer" ||
  (answer._tag === "Unavailable" && status !== null && status >= 400 && status < 500)

/** A case the service could not play: the reason says it is the service's, not the wallet's. */
export const notSentReason = (why: string) =>
  `Not run: the service could not send the run's callbacks (${why.replace(/\.$/, "")}). This says nothing of the ` +
  "wallet: fix the test callback URL, or the service's reach, and run again."

/** The balance a wallet answered, if it answered one. */
export const balanceOf = (answer: PartnerAnswer) => answer._tag === "Balance" ? answer.balance : undefined

/**
 * The steps every case of a run is made of, over the run's calls: a case run and recorded as it finishes (or skipped),
 * the balance it starts from (the one the last case left, or read now) and ends with, a bet rolled back when it got no
 * usable answer, a bet the wallet must refuse, and a stake taken anyway given back.
 */
export const makeSteps = (
  setting: RunSetting,
  callbacks: PartnerCallbacks["Service"],
  record: (result: CaseResult) => Effect.Effect<void>
) => {
  const calls: Calls = makeCalls(setting, callbacks)
  const results: Array<CaseResult> = []
  const round = (name: string) => roundOf(setting.id, name)
  /** The balance the last case left, when it was read. */
  let known: Minor | undefined

  const finish = (
    key: CaseKey,
    log: CaseLog,
    status: CaseResult["status"],
    reason: string | null,
    finding: Partial<Finding>
  ) =>
    Effect.gen(function*() {
      const result: CaseResult = {
        key,
        status,
        reason,
        balanceBefore: finding.before ?? null,
        expectedBalance: finding.expected ?? null,
        balanceAfter: finding.after ?? null,
        timing: finding.timing ?? null,
        exchanges: log.exchanges,
        finishedAt: new Date(yield* Clock.currentTimeMillis)
      }
      results.push(result)
      yield* record(result)
    })

  const run = (key: CaseKey, body: (log: CaseLog) => Effect.Effect<Finding>) =>
    Effect.gen(function*() {
      const log = new CaseLog(key)
      const finding = yield* body(log)
      // The next case starts from this one's end only if it was read: otherwise it reads the balance again.
      known = "next" in finding ? finding.next : finding.after
      const notSent = calls.notSent()
      if (notSent !== undefined) {
        return yield* finish(key, log, "skipped", notSentReason(notSent), {})
      }
      yield* finish(
        key,
        log,
        finding.problems.length === 0 ? "passed" : "failed",
        finding.problems.length === 0 ? null : failureReason(key, finding.problems),
        finding
      )
    })

  const skip = (key: CaseKey, reason: string) => finish(key, new CaseLog(key), "skipped", reason, {})

  /** The balance the case starts from: the one the last case left, or read now. */
  const current = (log: CaseLog) =>
    known !== undefined ? Effect.succeed(known) : Effect.map(calls.balance(log, "balance before the case"), balanceOf)
  const balanceAfter = (log: CaseLog, label = "balance after the case") =>
    Effect.map(calls.balance(log, label), balanceOf)

  /**
   * A case the wallet ended elsewhere than it should have is put right by a refund of the difference, and the balance
   * read again: the next case starts where this one should have left it, and no money the case moved stays with (or
   * away from) the test player. The case has failed already (it compared). The win that funds the run is not: the
   * run's end takes back only a float that was credited.
   */
  const putRight = (key: CaseKey, log: CaseLog, finding: Finding): Effect.Effect<Finding> => {
    const { after, expected } = finding
    if (key === "win" || after === undefined || expected === undefined || after === expected) {
      return Effect.succeed(finding)
    }
    const missing = expected - after
    return Effect.gen(function*() {
      const call = yield* calls.refundCall(
        log,
        round(`${key}_put_right`),
        missing > 0n ? { bet: missing, win: 0n } : { bet: 0n, win: -missing }
      )
      yield* calls.notify(
        log,
        `put right: a refund of ${amountText(missing, setting.party.currency)}, to the balance the case should have ` +
          "left (a new event id)",
        call.eventId,
        call.body
      )
      return { ...finding, next: yield* balanceAfter(log, "balance after putting it right") }
    })
  }

  /** A case that needs to know the balance it starts from, put right if the wallet ended it elsewhere (putRight). */
  const money = (key: CaseKey, body: (log: CaseLog, before: Minor) => Effect.Effect<Finding>) =>
    run(key, (log) =>
      Effect.flatMap(current(log), (before) =>
        before === undefined
          ? Effect.succeed<Finding>({ problems: ["The balance could not be read before the case."] })
          : Effect.flatMap(body(log, before), (finding) => putRight(key, log, finding))))

  /**
   * A bet of `amount`; one that got no usable answer is rolled back, as the service rolls back a bet it could not
   * confirm, so the stake comes back if the wallet took it after all.
   */
  const bet = (
    log: CaseLog,
    name: string,
    amount: Minor,
    label = `bet ${amountText(amount, setting.party.currency)} (round ${round(name).roundId})`
  ) =>
    Effect.gen(function*() {
      const call = yield* calls.betCall(log, round(name), amount)
      const answer = yield* calls.ask(log, label, call.eventId, call.body)
      if (answer._tag === "Unavailable") {
        yield* calls.rollback(
          log,
          round(name),
          amount,
          call.eventId,
          "rollback of the bet that got no usable answer, as the service sends one"
        )
      }
      return answer
    })

  /** After a case whose stake the wallet should have refused, a stake it took anyway is given back by a rollback. */
  const giveBack = (
    log: CaseLog,
    name: string,
    amount: Minor,
    betEventId: string,
    before: Minor,
    after: Minor | undefined
  ) =>
    after !== undefined && after < before
      ? Effect.andThen(
        calls.rollback(
          log,
          round(name),
          amount,
          betEventId,
          "give back: a rollback of the stake the wallet took (a new event id)"
        ),
        balanceAfter(log, "balance after the give-back")
      )
      : Effect.succeed(after)

  /**
   * A bet the wallet must refuse (signed badly, too large, after its rollback): the balance must not move. Unless the
   * answer proves the refusal (refusalProven), the stake is given back by a rollback at once, as the service rolls
   * back a bet it could not confirm: an unreadable answer may hide a stake taken. A stake taken anyway is given back
   * too. Its answer, for the case to judge.
   */
  const refusedBet = (
    log: CaseLog,
    before: Minor,
    bet: {
      readonly name: string
      readonly amount: Minor
      readonly label: string
      readonly call: { readonly eventId: string; readonly body: string }
    },
    signing?: Signing
  ) =>
    Effect.gen(function*() {
      const { answer, status } = yield* calls.askWithStatus(log, bet.label, bet.call.eventId, bet.call.body, signing)
      if (!refusalProven(answer, status)) {
        yield* calls.rollback(
          log,
          round(bet.name),
          bet.amount,
          bet.call.eventId,
          "rollback of the bet, whose answer does not prove it was refused, as the service sends one"
        )
        const after = yield* balanceAfter(log)
        return {
          answer,
          problems: compared("after it and its rollback", after, before, setting.party.currency),
          given: after
        }
      }
      const after = yield* balanceAfter(log)
      const given = yield* giveBack(log, bet.name, bet.amount, bet.call.eventId, before, after)
      return { answer, problems: compared("after it", after, before, setting.party.currency), given }
    })

  return { calls, results, round, run, skip, balanceAfter, money, bet, giveBack, refusedBet }
}
