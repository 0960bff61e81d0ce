import { type Cause, Queue } from "effect"
import { Sse } from "effect/encoding"
import { carries, type ResetReason, resetOf, type StreamFilter } from "../../domain/SportsStream.ts"
import type { LoggedChange } from "./SportsChangeLog.ts"

/** One open stream, as the tail sees it once it is live (caught up). */
export interface Subscriber {
  readonly filter: StreamFilter
  /** The last position queued to it: a change at or below it is never sent to it again. */
  cursor: number
  /** Bytes queued that its connection has not taken yet. */
  pending: number
  /** When something was last queued to it (epoch millis), for the heartbeat. */
  lastQueuedAt: number
  readonly queue: Queue.Queue<Uint8Array, Cause.Done>
}

/** A change as the stream sends it: `id`, `event`, `data`, a blank line. */
export const encodeChange = (change: LoggedChange) =>
  Sse.encoder.write({ _tag: "Event", id: String(change.position), event: change.kind, data: change.data })

/** A reset event: its id is the position to go on from. */
export const encodeReset = (reason: ResetReason, resumeFrom: number) =>
  Sse.encoder.write({ _tag: "Event", id: String(resumeFrom), event: "reset", data: JSON.stringify(resetOf(reason, resumeFrom)) })

const utf8 = (text: string): Uint8Array => Buffer.from(text, "utf8")

/** What one publish did, for the metrics. */
export interface Delivery {
  /** Changes queued, counted once per stream. */
  readonly sent: number
  /** Streams whose clients read too slowly: reset and ended, removed from the tail. */
  readonly slow: ReadonlyArray<Subscriber>
}

/**
 * One world's log as this instance follows it, and the live streams of that
 * world: `cursor` is the last position read from the log; every change after
 * it is read in order (ChangeTail is fed by SportsStream's reader) and handed
 * to each stream its filter carries it to. A batch is encoded once; streams
 * with equal filters share one chunk (so a thousand identical streams hold
 * one copy). A stream is never buffered without bound: one that has not
 * taken what it holds, when the next chunk would take it past
 * `clientBufferBytes`, gets a last `reset` and ends.
 */
export class ChangeTail {
  cursor = 0
  readonly subscribers = new Set<Subscriber>()
  readonly world: string
  private readonly clientBufferBytes: number

  constructor(world: string, clientBufferBytes: number) {
    this.world = world
    this.clientBufferBytes = clientBufferBytes
  }

  /** Queues `chunk` (holding `events` changes) to a stream, or drops the stream as slow; false when dropped. */
  offer(subscriber: Subscriber, chunk: Uint8Array, now: number): boolean {
    if (subscriber.pending > 0 && subscriber.pending + chunk.length > this.clientBufferBytes) {
      this.subscribers.delete(subscriber)
      Queue.offerUnsafe(subscriber.queue, utf8(encodeReset("slow_reader", subscriber.cursor)))
      Queue.endUnsafe(subscriber.queue)
      return false
    }
    subscriber.pending += chunk.length
    subscriber.lastQueuedAt = now
    Queue.offerUnsafe(subscriber.queue, chunk)
    return true
  }

  /** Hands a page of changes read after `cursor` (in order) to the live streams. */
  publish(changes: ReadonlyArray<LoggedChange>, now: number): Delivery {
    if (changes.length === 0) return { sent: 0, slow: [] }
    const texts = changes.map(encodeChange)
    const first = changes[0].position
    const last = changes[changes.length - 1].position
    const shared = new Map<string, { readonly chunk: Uint8Array; readonly count: number } | null>()
    const matching = (filter: StreamFilter, after: number) => {
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
    for (const subscriber of [...this.subscribers]) {
      if (subscriber.cursor >= last) continue
      let delivery: { readonly chunk: Uint8Array; readonly count: number } | null | undefined
      if (subscriber.cursor < first) {
        delivery = shared.get(subscriber.filter.key)
        if (delivery === undefined) {
          delivery = matching(subscriber.filter, -1)
          shared.set(subscriber.filter.key, delivery)
        }
      } else {
        // Caught up from the log into the middle of this page: only what it has not had.
        delivery = matching(subscriber.filter, subscriber.cursor)
      }
      if (delivery !== null && !this.offer(subscriber, delivery.chunk, now)) {
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
    for (const subscriber of [...this.subscribers]) {
      if (!this.offer(subscriber, utf8(encodeReset("expired", floor)), now)) slow.push(subscriber)
      else subscriber.cursor = Math.max(subscriber.cursor, floor)
    }
    this.cursor = Math.max(this.cursor, floor)
    return { sent: 0, slow }
  }

  /** Bytes held for the live streams' clients. */
  get pending(): number {
    let total = 0
    for (const subscriber of this.subscribers) total += subscriber.pending
    return total
  }
}

export { utf8 }
