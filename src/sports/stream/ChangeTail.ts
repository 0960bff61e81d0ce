import { Cause, Effect } from "effect"
import type { NonEmptyReadonlyArray } from "effect/Array"
import { Sse } from "effect/encoding"
import type { OddsFormat } from "../../domain/OddsFormat.ts"
import { changeDataIn } from "../../domain/SportsChanges.ts"
import { carries, resetOf, type ResetReason, type StreamFilter } from "../../domain/SportsStream.ts"
import type { LoggedChange } from "./SportsChangeLog.ts"

/**
 * What a stream holds for its client: chunks queued by the tail, taken by
 * the connection as its socket accepts them. Each chunk knows the last
 * position it carries, so a stream cut short knows what its client was given.
 */
export class Mailbox {
  private chunks: Array<{ readonly bytes: Uint8Array; readonly last: number }> = []
  private waiting: (() => void) | undefined
  private ended = false
  /** Bytes queued, not taken yet. */
  pending = 0
  /** The last position taken by the connection (written, or being written, to the socket). */
  taken = 0

  put(bytes: Uint8Array, last: number): void {
    if (this.ended) return
    this.chunks.push({ bytes, last })
    this.pending += bytes.length
    this.wake()
  }

  /** Drops what is queued (the client will not take it in time); the stream goes on from what it was given. */
  clear(): void {
    this.chunks = []
    this.pending = 0
  }

  /** Nothing more is queued: the connection ends once it has taken what is there. */
  end(): void {
    this.ended = true
    this.wake()
  }

  private wake() {
    const waiting = this.waiting
    this.waiting = undefined
    waiting?.()
  }

  /** Everything queued (waiting for a chunk when there is none); done once ended and empty. */
  readonly take: Effect.Effect<NonEmptyReadonlyArray<Uint8Array>, Cause.Done> = Effect.suspend(() => {
    if (this.chunks.length > 0) return Effect.succeed(this.takeAll())
    if (this.ended) return Cause.done()
    return Effect.callback<NonEmptyReadonlyArray<Uint8Array>, Cause.Done>((resume) => {
      this.waiting = () => resume(this.take)
      return Effect.sync(() => {
        this.waiting = undefined
      })
    })
  })

  private takeAll(): NonEmptyReadonlyArray<Uint8Array> {
    const taken = this.chunks
    this.chunks = []
    this.pending = 0
    this.taken = Math.max(this.taken, taken[taken.length - 1].last)
    return taken.map((chunk) => chunk.bytes) as unknown as NonEmptyReadonlyArray<Uint8Array>
  }
}

/** One open stream, as the tail sees it once it is live (caught up). */
export interface Subscriber {
  readonly filter: StreamFilter
  /** The format its client reads prices in. */
  readonly oddsFormat: OddsFormat
  /** The last position queued to it: a change at or below it is never sent to it again. */
  cursor: number
  /** When something was last queued to it (epoch millis), for the heartbeat. */
  lastQueuedAt: number
  readonly mailbox: Mailbox
}

/** A change as the stream sends it to a reader of `format`: `id`, `event`, `data`, a blank line. */
export const encodeChange = (change: LoggedChange, format: OddsFormat) =>
  Sse.encoder.write({
    _tag: "Event",
    id: String(change.position),
    event: change.kind,
    data: changeDataIn(format, change.kind, change.data)
  })

/** A reset event: its id is the position to go on from. */
export const encodeReset = (reason: ResetReason, resumeFrom: number) =>
  Sse.encoder.write({
    _tag: "Event",
    id: String(resumeFrom),
    event: "reset",
    data: JSON.stringify(resetOf(reason, resumeFrom))
  })

const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8")

/** What one publish did, for the metrics. */
export interface Delivery {
  /** Changes queued, counted once per stream. */
  readonly sent: number
  /** Streams whose clients read too slowly: reset and ended, removed from the tail. */
  readonly slow: ReadonlyArray<Subscriber>
}

/**
 * One provider's changes in the log as this instance follows them, and the live streams of that
 * provider: `cursor` is the last position read from the log; every change after
 * it is read in order (ChangeTail is fed by SportsStream's reader) and handed
 * to each stream its filter carries it to. A batch is encoded once for each
 * odds format its streams read; streams with equal filters and formats share
 * one chunk (so a thousand identical streams hold one copy). A stream is never buffered without bound: one that has not
 * taken what it holds, when the next chunk would take it past
 * `clientBufferBytes`, lets it go, gets a last `reset` and ends.
 */
