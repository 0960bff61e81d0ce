import { Effect, Option } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { notFound } from "../../api/identity/Errors.ts"
import { page } from "../../api/Paging.ts"
import { PortalApi } from "../../api/portal/PortalApi.ts"
import { listingOf, statementAnswer, statementDocument } from "../../api/StatementsEdge.ts"
import type { Environment } from "../../domain/Environment.ts"
import { Partners } from "../../partners/Partners.ts"
import { Statements } from "../../wallet/statements/Statements.ts"
import { partnerOfSession } from "./Common.ts"

/**
 * The contract's "statements" group: the session's partner's daily statements, read and signed as the partner API
 * reads and signs them (Statements.readSigned), so the portal's file is the one the partner's servers fetch.
 */
export const PortalStatementsHandlers = HttpApiBuilder.group(
  PortalApi,
  "statements",
  Effect.fn(function*(handlers) {
    const statements = yield* Statements
    const partners = yield* Partners
    // The statement's owner as the service reads it: its creation bounds the days it has statements of.
    const signed = (environment: Environment, day: string) =>
      Effect.gen(function*() {
        const { id } = yield* partnerOfSession
        const partner = Option.getOrThrow(yield* partners.findById(id))
        return yield* statements.readSigned({ ...partner, environment }, day)
      }).pipe(Effect.mapError(notFound))
    return handlers
      .handle("list", ({ params, query }) =>
        Effect.gen(function*() {
          const partner = yield* partnerOfSession
          const found = yield* statements.recent({
            partnerId: partner.id,
            environment: params.environment,
            limit: query.limit ?? 60
          })
          return {
            success: true as const,
            statements: found.map((statement) => listingOf(partner.slug, statement))
          }
        }))
      .handle(
        "statement",
        ({ params, query }) =>
          Effect.flatMap(signed(params.environment, params.date), statementAnswer(page(query))).pipe(
            Effect.map((answer) => ({ success: true as const, ...answer }))
          )
      )
      .handle("document", ({ params }) => Effect.flatMap(signed(params.environment, params.date), statementDocument))
  })
)
