import {
  Cause,
  Clock,
  Context,
  Deferred,
  Duration,
  Effect,
  Exit,
  Layer,
  Metric,
  Option,
  Queue,
  Schema,
  Stream
} from "effect"
import { Sse } from "effect/encoding"
import type { Environment } from "../../domain/Environment.ts"
import type { OddsFormat } from "../../domain/OddsFormat.ts"
import { type Connected, describeFilter, type ResetReason, type StreamFilter } from "../../domain/SportsStream.ts"
import * as Metrics from "../../platform/Metrics.ts"
import { ChangeTail, type Delivery, encodeChange, encodeReset, Mailbox, type Subscriber, utf8 } from "./ChangeTail.ts"
import { SportsChangeLog } from "./SportsChangeLog.ts"
import { StreamConfig } from "./StreamConfig.ts"
import { leaseLifetime, StreamLeases } from "./StreamLeases.ts"

/** The partner holds as many streams as STREAM_MAX_CONNECTIONS_PER_PARTNER allows, across the fleet. */
export class StreamLimitReached extends Schema.TaggedError<StreamLimitReached>()("StreamLimitReached", {
  limit: Schema.Int,
  message: Schema.String
}) {}

export interface OpenRequest {
  readonly partner: { readonly id: number; readonly environment: Environment }
  /** The name of the sports provider whose changes the partner's token streams (its environment's provider). */
  readonly provider: string
  readonly filter: StreamFilter
  /** The format the client reads prices in: the log's decimal text is converted for it alone. */
  readonly oddsFormat: OddsFormat
  /** Last-Event-ID: the last position the client has; none, the stream starts at the log's head. */
  readonly lastEventId: number | undefined
  /** Cuts the connection: a client that stopped reading gets no more than its buffer and its reset. */
  readonly abort: Effect.Effect<void>
}

/** Changes a tail reads at a time, and a stream catching up from the log. */
const tailPage = 1_000
const catchUpPage = 500
/** Besides NOTIFY, each tail looks at the log this often (a notification lost while its listener reconnected). */
const pollEvery = Duration.seconds(1)

const heartbeat = utf8(": heartbeat\n\n")

/** How long a stop waits for its streams to end (a client that does not take its retry hint is cut by the drain). */
const stopWait = Duration.seconds(5)

/** A client dropped as too slow has this long to take its reset (what its socket holds goes first); then it is cut. */
const slowReaderGrace = Duration.seconds(30)

/** The hint a stopping instance leaves: reconnect, to any instance, in 1 to 3 seconds (spread, so they do not all come at once). */
const retryHint = () =>
  utf8(
    ": this instance is stopping: reconnect (any instance) with Last-Event-ID\n" +
      Sse.encoder.write(
        new Sse.Retry({ duration: Duration.millis(1_000 + Math.floor(Math.random() * 2_000)), lastEventId: undefined })
      )
  )

/** An open connection: its stream as the tail sees it once live, and whether it is over. */
interface Connection {
  readonly subscriber: Subscriber
  readonly environment: Environment
  finished: boolean
}

/**
 * The live sports change stream of this instance (GET /sports/stream): for
 * each provider, one tail that follows the log (woken by NOTIFY, and every
 * second besides) and hands each change to the streams that want it. A
 * stream opens with `connected`, catches up from the log past its
 * Last-Event-ID at its own pace (page by page, as its client reads), then
 * joins its provider's tail: from the log, up to where the tail is, and from
 * the tail after, so it gets every change once, in order, on whichever
 * instance it reconnects to. Every instance serves the same log.
 */