export class ChangeTail {
  cursor = 0
  readonly subscribers = new Set<Subscriber>()
  readonly provider: string
  private readonly clientBufferBytes: number

  constructor(provider: string, clientBufferBytes: number) {
    this.provider = provider
    this.clientBufferBytes = clientBufferBytes
  }

  /**
   * Queues `chunk` (up to position `last`) to a stream, or drops the stream as slow (false): what it holds is
   * let go, and a last reset tells its client to go on from what it was given.
   */
  offer(subscriber: Subscriber, chunk: Uint8Array, last: number, now: number): boolean {
    const { mailbox } = subscriber
    if (mailbox.pending > 0 && mailbox.pending + chunk.length > this.clientBufferBytes) {
      this.subscribers.delete(subscriber)
      mailbox.clear()
      mailbox.put(utf8(encodeReset("slow_reader", mailbox.taken)), mailbox.taken)
      mailbox.end()
      return false
    }
    subscriber.lastQueuedAt = now
    mailbox.put(chunk, last)
    return true
  }

  /** Hands a page of changes read after `cursor` (in order) to the live streams. */
  publish(changes: ReadonlyArray<LoggedChange>, now: number): Delivery {
    if (changes.length === 0) return { sent: 0, slow: [] }
    const encoded = new Map<OddsFormat, ReadonlyArray<string>>()
    const textsIn = (format: OddsFormat) => {
      let texts = encoded.get(format)
      if (texts === undefined) {
        texts = changes.map((change) => encodeChange(change, format))
        encoded.set(format, texts)
      }
      return texts
    }
    const first = changes[0].position
    const last = changes[changes.length - 1].position
    const shared = new Map<string, { readonly chunk: Uint8Array; readonly count: number } | null>()
    const matching = (filter: StreamFilter, format: OddsFormat, after: number) => {
      const texts = textsIn(format)
      let text = ""
      let count = 0
      for (let i = 0; i < changes.length; i++) {
        if (changes[i].position > after && carries(filter, changes[i])) {
          text += texts[i]
          count++
        }
      }
      return count === 0 ? null : { chunk: utf8(text), count }
    }
    let sent = 0
    const slow: Array<Subscriber> = []
    // oxlint-disable-next-line unicorn/no-useless-spread -- a snapshot: a subscriber that falls behind leaves the set meanwhile
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.cursor >= last) continue
      let delivery: { readonly chunk: Uint8Array; readonly count: number } | null | undefined
      if (subscriber.cursor < first) {
        const key = `${subscriber.filter.key}|${subscriber.oddsFormat}`
        delivery = shared.get(key)
        if (delivery === undefined) {
          delivery = matching(subscriber.filter, subscriber.oddsFormat, -1)
          shared.set(key, delivery)
        }
      } else {
        // Caught up from the log into the middle of this page: only what it has not had.
        delivery = matching(subscriber.filter, subscriber.oddsFormat, subscriber.cursor)
      }
      if (delivery !== null && !this.offer(subscriber, delivery.chunk, last, now)) {
        slow.push(subscriber)
        continue
      }
      subscriber.cursor = last
      if (delivery !== null) sent += delivery.count
    }
    this.cursor = Math.max(this.cursor, last)
    return { sent, slow }
  }

  /**
   * The log was pruned past the cursor (this instance fell further behind than STREAM_RETENTION): every
   * stream is reset to go on from `floor`.
   */
  expire(floor: number, now: number): Delivery {
    const slow: Array<Subscriber> = []
    // oxlint-disable-next-line unicorn/no-useless-spread -- a snapshot: a subscriber that falls behind leaves the set meanwhile
    for (const subscriber of [...this.subscribers]) {
      if (!this.offer(subscriber, utf8(encodeReset("expired", floor)), floor, now)) slow.push(subscriber)
      else subscriber.cursor = Math.max(subscriber.cursor, floor)
    }
    this.cursor = Math.max(this.cursor, floor)
    return { sent: 0, slow }
  }
}

export { utf8 }
