// @ts-check
// The partner's wallet certification runs, newest first, and a run's report case by case (what it checks, passed or
// why not), as the partner API answers them. Read-only: runs start with the test token, or by the operator.
import { facts, fill, h, table, when } from "./dom.js"
import { api, errorText, link } from "./session.js"

/** How many runs a page lists. */
const perPage = 20

const statusLabel = {
  passed: "passed",
  failed: "failed",
  skipped: "not run",
  running: "running",
  interrupted: "interrupted"
}

/** @param {string} status */
const badge = (status) => h(`span.badge.${status}`, {}, statusLabel[/** @type {keyof typeof statusLabel} */ (status)])

/** @param {Record<string, string>} params */
const here = (params) => `/portal/certification?${new URLSearchParams(params)}`

/** The runs of this page, each linking to its report. */
function runsTable(certifications, shown, pageNumber) {
  return table(
    "Runs",
    ["Status", "Started", "By", "Summary", "Currency", "Callback URL", "Report"],
    certifications.map((run) => [
      badge(run.status),
      when(run.started_at),
      `${run.started_by} (${run.started_via})`,
      run.summary ?? "—",
      run.currency,
      h("code", {}, run.callback_url === "" ? "the sandbox partner wallet" : run.callback_url),
      run.id === shown ? "shown" : link(here({ run: run.id, page: String(pageNumber) }), `View ${run.id}`)
    ]),
    "No run yet: start one with your test token (POST /wallet/certifications)."
  )
}

/** A run's report: its facts and each case's title, status and reason. */
function report(run) {
  return h(
    "section.card",
    { "aria-labelledby": "report-title", "data-run": run.id },
    h("h2", { id: "report-title" }, `Run ${run.id} `, badge(run.status)),
    facts([
      ["Test player", run.external_player_id],
      ["Currency", run.currency],
      ["Sent to", run.callback_url === "" ? "the sandbox partner wallet" : run.callback_url],
      ["Started by", `${run.started_by} (${run.started_via})`],
      ["Started", when(run.started_at)],
      ["Summary", run.summary ?? `Running: ${run.cases.length} of ${run.cases_total} cases finished.`]
    ]),
    table(
      "Cases",
      ["Case", "Status", "Reason"],
      run.cases.map((result) => [result.title, badge(result.status), result.reason ?? "—"]),
      "No case has finished yet."
    ),
    h(
      "p",
      {},
      "Every request and answer of each case (each body kept to its first 2 KiB): GET /wallet/certifications/",
      h("code", {}, run.id),
      " with your test token."
    )
  )
}

export async function certificationPage(main, params) {
  const pageNumber = Math.max(1, Number(params.get("page") ?? "1") || 1)
  const runId = params.get("run")
  const [listed, shown] = await Promise.all([
    api("GET", `/certifications?page=${pageNumber}&per_page=${perPage}`),
    runId === null
      ? Promise.resolve(null)
      : api("GET", `/certifications/${encodeURIComponent(runId)}`).catch((error) => ({ error }))
  ])
  const pages = Math.max(1, Math.ceil(listed.meta.total / perPage))
  const pager = pages === 1 ? null : h(
    "p",
    {},
    pageNumber > 1 ? link(here({ page: String(pageNumber - 1) }), "Newer runs") : null,
    ` Page ${pageNumber} of ${pages} `,
    pageNumber < pages ? link(here({ page: String(pageNumber + 1) }), "Older runs") : null
  )
  fill(
    main,
    h("h1", {}, "Certification"),
    h(
      "p",
      {},
      "Your test wallet's certification runs, newest first, as GET /wallet/certifications of the partner API lists " +
        "them. Runs are kept 90 days (your latest verdict on your own wallet longer)."
    ),
    shown === null ? null : shown.error ? h("p.notice.error", { role: "alert" }, errorText(shown.error)) : report(
      shown.certification
    ),
    h("h2", {}, `${listed.meta.total} run${listed.meta.total === 1 ? "" : "s"}`),
    runsTable(listed.certifications, shown?.certification?.id, pageNumber),
    pager
  )
}