export class SportsStream extends Context.Service<SportsStream, {
  /** A stream for a partner, or StreamLimitReached when it already holds its limit (fleet-wide). */
  open(request: OpenRequest): Effect.Effect<Stream.Stream<Uint8Array>, StreamLimitReached>
  /** A graceful stop: every stream is told to reconnect (its retry hint) and ends; new ones get the hint alone. */
  readonly stop: Effect.Effect<void>
  /** Bytes this instance's streams hold for their clients. */
  readonly bufferedBytes: Effect.Effect<number>
}>()("partner-api/sports/stream/SportsStream") {
  static readonly layer = Layer.effect(
    SportsStream,
    Effect.gen(function*() {
      const log = yield* SportsChangeLog
      const leases = yield* StreamLeases
      const config = yield* StreamConfig
      const runFork = Effect.runForkWith(yield* Effect.context<never>())
      const instance = crypto.randomUUID()
      const stopping = yield* Deferred.make<void>()
      const allEnded = yield* Deferred.make<void>()
      let stopped = false
      const connections = new Set<Connection>()
      const tails = new Map<string, Deferred.Deferred<ChangeTail>>()
      /** The tails started, by provider. */
      const following = new Map<string, ChangeTail>()
      const wakes = new Set<Queue.Queue<void>>()
      const heartbeatMillis = Duration.toMillis(config.heartbeatInterval)
      const scope = yield* Effect.scope

      const bufferedBytes = Effect.sync(() => {
        let total = 0
        for (const connection of connections) total += connection.subscriber.mailbox.pending
        return total
      })
      const countOpen = (environment: Environment) => {
        let open = 0
        for (const connection of connections) if (connection.environment === environment) open++
        return Metrics.recordStreamsOpen(environment, open)
      }

      /** After a publish: the metrics, and a connection cut for each client that does not take its reset in time. */
      const delivered = (delivery: Delivery) =>
        Effect.gen(function*() {
          if (delivery.sent > 0) yield* Metric.update(Metrics.sportsStreamEventsSent, delivery.sent)
          for (const subscriber of delivery.slow) {
            yield* Metrics.recordStreamReset("slow_reader")
            yield* Metric.update(Metrics.sportsStreamSlowClientsDropped, 1)
            aborts.get(subscriber)?.()
          }
          yield* Metric.update(Metrics.sportsStreamBufferedBytes, yield* bufferedBytes)
        })
      /** How to cut each connection whose client stopped reading, by its subscriber. */
      const aborts = new Map<Subscriber, () => void>()

      /** Reads the log after the tail's cursor until it has all of it, handing each page to the live streams. */
      const drain = (tail: ChangeTail) =>
        Effect.gen(function*() {
          while (true) {
            if (tail.subscribers.size === 0) {
              // Nobody to hand changes to: move past them. Checked again after the read, as a stream may join meanwhile.
              const head = yield* log.head
              if (tail.subscribers.size === 0) {
                tail.cursor = Math.max(tail.cursor, head)
                return
              }
            }
            const page = yield* log.read(tail.provider, {
              after: tail.cursor,
              through: null,
              filter: null,
              limit: tailPage
            })
            const now = yield* Clock.currentTimeMillis
            if (page.floor > tail.cursor) yield* delivered(tail.expire(page.floor, now))
            if (page.changes.length > 0) yield* delivered(tail.publish(page.changes, now))
            if (page.changes.length < tailPage) return
          }
        })

      const tailOf = (provider: string): Effect.Effect<ChangeTail> =>
        Effect.suspend(() => {
          const known = tails.get(provider)
          if (known !== undefined) return Deferred.await(known)
          const ready = Deferred.makeUnsafe<ChangeTail>()
          tails.set(provider, ready)
          return Effect.gen(function*() {
            const tail = new ChangeTail(provider, config.clientBufferBytes)
            tail.cursor = yield* log.head
            const wake = yield* Queue.sliding<void>(1)
            wakes.add(wake)
            yield* Queue.take(wake).pipe(
              Effect.andThen(drain(tail)),
              Effect.catchCause((cause) =>
                Cause.hasInterruptsOnly(cause)
                  ? Effect.failCause(cause)
                  : Effect.logWarning("The change stream could not read the log; retrying").pipe(
                    Effect.annotateLogs({ provider, cause: Cause.pretty(cause) }),
                    Effect.andThen(Effect.sleep(pollEvery))
                  )
              ),
              Effect.forever,
              Effect.forkIn(scope)
            )
            following.set(provider, tail)
            yield* Deferred.succeed(ready, tail)
            return tail
          }).pipe(
            // Not started (the database did not answer): the next stream of this provider tries again.
            Effect.onError((cause) =>
              Effect.andThen(Effect.sync(() => tails.delete(provider)), Deferred.failCause(ready, cause))
            )
          )
        })

      const wakeAll = Effect.sync(() => {
        for (const wake of wakes) Queue.offerUnsafe(wake, undefined)
      })
      yield* log.onAppend(wakeAll)
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(Effect.sleep(pollEvery), wakeAll)))

      // A comment on every stream nothing was queued to for a heartbeat's time.
      yield* Effect.forkScoped(Effect.forever(Effect.gen(function*() {
        yield* Effect.sleep(config.heartbeatInterval)
        const now = yield* Clock.currentTimeMillis
        for (const tail of following.values()) {
          const slow: Array<Subscriber> = []
          // oxlint-disable-next-line unicorn/no-useless-spread -- a snapshot: a subscriber that falls behind leaves the set meanwhile
          for (const subscriber of [...tail.subscribers]) {
            if (
              now - subscriber.lastQueuedAt >= heartbeatMillis &&
              !tail.offer(subscriber, heartbeat, subscriber.cursor, now)
            ) {
              slow.push(subscriber)
            }
          }
          yield* delivered({ sent: 0, slow })
        }
      })))

      // The leases of this instance's open streams live while it renews them; a stop gives them all up. A lease whose
      // stream never ran (its client gone between the opening and the first read) is not renewed, and lapses.
      const openLeases = new Set<string>()
      yield* Effect.forkScoped(Effect.forever(Effect.andThen(
        Effect.sleep(Duration.divideUnsafe(leaseLifetime, 3)),
        Effect.suspend(() => Effect.ignore(leases.renew(instance, [...openLeases])))
      )))
      yield* Effect.addFinalizer(() => Effect.ignore(leases.releaseAll(instance)))

      const connectedEvent = (request: OpenRequest, start: number) =>
        utf8(Sse.encoder.write({
          _tag: "Event",
          id: String(start),
          event: "connected",
          data: JSON.stringify(
            {
              resume_from: String(start),
              environment: request.partner.environment,
              filters: describeFilter(request.filter),
              heartbeat_seconds: Duration.toSeconds(config.heartbeatInterval),
              retention_seconds: Duration.toSeconds(config.retention),
              stale_after_seconds: Duration.toSeconds(config.staleAfter),
              odds_format: request.oddsFormat
            } satisfies Connected
          )
        }))

      /**
       * From `cursor`, the log up to where the tail is, page by page as the client reads; once there, the stream
       * joins the tail (in the same step as the last look at its cursor, so nothing passes in between).
       */
      const catchUp = (tail: ChangeTail, connection: Connection, cursor: number): Stream.Stream<Uint8Array> =>
        Stream.unwrap(Effect.gen(function*() {
          const subscriber = connection.subscriber
          const bound = tail.cursor
          if (cursor >= bound) {
            subscriber.cursor = cursor
            subscriber.mailbox.taken = cursor
            tail.subscribers.add(subscriber)
            return Stream.empty
          }
          const page = yield* log.read(tail.provider, {
            after: cursor,
            through: bound,
            filter: subscriber.filter,
            limit: catchUpPage
          })
          if (page.floor > cursor) return resetTo(tail, connection, "expired")
          const reached = page.changes.length < catchUpPage ? bound : page.changes[page.changes.length - 1].position
          const next = catchUp(tail, connection, reached)
          if (page.changes.length === 0) return next
          yield* Metric.update(Metrics.sportsStreamEventsSent, page.changes.length)
          const text = page.changes.map((change) => encodeChange(change, subscriber.oddsFormat)).join("")
          return Stream.concat(Stream.succeed(utf8(text)), next)
        }))

      /** The stream cannot go on from where the client is: a reset to where the tail is (or the log's head), then live. */
      const resetTo = (tail: ChangeTail, connection: Connection, reason: ResetReason, atLeast = 0) => {
        const resume = Math.max(tail.cursor, atLeast)
        connection.subscriber.cursor = resume
        connection.subscriber.mailbox.taken = resume
        tail.subscribers.add(connection.subscriber)
        return Stream.concat(
          Stream.fromEffect(Metrics.recordStreamReset(reason)).pipe(Stream.drain),
          Stream.succeed(utf8(encodeReset(reason, resume)))
        )
      }

      const connectionStream = (request: OpenRequest, tail: ChangeTail, head: number, lease: string) =>
        Stream.unwrap(Effect.gen(function*() {
          openLeases.add(lease)
          const release = Effect.suspend(() => {
            openLeases.delete(lease)
            return leases.release(lease)
          })
          const mailbox = new Mailbox()
          const now = yield* Clock.currentTimeMillis
          const connection: Connection = {
            subscriber: {
              filter: request.filter,
              oddsFormat: request.oddsFormat,
              cursor: 0,
              lastQueuedAt: now,
              mailbox
            },
            environment: request.partner.environment,
            finished: false
          }
          connections.add(connection)
          aborts.set(connection.subscriber, () => {
            // Its reset gets slowReaderGrace to go out behind what the socket holds; then the connection is cut.
            runFork(
              Effect.delay(Effect.suspend(() => connection.finished ? Effect.void : request.abort), slowReaderGrace)
            )
          })
          yield* countOpen(connection.environment)
          const start = request.lastEventId ?? head
          const history = request.lastEventId !== undefined && request.lastEventId > head
            ? resetTo(tail, connection, "unknown_position", head)
            : catchUp(tail, connection, start)
          const live = Stream.fromPull(Effect.succeed(mailbox.take))
          const finish = Effect.suspend(() => {
            connection.finished = true
            connections.delete(connection)
            if (stopped && connections.size === 0) Deferred.doneUnsafe(allEnded, Exit.void)
            aborts.delete(connection.subscriber)
            tail.subscribers.delete(connection.subscriber)
            return Effect.andThen(countOpen(connection.environment), release)
          })
          return Stream.concat(Stream.succeed(connectedEvent(request, start)), Stream.concat(history, live)).pipe(
            Stream.interruptWhen(Deferred.await(stopping)),
            (body) => Stream.concat(body, Stream.suspend(() => stopped ? Stream.succeed(retryHint()) : Stream.empty)),
            Stream.ensuring(finish)
          )
        }))

      const open = Effect.fn("SportsStream.open")(function*(request: OpenRequest) {
        if (stopped) return Stream.succeed(retryHint())
        const limit = config.maxConnectionsPerPartner
        // Taken and handed to its stream in one step: an opening that ends otherwise (its client gone) gives it back.
        return yield* Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(
            leases.acquire({
              partnerId: request.partner.id,
              environment: request.partner.environment,
              instance,
              limit
            }),
            (lease) =>
              Option.isNone(lease)
                ? restore(refused(request, limit))
                : restore(streamOf(request, lease.value)).pipe(
                  Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : leases.release(lease.value))
                )
          )
        )
      })

      const refused = (request: OpenRequest, limit: number) =>
        Effect.fail(
          new StreamLimitReached({
            limit,
            message:
              `Too many open streams: this partner may hold ${limit} at once in its ${request.partner.environment} environment ` +
              "(STREAM_MAX_CONNECTIONS_PER_PARTNER). Close one, or retry later."
          })
        )

      const streamOf = (request: OpenRequest, lease: string) =>
        Effect.gen(function*() {
          const tail = yield* tailOf(request.provider)
          const head = yield* log.head
          return connectionStream(request, tail, head, lease)
        })

      // A stop waits (a little) for its streams to end, so the server's drain finds their connections idle.
      const stop = Effect.suspend(() => {
        stopped = true
        return Deferred.succeed(stopping, undefined)
      }).pipe(
        Effect.andThen(Effect.suspend(() => connections.size === 0 ? Effect.void : Deferred.await(allEnded))),
        Effect.timeoutOrElse({ duration: stopWait, orElse: () => Effect.void }),
        Effect.asVoid
      )
      yield* Effect.addFinalizer(() => stop)

      return SportsStream.of({ open, stop, bufferedBytes })
    })
  )
}
