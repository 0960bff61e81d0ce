/**
 * The performance goals, each measured against a baseline run beside it in
 * the same run (a raw node:http server, the plain WinBet program, PostgreSQL's
 * own time for the query, a COPY of the same rows). Scenarios record a row as
 * they measure it; the table is printed once at the end of the run.
 */

export interface GoalRow {
  /** What was measured: `GET /status, bearer token, limit on (50 connections)`. */
  readonly path: string
  /** The baseline and its figure in this run. */
  readonly baseline: string
  /** The service's figure. */
  readonly service: string
  /** The figure the goal is about: a ratio to the baseline, a p99, a duration. */
  readonly figure: string
  readonly goal: string
  readonly met: boolean
  /** The same figure for each BENCH_BASELINE revision, measured in the same rounds. */
  readonly revisions?: ReadonlyArray<{ readonly revision: string; readonly figure: string }>
}

const rows: Array<GoalRow> = []

export const recordGoal = (row: GoalRow) => {
  rows.push(row)
}

const cell = (text: string) => text.replace(/\|/g, "\\|")

/** The goals measured in this run, as a Markdown table (docs/benchmarks.md keeps the same table). */
export const printGoals = () => {
  if (rows.length === 0) return
  const revisions = [...new Set(rows.flatMap((row) => row.revisions?.map((r) => r.revision) ?? []))]
  const header = ["path", "baseline, same run", "service", "figure", ...revisions.map((r) => `at ${r}`), "goal", "met"]
  const lines = [
    "",
    "Goals: each against its baseline measured in the same run (medians of the rounds)",
    `| ${header.join(" | ")} |`,
    `|${header.map(() => "---").join("|")}|`,
    ...rows.map((row) =>
      `| ${
        [
          row.path,
          row.baseline,
          row.service,
          row.figure,
          ...revisions.map((revision) => row.revisions?.find((r) => r.revision === revision)?.figure ?? ""),
          row.goal,
          row.met ? "yes" : "no"
        ].map(cell).join(" | ")
      } |`
    )
  ]
  console.log(lines.join("\n"))
}

export const number = (value: number, digits = 0) =>
  value.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits })

/** BENCH_BASELINE=<revision>[,<revision>...]: the service as it was there runs beside the current one. */
export const baselineRevisions: ReadonlyArray<string> =
  process.env.BENCH_BASELINE?.split(",").map((revision) => revision.trim()).filter((revision) => revision !== "") ?? []
