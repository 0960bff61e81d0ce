// @ts-check
// Wallet certification: start a run against a partner's test wallet and follow it case by case as the cases finish
// (each says what it checks, why it failed and the fault it caught, with every request and answer); the partner's
// runs; and the setting that withholds its live token until a run passes.
import { api, attempt, canChange, navigate } from "./session.js"
import { field, fill, formValues, h, notice, table, when } from "./dom.js"

/** How often a running run is read again. */
const followEvery = 300

const statusLabel = {
  passed: "passed",
  failed: "failed",
  skipped: "not run",
  running: "running",
  interrupted: "interrupted",
  not_run: "not run (no verdict)"
}

/**
 * The decimals an ISO currency is written with (JPY 0, BRL 2), or undefined for a code Intl does not take (mBTC).
 * @param {string} code
 */
const decimalsOf = (code) => {
  try {
    return new Intl.NumberFormat("en", { style: "currency", currency: code }).resolvedOptions().maximumFractionDigits
  } catch {
    return undefined
  }
}

/**
 * An amount of the run's currency with its code: a number (a currency of up to 3 decimals) at the currency's
 * decimals, a string (finer currencies) as it came.
 * @param {number | string | null} amount
 * @param {string} code
 */
const money = (amount, code) => {
  if (amount === null) return "—"
  const decimals = typeof amount === "number" ? decimalsOf(code) : undefined
  return `${typeof amount === "number" && decimals !== undefined ? amount.toFixed(decimals) : String(amount)} ${code}`
}

/**
 * A body as the report keeps it (its first 2 KiB), said to be only its beginning when the whole was larger.
 * @param {string} body
 * @param {number | null} bytes the whole body's size
 */
const keptText = (body, bytes) =>
  bytes !== null && bytes > new TextEncoder().encode(body).length
    ? `${body}\n… (cut: the first 2 KiB of ${bytes} bytes)`
    : body

/** A request as it went: the method, each header and the body. */
function requestText(exchange) {
  const headers = Object.entries(exchange.request.headers).map(([name, value]) => `${name}: ${value}`)
  return ["POST", ...headers, "", keptText(exchange.request.body, exchange.request.body_bytes)].join("\n")
}

function answerText(exchange) {
  if (exchange.response === null) return `No answer: ${exchange.error}`
  const body = exchange.response.body === null
    ? "(larger than 64 KiB: not read)"
    : keptText(exchange.response.body, exchange.response.body_bytes)
  return `HTTP ${exchange.response.status}\n\n${body}`
}

function exchangeItem(exchange) {
  return h(
    "li.exchange",
    {},
    h("p", {}, h("strong", {}, exchange.label), ` → ${exchange.reading} (${exchange.millis} ms)`),
    h(
      "div.pair",
      {},
      h("div", {}, h("small", {}, "Request"), h("pre.json", { "data-request": "" }, requestText(exchange))),
      h("div", {}, h("small", {}, "Answer"), h("pre.json", { "data-answer": "" }, answerText(exchange)))
    )
  )
}

/** A case: a passed one in a line (what it checked, its balances and exchanges a click away); a failed one in full. */
function caseItem(result, currency) {
  const timing = result.timing
  const balances = result.balance_before === null && result.balance_after === null ?
    null :
    h(
      "dl.facts",
      {},
      h("dt", {}, "Balance before"),
      h("dd", {}, money(result.balance_before, currency)),
      h("dt", {}, "Expected after"),
      h("dd", {}, money(result.expected_balance, currency)),
      h("dt", {}, "Balance after"),
      h("dd", {}, money(result.balance_after, currency))
    )
  const passed = result.status === "passed"
  return h(
    "li.card.case",
    { "data-case": result.key, "data-status": result.status },
    h("h3", {}, h(`span.badge.${result.status}`, {}, statusLabel[result.status]), " ", result.title),
    passed ? null : h("p.checks", {}, result.checks),
    result.reason === null ? null : h("p.reason", { "data-reason": "" }, result.reason),
    passed ? null : balances,
    timing === null ?
      null :
      h(
        "p",
        { "data-timing": "" },
        `p50 ${timing.p50_ms} ms, p99 ${timing.p99_ms} ms, slowest ${timing.max_ms} ms over ${timing.calls} calls; ` +
          `${timing.timed_out} without an answer within the ${timing.timeout_ms} ms time-out.`
      ),
    result.exchanges.length === 0 && !passed ?
      null :
      h(
        "details",
        {},
        h("summary", {}, `Requests and answers (${result.exchanges.length})`),
        passed ? [h("p.checks", {}, result.checks), balances] : null,
        h("ol.plain", {}, result.exchanges.map(exchangeItem))
      )
  )
}

