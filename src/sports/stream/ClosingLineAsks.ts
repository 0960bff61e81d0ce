import { Cause, Clock, Duration, Effect, Layer, Queue } from "effect"
import { askAgainAfter, type ClosingAsk, closingFromProvider } from "../../domain/ClosingLines.ts"
import { SportsProvider } from "../SportsProvider.ts"
import { ChangeRecorder } from "./ChangeRecorder.ts"
import { ClosingLinesRepo } from "./ClosingLinesRepo.ts"

/** Asks one instance takes at a time; it takes more at once while every one it asked for came. */
const batch = 10

/** How long an ask taken is the instance's: past it (the instance died mid-ask), any instance takes it again. */
const lease = Duration.minutes(5)

/** A look for asks due besides the notices (a backoff that ended, a notice lost while reconnecting). */
const pollEvery = Duration.minutes(1)

/**
 * Asks the provider named `provider` (the SportsProvider below this layer, not its recording wrapper: the answer is
 * a closing line, not an odds read) for the closing lines the change recorder could not keep at kick-off: its
 * pre-match odds of each event, whose last prices the protocol answers after kick-off as it allows (BetsAPI and the
 * sandbox: the last entry of the odds history taken before kick-off; API-Football: `/odds` keeps a fixture's pre-match
 * odds for 7 days). Every instance runs it; each ask is claimed by one (ClosingLinesRepo.claim), woken by NOTIFY when
 * asks are written and looking every minute besides. The asks are the service's own calls, on the provider's quota.
 * An answer with markets becomes the line (ChangeRecorder.recordClosing); one without, or an event the provider does
 * not know, ends the ask; a failure is asked again after a backoff (askAgainAfter), given up after the last.
 */
export const askingClosingLines = (provider: string) =>
  Layer.effectDiscard(Effect.gen(function*() {
    const sports = yield* SportsProvider
    const recorder = yield* ChangeRecorder
    const closings = yield* ClosingLinesRepo
    const news = yield* Queue.sliding<void>(1)
    yield* closings.whenWanted(Effect.asVoid(Queue.offer(news, undefined)))

    const failed = (ask: ClosingAsk, reason: string) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const after = askAgainAfter(ask.attempts)
        if (after !== undefined) return closings.retry(provider, ask.eventId, now + Duration.toMillis(after))
        return Effect.andThen(
          closings.drop(provider, ask.eventId),
          Effect.logWarning("A closing line was given up: the provider could not be asked").pipe(
            Effect.annotateLogs({ provider, eventId: ask.eventId, attempts: ask.attempts, reason })
          )
        )
      })

    const askOne = (ask: ClosingAsk) =>
      sports.odds(ask.eventId).pipe(
        Effect.flatMap((fetched) => {
          const line = closingFromProvider(ask, fetched.value, fetched.storedAt)
          return line === undefined ? closings.drop(provider, ask.eventId) : recorder.recordClosing(provider, line)
        }),
        Effect.catchTags({
          EventNotFound: () => closings.drop(provider, ask.eventId),
          SportsProviderError: (error) => failed(ask, error.message)
        }),
        Effect.asVoid
      )

    // Takes the asks due, asks them one after another, and looks again at once while a whole batch came; otherwise
    // waits for news, for the next ask due, or for the poll.
    const look = Effect.gen(function*() {
      const now = yield* Clock.currentTimeMillis
      const claimed = yield* closings.claim(provider, { now, until: now + Duration.toMillis(lease), limit: batch })
      yield* Effect.forEach(claimed, askOne, { discard: true })
      if (claimed.length === batch) return
      const next = yield* closings.nextDue(provider)
      const later = yield* Clock.currentTimeMillis
      const wait = next === null
        ? pollEvery
        : Duration.clamp(Duration.millis(next - later), { minimum: Duration.zero, maximum: pollEvery })
      yield* Effect.timeoutOption(Queue.take(news), wait)
    }).pipe(
      Effect.catchCause((cause) =>
        Cause.hasInterruptsOnly(cause)
          ? Effect.failCause(cause)
          : Effect.logWarning("Closing lines could not be asked of the provider").pipe(
            Effect.annotateLogs({ provider, cause: Cause.pretty(cause) }),
            Effect.andThen(Effect.sleep(pollEvery))
          )
      )
    )

    yield* Effect.forkScoped(Effect.forever(look))
  }))
