import { Clock, Duration, Effect, Layer, Option } from "effect"
import type { CaseResult, Certification } from "../../domain/Certification.ts"
import { nextRunAt } from "../../domain/CertificationRuns.ts"
import { pageOf, slicePage } from "../../domain/Paging.ts"
import { CallbacksConfig } from "../CallbacksConfig.ts"
import {
  abandoned,
  CertificationInProgress,
  CertificationRepo,
  CertificationRunsLimited,
  type CertificationSummary,
  recoveryClaim,
  staleAfterOf
} from "./CertificationRepo.ts"

/**
 * The same rules over memory, for tests without PostgreSQL: one running run per partner (a stale one, untouched
 * for longer than a run could take by the Clock, reads as interrupted and is closed when the partner starts
 * another), the partner's own starts limited in a rolling hour by the Clock, cases once per position and key in the
 * run's order, newest runs first, old runs pruned but for each partner's latest verdict on its own wallet. `lockPartner` holds nothing:
 * memory has no transaction to hold a lock until, so the race it serializes is a test for the SQL layer. Its
 * partners are not checked (the SQL's foreign key is).
 */
export const layerMemory = Layer.effect(
  CertificationRepo,
  Effect.map(
    CallbacksConfig,
    (config) => makeMemory(Duration.toMillis(staleAfterOf(config.timeout)), config.certificationRunsPerHour)
  )
)

