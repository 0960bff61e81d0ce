/**
 * The RTP policy over real HTTP: set with the admin CLI (audited, with what it was before), applied at launch
 * (what a PlayFiver-style aggregator receives as `user_rtp`) and shown in the launch answer, for each mode: passed
 * on, clamped into a range, replaced by a fixed value; a test launch goes through the same policy.
 */
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer, Option, Redacted } from "effect"
import { CasinoConfig } from "../../src/casino/CasinoConfig.ts"
import { adminCli } from "../support/AdminCli.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { healthyAggregator } from "../support/PlayFiverScripts.ts"
import { givenPartner, givenSyncedCatalog, TestAppWith, testCasinoConfig } from "../support/TestApp.ts"

/** The whole service with CASINO_GATEWAY=playfiver, talking HTTP to a fake aggregator. */
const PlayFiverApp = TestAppWith(
  Layer.effect(
    CasinoConfig,
    Effect.map(Effect.service(FakeUpstream), (fake) =>
      testCasinoConfig({
        gateways: ["playfiver"],
        timeout: Duration.seconds(2),
        playfiver: {
          baseUrl: fake.url,
          agentToken: Option.some(Redacted.make("agent-1")),
          secretKey: Option.some(Redacted.make("secret-1")),
          currency: "BRL"
        }
      }))
  )
).pipe(Layer.provideMerge(FakeUpstream.layer(healthyAggregator)))

const admin = adminCli()

layer(PlayFiverApp, live)("the RTP policy", (it) => {
  it.effect(
    "pass, clamp and fixed: set with the CLI and audited, applied at launch, shown in the answer",
    () =>
      Effect.gen(function*() {
        yield* givenSyncedCatalog
        const fake = yield* FakeUpstream
        const { partner, test, token } = yield* givenPartner({ name: "Rtp Bets" })
        const client = yield* partnerClient(token)

        /** A launch with `user_rtp` (or none): what the aggregator received as user_rtp, and the answer's `launch.rtp`. */
        const launch = (userRtp: number | undefined) =>
          Effect.gen(function*() {
            fake.reset()
            const answer = yield* client.casino.launch({
              payload: {
                external_player_id: "rtp-player",
                player_balance: "10.00",
                provider: "pg-soft",
                game_code: "126",
                user_rtp: userRtp ?? null
              }
            })
            const sent = fake.calls.find((call) => call.path === "/api/v2/game_launch")!.body
            return { sent: sent.user_rtp as number | undefined, rtp: answer.data.launch.rtp }
          })
        /** Sets the policy with the CLI; running services learn of it at once (NOTIFY), so the next launches use it. */
        const setPolicy = (text: string, mode: string) =>
          Effect.gen(function*() {
            const result = yield* admin("partners", "set", partner.slug, "--rtp-policy", text)
            assert.strictEqual(result.exitCode, 0, result.stderr)
            yield* eventually(
              launch(undefined),
              (launched) => launched.rtp.policy.mode === mode,
              `the ${mode} policy in effect`
            )
            return JSON.parse(result.stdout).rtp_policy
          })

        // pass (every partner's at first): as sent; none sent, none.
        assert.deepStrictEqual(yield* launch(97), {
          sent: 97,
          rtp: { policy: { mode: "pass" }, requested: 97, applied: 97 }
        })
        assert.deepStrictEqual(yield* launch(undefined), {
          sent: undefined,
          rtp: { policy: { mode: "pass" }, requested: null, applied: null }
        })

        // clamp: into the range; none sent, still none.
        assert.deepStrictEqual(yield* setPolicy("clamp:85-96", "clamp"), { mode: "clamp", min: 85, max: 96 })
        const clamp = { mode: "clamp", min: 85, max: 96 } as const
        assert.deepStrictEqual(yield* launch(99), { sent: 96, rtp: { policy: clamp, requested: 99, applied: 96 } })
        assert.deepStrictEqual(yield* launch(80), { sent: 85, rtp: { policy: clamp, requested: 80, applied: 85 } })
        assert.deepStrictEqual(yield* launch(90), { sent: 90, rtp: { policy: clamp, requested: 90, applied: 90 } })
        assert.deepStrictEqual(yield* launch(undefined), {
          sent: undefined,
          rtp: { policy: clamp, requested: null, applied: null }
        })

        // fixed: whatever was sent, and when nothing was.
        assert.deepStrictEqual(yield* setPolicy(" FIXED:94 ", "fixed"), { mode: "fixed", value: 94 })
        assert.deepStrictEqual(yield* launch(99), {
          sent: 94,
          rtp: { policy: { mode: "fixed", value: 94 }, requested: 99, applied: 94 }
        })
        assert.deepStrictEqual(yield* launch(undefined), {
          sent: 94,
          rtp: { policy: { mode: "fixed", value: 94 }, requested: null, applied: 94 }
        })

        // A test launch (the sandbox aggregator) goes through the same policy.
        const testLaunch = yield* (yield* partnerClient(test.token)).casino.launch({
          payload: {
            external_player_id: "rtp-test-player",
            player_balance: "10.00",
            provider: "aurora-gaming",
            game_code: "ag-hidden-fortune",
            user_rtp: 50
          }
        })
        assert.deepStrictEqual(testLaunch.data.launch.rtp, {
          policy: { mode: "fixed", value: 94 },
          requested: 50,
          applied: 94
        })

        // Back to pass; a policy that is not one is refused, naming the forms, and changes nothing.
        yield* setPolicy("pass", "pass")
        for (const bad of ["clamp:96-85", "fixed:101", "clamp:85", "sometimes"]) {
          const refused = yield* admin("partners", "set", partner.slug, "--rtp-policy", bad)
          assert.strictEqual(refused.exitCode, 1, bad)
          assert.include(refused.stderr, `Invalid RTP policy: "${bad}". Use pass, clamp:MIN-MAX`)
        }

        // Each change is audited as the CLI's, with the policy before and after.
        const trail = JSON.parse(
          (yield* admin("audit", "list", "--target", `partner:${partner.slug}`)).stdout
        ) as Array<{
          action: string
          via: string
          before: unknown
          after: unknown
        }>
        assert.deepStrictEqual(
          trail.filter((entry) => entry.action === "partner.set-rtp-policy").map((
            entry
          ) => [entry.via, entry.before, entry.after]).reverse(),
          [
            ["cli", { rtp_policy: { mode: "pass" } }, { rtp_policy: clamp }],
            ["cli", { rtp_policy: clamp }, { rtp_policy: { mode: "fixed", value: 94 } }],
            ["cli", { rtp_policy: { mode: "fixed", value: 94 } }, { rtp_policy: { mode: "pass" } }]
          ]
        )
      }),
    { timeout: 60_000 }
  )
})
