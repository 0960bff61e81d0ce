/**
 * The operator alert's failures tell what went wrong, never where: OPERATOR_ALERT_URL (its path and its `key=`)
 * is a secret of the operator's, and what a failure says is stored in `last_error`, shown to console viewers and
 * logged.
 */
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { OperationsConfig } from "../../src/wallet/stuck/OperationsConfig.ts"
import { OperatorAlerts } from "../../src/wallet/stuck/OperatorAlerts.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { testOperationsConfig } from "../support/TestApp.ts"

const secretPart = "hook-7f3c9"
const secretKey = "k3y-0f-the-pager"

const failureOf = (url: string) =>
  Effect.gen(function*() {
    const alerts = yield* OperatorAlerts
    return (yield* Effect.flip(alerts.send("stuck_1", "{}"))).message
  }).pipe(
    Effect.provide(OperatorAlerts.layer.pipe(Layer.provide(Layer.succeed(
      OperationsConfig,
      testOperationsConfig({
        alertUrl: Option.some(url),
        alertSecret: Option.some(Redacted.make("operator-alert-secret-0123456789"))
      })
    ))))
  )

const assertNothingOfTheUrl = (message: string) => {
  for (const part of [secretPart, secretKey, "127.0.0.1", "key="]) assert.notInclude(message, part)
}

describe("operator alerts", () => {
  it.effect("an endpoint that refuses: its status only", () =>
    Effect.gen(function*() {
      const fake = yield* FakeUpstream
      const message = yield* failureOf(`${fake.url}/${secretPart}/alerts?key=${secretKey}`)
      assertNothingOfTheUrl(message)
      assert.include(message, "503")
    }).pipe(
      Effect.provide(FakeUpstream.layer(() => ({ kind: "json", status: 503, body: { error: "restarting" } })))
    ))

  it.effect("an endpoint that cannot be reached: the kind of failure only", () =>
    Effect.gen(function*() {
      // A port nothing listens on (the fake's, once it is closed).
      const url = yield* Effect.map(Effect.service(FakeUpstream), (fake) => fake.url).pipe(
        Effect.provide(FakeUpstream.layer(() => ({ kind: "hang" })))
      )
      const message = yield* failureOf(`${url}/${secretPart}/alerts?key=${secretKey}`)
      assertNothingOfTheUrl(message)
      assert.match(message, /could not be reached/)
    }))
})