const makeMemory = (staleAfter: number, runsPerHour: number): CertificationRepo["Service"] => {
  interface Stored {
    readonly ref: number
    summary: CertificationSummary
    updatedAt: number
    recoveryStartedAt: number | null
    recoveredAt: number | null
    readonly cases: Array<CaseResult & { readonly position: number }>
  }
  const runs: Array<Stored> = []
  const required = new Set<number>()
  let nextRef = 1
  const isStale = (run: Stored, now: number) => run.summary.status === "running" && run.updatedAt < now - staleAfter
  /** The run as read at `now`: a stale one as interrupted. */
  const view = (run: Stored, now: number): CertificationSummary =>
    isStale(run, now) ? { ...run.summary, status: "interrupted", summary: abandoned } : run.summary
  const byId = (id: string) => runs.find((run) => run.summary.id === id)
  return CertificationRepo.of({
    insert: (run) =>
      Effect.gen(function*() {
        const now = yield* Clock.currentTimeMillis
        for (const old of runs) {
          if (old.summary.partnerId === run.partnerId && isStale(old, now)) {
            old.summary = { ...old.summary, status: "interrupted", summary: abandoned, finishedAt: new Date(now) }
          }
        }
        if (run.startedVia === "api") {
          const starts = runs.filter((old) => old.summary.partnerId === run.partnerId).map((old) =>
            old.summary.startedAt
          )
          const nextAt = nextRunAt(starts, runsPerHour, new Date(now))
          if (nextAt !== null) {
            return yield* new CertificationRunsLimited({ perHour: runsPerHour, nextAt, now: new Date(now) })
          }
        }
        const running = runs.find((old) => old.summary.partnerId === run.partnerId && old.summary.status === "running")
        if (running !== undefined) return yield* new CertificationInProgress({ id: running.summary.id })
        if (byId(run.id) !== undefined) {
          return yield* Effect.die(new Error(`wallet_certifications: public_id ${run.id} is taken`))
        }
        const summary: CertificationSummary = {
          ...run,
          status: "running",
          summary: null,
          startedAt: new Date(now),
          finishedAt: null
        }
        runs.push({ ref: nextRef++, summary, updatedAt: now, recoveryStartedAt: null, recoveredAt: null, cases: [] })
        return summary
      }),
    recordCase: (id, position, result) =>
      Effect.flatMap(Clock.currentTimeMillis, (now) => {
        const run = byId(id)
        if (run === undefined) return Effect.void
        if (run.cases.some((done) => done.position === position || done.key === result.key)) {
          return Effect.die(
            new Error(`wallet_certification_cases: case ${position} (${result.key}) of ${id} is recorded already`)
          )
        }
        run.updatedAt = now
        run.cases.push({ ...result, position })
        run.cases.sort((a, b) => a.position - b.position)
        return Effect.void
      }),
    finish: (id, status, summary) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const run = byId(id)
        if (run === undefined || run.summary.status !== "running") return
        run.summary = { ...run.summary, status, summary, finishedAt: new Date(now) }
        run.updatedAt = now
      }),
    find: (id, partnerId) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const run = byId(id)
        if (run === undefined || (partnerId !== undefined && run.summary.partnerId !== partnerId)) {
          return Option.none()
        }
        return Option.some<Certification>({
          ...view(run, now),
          cases: run.cases.map(({ position: _, ...result }) => result)
        })
      }),
    findPage: (id, partnerId, request) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const run = byId(id)
        if (run === undefined || run.summary.partnerId !== partnerId) return Option.none()
        const page = slicePage(request, run.cases.map(({ position: _, ...result }) => result))
        return Option.some({ run: { ...view(run, now), cases: page.results }, casesFinished: page.total })
      }),
    listPage: (partnerId, request) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const page = slicePage(
          request,
          runs.filter((run) => run.summary.partnerId === partnerId).sort((a, b) => b.ref - a.ref)
        )
        return pageOf(request, page.results.map((run) => view(run, now)), page.total)
      }),
    prune: (olderThan) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const before = now - Duration.toMillis(olderThan)
        // Each partner's latest verdict on its own wallet, as the SQL's (what `requirement` judges).
        const latestFinished = new Map<number, number>()
        for (const run of runs) {
          const verdict = run.summary.status === "passed" || run.summary.status === "failed"
          if (!verdict || !run.summary.partnerWallet) continue
          const latest = latestFinished.get(run.summary.partnerId)
          if (latest === undefined || run.ref > latest) latestFinished.set(run.summary.partnerId, run.ref)
        }
        const kept = runs.filter((run) =>
          run.summary.startedAt.getTime() >= before || latestFinished.get(run.summary.partnerId) === run.ref
        )
        const pruned = runs.length - kept.length
        runs.splice(0, runs.length, ...kept)
        return pruned
      }),
    list: (partnerId, limit) =>
      Effect.map(
        Clock.currentTimeMillis,
        (now) =>
          runs.filter((run) => run.summary.partnerId === partnerId).sort((a, b) => b.ref - a.ref).slice(0, limit)
            .map((run) => view(run, now))
      ),
    requirement: (partnerId) =>
      Effect.sync(() => {
        const verdicts = runs.filter((run) =>
          run.summary.partnerId === partnerId && run.summary.partnerWallet &&
          (run.summary.status === "passed" || run.summary.status === "failed")
        )
        const latest = verdicts.reduce<Stored | undefined>(
          (newest, run) => newest === undefined || run.ref > newest.ref ? run : newest,
          undefined
        )
        return {
          required: required.has(partnerId),
          latest: latest === undefined ? null : {
            status: latest.summary.status === "passed" ? "passed" as const : "failed" as const,
            callbackUrl: latest.summary.callbackUrl
          }
        }
      }),
    claimInterrupted: Effect.map(Clock.currentTimeMillis, (now) => {
      const run = runs.find((run) =>
        run.recoveredAt === null &&
        (run.summary.status === "interrupted" || run.summary.status === "not_run" || isStale(run, now)) &&
        (run.recoveryStartedAt === null || run.recoveryStartedAt < now - Duration.toMillis(recoveryClaim))
      )
      if (run === undefined) return Option.none()
      if (run.summary.status === "running") {
        run.summary = { ...run.summary, status: "interrupted", summary: abandoned, finishedAt: new Date(now) }
      }
      run.recoveryStartedAt = now
      const balance = run.cases.find((done) => done.key === "balance" && done.status === "passed")
      return Option.some({
        id: run.summary.id,
        partnerId: run.summary.partnerId,
        externalPlayerId: run.summary.externalPlayerId,
        currency: run.summary.currency,
        startedAt: run.summary.startedAt,
        start: balance?.balanceAfter ?? null
      })
    }),
    recovered: (id, note) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        const run = byId(id)
        if (run === undefined) return
        run.recoveredAt = now
        run.summary = { ...run.summary, summary: [run.summary.summary, note].filter(Boolean).join(" ") }
      }),
    setRequired: (partnerId, on) =>
      Effect.sync(() => {
        const had = required.has(partnerId)
        if (on) required.add(partnerId)
        else required.delete(partnerId)
        return had !== on
      }),
    lockPartner: () => Effect.void
  })
}
