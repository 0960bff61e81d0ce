import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Exit, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { newSessionId, SandboxRepo } from "../../src/integrations/sandbox/SandboxRepo.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"

/**
 * What SandboxRepo promises, whichever form keeps it: run over PostgreSQL and over memory by sandbox-repo.test.ts.
 * `pass` lets time pass for every game session (the SQL moves their creation back, memory moves the test's clock on).
 */
const keyOf = (partnerId: number, eventId: string) => ({ partnerId, environment: "live" as const, eventId })

export const sandboxRepoSpec = <R>(
  it: Vitest.MethodsNonLive<SandboxRepo | PartnerRepo | R>,
  pass: (by: Duration.Duration) => Effect.Effect<void, never, R>
) => {
  const player = () => `player-${randomBytes(3).toString("hex")}`
  const session = (environment: "live" | "test" = "test") => ({
    id: newSessionId(environment),
    user_code: 42,
    game_code: "fortune-tiger",
    provider: "PGSOFT",
    player_name: null,
    balance: 12_550n,
    currency: "BRL",
    lang: "en"
  })

  it.effect("the agent secret is one, kept for good", () =>
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const [a, b] = [yield* repo.agentSecret, yield* repo.agentSecret]
      assert.strictEqual(Redacted.value(a), Redacted.value(b))
      assert.isAtLeast(Redacted.value(a).length, 32)
    }))

  it.effect("a game session is found until it is older than the TTL, counts its spins, and is swept when a new one opens", () =>
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const ttl = Duration.hours(1)
      const first = session()
      yield* repo.openSession(first, ttl)
      assert.deepStrictEqual(yield* repo.findSession(first.id, ttl), Option.some({ ...first, spins: 0 }))
      assert.deepStrictEqual([yield* repo.countSpin(first.id), yield* repo.countSpin(first.id)], [1, 2])
      assert.strictEqual(Option.getOrThrow(yield* repo.findSession(first.id, ttl)).spins, 2)
      assert.isTrue(Option.isNone(yield* repo.findSession(newSessionId("live"), ttl)))
      assert.isTrue(Exit.isFailure(yield* Effect.exit(repo.openSession(first, ttl))), "an id opens once")
      yield* pass(Duration.hours(2))
      assert.isTrue(Option.isNone(yield* repo.findSession(first.id, ttl)), "older than the TTL")
      assert.isTrue(Option.isSome(yield* repo.findSession(first.id, Duration.infinity)), "an infinite TTL keeps it")
      yield* repo.openSession(session("live"), ttl)
      assert.isTrue(Option.isNone(yield* repo.findSession(first.id, Duration.infinity)), "swept as a new one opened")
    }))

  it.effect("a wallet opens once at its balance, is set whether open or not, and never goes below zero", () =>
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const partner = yield* givenRepoPartner
      const wallet = { partnerId: partner.id, externalPlayerId: player(), currency: "BRL" }
      assert.isFalse(yield* repo.hasWallet(wallet))
      yield* repo.openWallet(wallet, 10_000n)
      yield* repo.openWallet(wallet, 99n)
      assert.isTrue(yield* repo.hasWallet(wallet))
      assert.strictEqual(yield* repo.transaction(repo.lockWallet(wallet)), 10_000n, "opened once")
      yield* repo.setWalletBalance(wallet, 2_550n)
      assert.strictEqual(yield* repo.transaction(repo.lockWallet(wallet)), 2_550n)
      const fresh = { partnerId: partner.id, externalPlayerId: player(), currency: "BRL" }
      yield* repo.setWalletBalance(fresh, 1n)
      assert.isTrue(yield* repo.hasWallet(fresh), "set opens it")
      assert.isFalse(
        yield* repo.hasWallet({
          partnerId: partner.id + 100_000,
          externalPlayerId: wallet.externalPlayerId,
          currency: "BRL"
        }),
        "another partner's is another"
      )
      assert.isTrue(
        Exit.isFailure(yield* Effect.exit(repo.transaction(repo.moveWallet(wallet, -1n)))),
        "a negative balance is refused"
      )
      assert.strictEqual(yield* repo.transaction(repo.lockWallet(wallet)), 2_550n)
    }))

  it.effect("a transaction applies whole or not at all, and two on one wallet do not lose each other's move", () =>
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const partner = yield* givenRepoPartner
      const wallet = { partnerId: partner.id, externalPlayerId: player(), currency: "BRL" }
      yield* repo.openWallet(wallet, 1_000n)
      const eventId = `evt_${randomBytes(6).toString("hex")}`
      const failed = yield* Effect.exit(repo.transaction(Effect.gen(function*() {
        yield* repo.moveWallet(wallet, (yield* repo.lockWallet(wallet)) - 300n)
        yield* repo.recordEvent({
          eventId,
          partnerId: partner.id,
          environment: "live",
          headers: {},
          body: "{}",
          reply: { status: 200, body: {} },
          rollsBack: null
        })
        return yield* Effect.fail("the partner refused" as const)
      })))
      assert.isTrue(Exit.isFailure(failed))
      assert.strictEqual(yield* repo.transaction(repo.lockWallet(wallet)), 1_000n, "the move was undone")
      assert.isTrue(Option.isNone(yield* repo.replyTo(keyOf(partner.id, eventId))), "and the event")
      const add = repo.transaction(Effect.gen(function*() {
        const balance = yield* repo.lockWallet(wallet)
        for (let i = 0; i < 3; i++) yield* Effect.yieldNow
        yield* repo.moveWallet(wallet, balance + 100n)
      }))
      yield* Effect.all([add, add, add], { concurrency: "unbounded" })
      assert.strictEqual(yield* repo.transaction(repo.lockWallet(wallet)), 1_300n)
    }))

  it.effect("an event is recorded once with its answer and headers; a rollback's bet is remembered", () =>
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const partner = yield* givenRepoPartner
      const [bet, rollback, other] = [
        `evt_${randomBytes(6).toString("hex")}`,
        `evt_${randomBytes(6).toString("hex")}`,
        `evt_${randomBytes(6).toString("hex")}`
      ]
      const reply = { status: 200, body: { balance: "12.50", nested: [1, "two"] } }
      yield* repo.recordEvent({
        eventId: rollback,
        partnerId: partner.id,
        environment: "live",
        headers: { "x-partner-signature": "t=1,v1=ab" },
        body: "{\"kind\":\"rollback\"}",
        reply,
        rollsBack: bet
      })
      assert.deepStrictEqual(yield* repo.replyTo(keyOf(partner.id, rollback)), Option.some(reply))
      assert.isTrue(Option.isNone(yield* repo.replyTo(keyOf(partner.id, bet))))
      assert.isTrue(yield* repo.isRolledBack(keyOf(partner.id, bet)))
      assert.isFalse(yield* repo.isRolledBack(keyOf(partner.id, rollback)))
      assert.isTrue(
        Exit.isFailure(
          yield* Effect.exit(
            repo.recordEvent({
              eventId: rollback,
              partnerId: partner.id,
              environment: "live",
              headers: {},
              body: "",
              reply,
              rollsBack: null
            })
          )
        )
      )
      yield* repo.recordEvent({
        eventId: other,
        partnerId: partner.id,
        environment: "live",
        headers: {},
        body: "{}",
        reply: { status: 409, body: null },
        rollsBack: null
      })
      const got = [
        ...(yield* repo.received({ partnerId: partner.id, environment: "live" }, [other, rollback, "evt_never"]))
      ].sort((a, b) => a.event_id < b.event_id ? -1 : 1)
      const expected = [
        { event_id: rollback, headers: { "x-partner-signature": "t=1,v1=ab" }, answer: reply },
        { event_id: other, headers: {}, answer: { status: 409, body: null } }
      ].sort((a, b) => a.event_id < b.event_id ? -1 : 1)
      assert.deepStrictEqual(got, expected)
      assert.deepStrictEqual(yield* repo.received({ partnerId: partner.id, environment: "live" }, []), [])
    }))

  it.effect("events are keyed by partner, environment and event id: the same id elsewhere is another event", () =>
    Effect.gen(function*() {
      const repo = yield* SandboxRepo
      const [acme, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const eventId = `evt_${randomBytes(6).toString("hex")}`
      const record = (partnerId: number, environment: "live" | "test", status: number, rollsBack: string | null) =>
        repo.recordEvent({
          eventId,
          partnerId,
          environment,
          headers: {},
          body: "{}",
          reply: { status, body: null },
          rollsBack
        })
      yield* record(acme.id, "live", 200, "evt_bet")
      assert.isTrue(Option.isNone(yield* repo.replyTo({ partnerId: acme.id, environment: "test", eventId })))
      assert.isTrue(Option.isNone(yield* repo.replyTo({ partnerId: other.id, environment: "live", eventId })))
      assert.isFalse(yield* repo.isRolledBack({ partnerId: other.id, environment: "live", eventId: "evt_bet" }))
      assert.isFalse(yield* repo.isRolledBack({ partnerId: acme.id, environment: "test", eventId: "evt_bet" }))
      assert.isTrue(yield* repo.isRolledBack({ partnerId: acme.id, environment: "live", eventId: "evt_bet" }))
      yield* record(acme.id, "test", 402, null)
      yield* record(other.id, "live", 409, null)
      const statusOf = (partnerId: number, environment: "live" | "test") =>
        Effect.map(repo.replyTo({ partnerId, environment, eventId }), Option.map((reply) => reply.status))
      assert.deepStrictEqual(
        [yield* statusOf(acme.id, "live"), yield* statusOf(acme.id, "test"), yield* statusOf(other.id, "live")],
        [Option.some(200), Option.some(402), Option.some(409)]
      )
      assert.deepStrictEqual(
        (yield* repo.received({ partnerId: other.id, environment: "live" }, [eventId])).map((event) => event.answer),
        [{ status: 409, body: null }]
      )
    }))
}