/** The run's report; while it runs, read again every `followEvery` ms and each finished case added to the list. */
function report(run, onEnd) {
  const status = h(`span.badge.${run.status}`, { "data-run-status": run.status }, statusLabel[run.status])
  const summary = h("p", { "data-run-summary": "" })
  const list = h("ol.plain.cases", { "aria-label": "Cases", "aria-live": "polite" })
  let shown = 0
  const show = (current) => {
    status.className = `badge ${current.status}`
    status.setAttribute("data-run-status", current.status)
    fill(status, statusLabel[current.status])
    fill(summary, current.summary ?? `Running: ${current.cases.length} of ${current.cases_total} cases finished.`)
    for (const result of current.cases.slice(shown)) list.append(caseItem(result, current.currency))
    shown = current.cases.length
  }
  const follow = async () => {
    if (!list.isConnected) return
    try {
      const { certification } = await api("GET", `/certifications/${encodeURIComponent(run.id)}`)
      show(certification)
      if (certification.status === "running") setTimeout(follow, followEvery)
      else onEnd()
    } catch {
      setTimeout(follow, followEvery * 5)
    }
  }
  show(run)
  if (run.status === "running") setTimeout(follow, followEvery)
  return h(
    "section.card",
    { "aria-labelledby": "report-title", "data-run": run.id },
    h("h2", { id: "report-title" }, `Run ${run.id} `, status),
    h(
      "dl.facts",
      {},
      h("dt", {}, "Test player"),
      h("dd", {}, run.external_player_id),
      h("dt", {}, "Currency"),
      h("dd", { "data-run-currency": "" }, run.currency),
      h("dt", {}, "Sent to"),
      h("dd", {}, run.callback_url),
      h("dt", {}, "Started by"),
      h("dd", {}, `${run.started_by} (${run.started_via})`),
      h("dt", {}, "Started"),
      h("dd", {}, when(run.started_at)),
      h("dt", {}, "Time-out"),
      h("dd", {}, `${run.timeout_ms} ms`)
    ),
    summary,
    list
  )
}

