/**
 * Graceful shutdown, on the real process: SIGTERM while a launch is still
 * waiting for the aggregator lets that launch finish, then the process exits;
 * SHUTDOWN_TIMEOUT bounds how long that may take.
 */
import { NodeServices } from "@effect/platform-node"
import { assert, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Latch, Layer } from "effect"
import { launchWithin, ShutdownTimedOut } from "../../src/platform/Shutdown.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import { eventually } from "../support/live.ts"
import { onFreePort, startNode } from "../support/process.ts"
import { scopedDatabase } from "../support/TestDatabase.ts"

const token = "pak_shutdown_test_000000000000000000000000000000"

/** The service in a process of its own, on a database of its own, its casino PlayFiver at the fake (`aggregatorUrl`). */
const startService = (aggregatorUrl: string, env: Record<string, string>) =>
  Effect.flatMap(scopedDatabase(), (databaseUrl) =>
    onFreePort((port) =>
      startNode(["src/main.ts"], {
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        HOST: "127.0.0.1",
        DEMO_PARTNER_TOKEN: token,
        CASINO_GATEWAY: "playfiver",
        PLAYFIVER_BASE_URL: aggregatorUrl,
        PLAYFIVER_AGENT_TOKEN: "agent",
        PLAYFIVER_SECRET_KEY: "secret",
        ...env
      }, /Listening on/)
    ))

it.live("SIGTERM: in-flight requests finish, then the process exits", () =>
  Effect.gen(function*() {
    const fake = yield* FakeUpstream
    // The aggregator takes 1.5 s to launch; lists answer at once.
    fake.script((call) =>
      call.path === "/api/v2/game_launch"
        ? { kind: "delay", millis: 1_500, answer: healthyAggregator(call) }
        : healthyAggregator(call)
    )
    const { handle, output, outputEnded, port } = yield* startService(fake.url, {
      CASINO_GATEWAY_TIMEOUT: "10 seconds"
    })

    const launch = yield* Effect.forkChild(Effect.promise(async () => {
      const response = await fetch(`http://127.0.0.1:${port}/api/partner/v1/launch`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
        body: JSON.stringify({ external_player_id: "p", player_balance: 5, provider: "pg-soft", game_code: "126" })
      })
      return { status: response.status, body: await response.json() as { data?: { launch?: { url?: string } } } }
    }))
    yield* eventually(
      Effect.sync(() => fake.calls.some((call) => call.path === "/api/v2/game_launch")),
      (sent) => sent,
      "the launch waiting on the aggregator"
    )
    process.kill(Number(handle.pid), "SIGTERM")

    const answered = yield* Fiber.join(launch)
    assert.strictEqual(answered.status, 200, output.join("\n"))
    assert.match(answered.body.data?.launch?.url ?? "", /^https:\/\/games\.example\/launch/)
    const exitCode = yield* handle.exitCode.pipe(Effect.timeout("15 seconds"))
    yield* outputEnded
    assert.strictEqual(Number(exitCode), 0, output.join("\n"))
    // The last request was logged before the process went away.
    assert.isTrue(
      output.some((line) => line.includes("\"path\":\"/api/partner/v1/launch\"") && line.includes("\"status\":200")),
      output.join("\n")
    )
  }).pipe(
    Effect.scoped,
    Effect.provide(Layer.mergeAll(NodeServices.layer, FakeUpstream.layer(healthyAggregator)))
  ), { timeout: 120_000 })

it.live(
  "SHUTDOWN_TIMEOUT: a request still waiting on the aggregator is cut at half of it, and the process exits 0",
  () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      // The aggregator never answers a launch; the service would wait 10 minutes for it.
      fake.script((call) => call.path === "/api/v2/game_launch" ? { kind: "hang" } : healthyAggregator(call))
      const { handle, output, outputEnded, port } = yield* startService(fake.url, {
        CASINO_GATEWAY_TIMEOUT: "10 minutes",
        SHUTDOWN_TIMEOUT: "2 seconds"
      })

      const launch = yield* Effect.forkChild(Effect.promise(async () => {
        try {
          const response = await fetch(`http://127.0.0.1:${port}/api/partner/v1/launch`, {
            method: "POST",
            headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
            body: JSON.stringify({ external_player_id: "p", player_balance: 5, provider: "pg-soft", game_code: "126" })
          })
          return { status: response.status, text: await response.text() }
        } catch (error) {
          return { status: 0, text: String(error) }
        }
      }))
      yield* eventually(
        Effect.sync(() => fake.calls.some((call) => call.path === "/api/v2/game_launch")),
        (sent) => sent,
        "the launch waiting on the aggregator"
      )
      process.kill(Number(handle.pid), "SIGTERM")

      // Without the bound the drain would wait for the launch (20 s by default), the aggregator for 10 minutes.
      const exitCode = yield* handle.exitCode.pipe(Effect.timeout("15 seconds"))
      const answered = yield* Fiber.join(launch)
      yield* outputEnded
      assert.strictEqual(Number(exitCode), 0, output.join("\n"))
      // Cut by the drain's bound: effect's server answers an interrupted request 503 (no body).
      assert.strictEqual(answered.status, 503, JSON.stringify(answered))
    }).pipe(
      Effect.scoped,
      Effect.provide(Layer.mergeAll(NodeServices.layer, FakeUpstream.layer(healthyAggregator)))
    ),
  { timeout: 120_000 }
)

/** A service whose release takes `release`, launched under a SHUTDOWN_TIMEOUT of 300 ms and stopped once it runs. */
const stoppedWith = (release: Effect.Effect<void>) =>
  Effect.gen(function*() {
    const started = yield* Latch.make()
    const service = Layer.effectDiscard(Effect.andThen(Effect.addFinalizer(() => release), started.open))
    const launched = yield* Effect.forkChild(launchWithin(service, Duration.millis(300)))
    yield* started.await
    yield* Fiber.interrupt(launched)
    return yield* Fiber.await(launched)
  })

it.live("SHUTDOWN_TIMEOUT in-process: a release within the bound ends the launch as a stop", () =>
  Effect.gen(function*() {
    let released = false
    const exit = yield* stoppedWith(Effect.sync(() => void (released = true)))
    assert.isTrue(released)
    assert.isTrue(Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause), String(exit))
  }))

it.live("SHUTDOWN_TIMEOUT in-process: a release that never ends is left behind, and the launch fails with ShutdownTimedOut (exit 1)", () =>
  Effect.gen(function*() {
    const exit = yield* stoppedWith(Effect.never)
    assert.isTrue(Exit.isFailure(exit), String(exit))
    const error = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
    assert.instanceOf(error, ShutdownTimedOut)
  }))
