/** The admin CLI's wallet certification: `partners certify` runs one, `partners certifications` lists them. */
import { Console, Effect, Schema } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { CertificationCodec, certificationView } from "../../src/api/Certification.ts"
import type { CaseResult } from "../../src/domain/Certification.ts"
import { cases } from "../../src/domain/CertificationCaseTexts.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { AdminLayers } from "./layers.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { cliActor } from "./accounts.ts"
import { printJson, slug, userFacing } from "./output.ts"

const encodeReport = Schema.encodeSync(CertificationCodec)

/** A case as it finishes, on stderr: the operator watches the run while stdout keeps the report for a pipe. */
const caseLine = (result: CaseResult) =>
  Console.error(
    `${result.status === "passed" ? "passed " : result.status === "failed" ? "FAILED " : "not run"} ` +
      `${cases[result.key].title}${result.reason === null ? "" : `: ${result.reason}`}`
  )

export const certify = Command.make("certify", {
  slug,
  player: Flag.String("player").pipe(Flag.withDescription(
    "The test player the run plays with: the partner's own id (external_player_id) of one of its test players, left as it was found"
  ))
}, ({ player, slug }) =>
  Effect.gen(function*() {
    const partner = yield* userFacing((yield* Partners).show(slug))
    const report = yield* userFacing(
      (yield* Certifications).run(partner.id, player, { name: cliActor.name, via: "cli" }, caseLine)
    )
    yield* printJson(encodeReport(certificationView(report)))
    if (report.status !== "passed") {
      return yield* new CliError.UserError({
        cause: report.status,
        userMessage: `The wallet certification of ${slug} ${
          report.status === "failed" ? "failed" : "was interrupted"
        }: ${report.summary}`
      })
    }
  })).pipe(
    Command.withDescription(
      "Certify the partner's test wallet now, in the partner's default currency: every case is sent from this process to its test callback URL (or the sandbox " +
        "partner wallet at PUBLIC_URL), signed with its test webhook secret; prints the report, case by case on stderr as " +
        "they finish; exit code 0 only when every case passed"
    ),
    Command.provide(AdminLayers.certification)
  )

export const certifications = Command.make("certifications", {
  slug,
  limit: Flag.Int("limit").pipe(Flag.withDescription("How many runs, newest first (default 20)"), Flag.withDefault(20))
}, ({ limit, slug }) =>
  Effect.gen(function*() {
    const partner = yield* userFacing((yield* Partners).show(slug))
    const service = yield* Certifications
    const requirement = yield* service.requirement(partner.id)
    const runs = yield* service.list(partner.id, Math.max(1, Math.min(limit, 200)))
    yield* printJson({
      slug: partner.slug,
      certification_required: requirement.required,
      runs: runs.map((run) => {
        const { cases: _, cases_total: __, ...summary } = encodeReport(certificationView({ ...run, cases: [] }))
        return summary
      })
    })
  })).pipe(
    Command.withDescription(
      "The partner's wallet certification runs, newest first, and whether its live token requires a passed one"
    ),
    Command.provide(AdminLayers.certification)
  )