export async function certificationPage(main, params) {
  const { partners } = await api("GET", "/partners")
  if (partners.length === 0) return fill(main, h("h1", {}, "Wallet certification"), h("p.empty", {}, "No partner yet."))
  const partner = partners.find((p) => p.slug === params.get("partner")) ?? partners[0]
  const path = `/partners/${encodeURIComponent(partner.slug)}`
  const overview = await api("GET", `${path}/certifications`)
  const runId = params.get("run") ?? overview.runs[0]?.id
  const current = runId === undefined
    ? undefined
    : (await api("GET", `/certifications/${encodeURIComponent(runId)}`)).certification
  const region = h("div", { "aria-live": "polite" })
  const here = (run) =>
    `/admin/certification?partner=${encodeURIComponent(partner.slug)}${
      run === undefined ? "" : `&run=${encodeURIComponent(run)}`
    }`
  const testUrl = partner.environments.find((e) => e.environment === "test")?.callback_url ??
    "the sandbox partner wallet"

  const chooser = h(
    "form.inline",
    {
      on: {
        submit: (event) => {
          event.preventDefault()
          navigate(`/admin/certification?partner=${encodeURIComponent(formValues(chooser).partner)}`)
        }
      }
    },
    field("Partner", {
      type: "select",
      name: "partner",
      value: partner.slug,
      options: partners.map((p) => [p.slug, p.name])
    }),
    h("button.secondary", { type: "submit" }, "Show")
  )

  const startForm = h(
    "form.card",
    {
      "aria-labelledby": "start-title",
      on: {
        submit: async (event) => {
          event.preventDefault()
          const answer = await attempt(
            region,
            () =>
              api("POST", `${path}/certifications`, { external_player_id: formValues(startForm).external_player_id })
          )
          if (answer) {
            navigate(here(answer.certification.id))
          }
        }
      }
    },
    h("h2", { id: "start-title" }, `Certify the test wallet of ${partner.name}`),
    h(
      "p",
      {},
      `25 cases go to ${testUrl}, signed with the test webhook secret: balance, win, bet, refund, rollback, the same event ` +
        "twice, a replay after the balance moved, a refund and a rollback twice, one event id with another body, the " +
        "same event 20 times at once, two events of one player at once, a Hub88 round and a Hub88 bet with its " +
        "rollback at once, a rollback before its bet, bad signatures, " +
        "insufficient funds, an unknown player, another currency, amounts to the minor unit, a zero bet, conservation " +
        "and answer times. The run plays in the partner's default currency, its amounts scaled to it; the test player " +
        "is left as it was found. Only a run against the partner's own test callback URL counts for the live token."
    ),
    field(
      "Test player",
      {
        name: "external_player_id",
        required: true,
        value: overview.runs[0]?.external_player_id ?? ""
      },
      "The partner's own id of one of its test players (launched once with the test token, in the partner's default currency)"
    ),
    h("button", { type: "submit" }, "Start certification")
  )

  const required = overview.certification_required
  const setting = h(
    "section.card",
    { "aria-labelledby": "setting-title" },
    h("h2", { id: "setting-title" }, "Live token"),
    h(
      "p",
      { "data-requirement": required ? "required" : "free" },
      required
        ? "A passed certification is required: the live token is issued only once the latest run passed."
        : "The live token does not wait for a certification."
    ),
    h(
      "p",
      { "data-live-token": overview.live_token_issued ? "issued" : "none" },
      `Live token: ${overview.live_token_issued ? "issued" : "none issued"}.`
    ),
    !canChange() ? null : h(required ? "button.secondary" : "button", {
      type: "button",
      on: {
        click: async () => {
          if (
            !required &&
            !confirm(
              `Require a passed certification before ${partner.name}'s live token is issued? Without a passed ` +
                "run, its live token is withdrawn now and stops working."
            )
          ) return
          const answer = await attempt(
            region,
            () => api("POST", `${path}/certification-requirement`, { required: !required })
          )
          if (answer === undefined) {
            return
          }
          await certificationPage(main, new URLSearchParams(location.search))
          fill(
            main.querySelector("#outcome"),
            notice(
              "ok",
              answer.certification_required
                ? `A passed certification is now required for ${partner.name}${
                  answer.live_token_withdrawn ? ": its live token was withdrawn." : "."
                }`
                : `${partner.name}'s live token no longer waits for a certification.`
            )
          )
        }
      }
    }, required ? "Stop requiring a certification" : "Require a passed certification")
  )

  const runs = () =>
    table(
      "Runs",
      ["Started", "By", "Test player", "Wallet", "Status", "Summary", ""],
      overview.runs.map((run) => [
        when(run.started_at),
        `${run.started_by} (${run.started_via})`,
        run.external_player_id,
        // Only a run against the partner's own test callback URL certifies it (the live token's gate counts no other).
        run.partner_wallet ? "its own" : "practice (the sandbox's)",
        h(`span.badge.${run.status}`, {}, statusLabel[run.status]),
        run.summary ?? "—",
        run.id === current?.id
          ? "shown"
          : h("button.secondary.small", { type: "button", on: { click: () => navigate(here(run.id)) } }, "View")
      ]),
      "No run yet."
    )
  const runsRegion = h("div", {}, runs())
  const refreshRuns = async () => {
    overview.runs = (await api("GET", `${path}/certifications`)).runs
    fill(runsRegion, runs())
  }

  fill(
    main,
    h("h1", {}, "Wallet certification"),
    h("div", { id: "outcome", "aria-live": "polite" }),
    region,
    chooser,
    canChange() ? startForm : h("p.empty", {}, "Your role (viewer) can read runs but not start one."),
    current === undefined ? h("p.empty", {}, "No run yet.") : report(current, refreshRuns),
    setting,
    h("h2", {}, "Runs"),
    runsRegion
  )
}
