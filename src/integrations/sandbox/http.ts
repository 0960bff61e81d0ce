import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../../api/Api.ts"
import { servedApi } from "../../platform/QueryOnce.ts"
import { respond } from "../../api/Respond.ts"
import { asSandboxPartner, callRefused, sandboxCallAnswer, unknownRound } from "../../api/Sandbox.ts"
import { statementAnswer, statementNotReady } from "../../api/StatementsEdge.ts"
import { Statements } from "../../wallet/statements/Statements.ts"
import { SandboxDriver } from "./SandboxDriver.ts"

/** The partner API's sandbox group: a test token's partner drives its own test rounds and statement only. */
export const SandboxHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "sandbox",
  Effect.fn(function*(handlers) {
    const driver = yield* SandboxDriver
    const statements = yield* Statements
    const firstPage = { page: 1, perPage: 50 }

    return handlers
      .handle("refund", ({ params }) =>
        respond(
          (partner) =>
            asSandboxPartner(
              partner,
              Effect.catchTag(driver.refund(partner.id, params.round_id), "UnknownSandboxRound", unknownRound)
            ),
          sandboxCallAnswer
        ))
      .handle("rollback", ({ params }) =>
        respond(
          (partner) =>
            asSandboxPartner(
              partner,
              Effect.catchTag(driver.rollback(partner.id, params.round_id), "UnknownSandboxRound", unknownRound)
            ),
          sandboxCallAnswer
        ))
      .handle("lateWin", ({ params, payload }) =>
        respond(
          (partner) =>
            asSandboxPartner(
              partner,
              driver.lateWin(partner.id, params.round_id, payload.amount).pipe(
                Effect.catchTag("UnknownSandboxRound", unknownRound),
                Effect.catchTag("SandboxCallRefused", callRefused)
              )
            ),
          sandboxCallAnswer
        ))
      .handle("refusedBet", ({ payload }) =>
        respond(
          (partner) =>
            asSandboxPartner(
              partner,
              Effect.catchTag(
                driver.refusedBet(partner.id, payload.external_player_id, payload.currency ?? null),
                "SandboxCallRefused",
                callRefused
              )
            ),
          sandboxCallAnswer
        ))
      .handle("closeToday", () =>
        respond(
          (partner) =>
            asSandboxPartner(
              partner,
              Effect.map(
                statements.closeSoFar(partner).pipe(Effect.mapError(statementNotReady)),
                (closed) => closed.statement
              )
            ),
          statementAnswer(firstPage)
        ))
  })
)
