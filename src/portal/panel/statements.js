// @ts-check
// The partner's daily statements, per environment: the days listed with each currency's totals, one day opened (its
// totals, its document's digest and signature, its transactions), and its signed document downloaded: the same file
// GET /wallet/statements/{date}?format=jsonl of the partner API answers, checked with the webhook secret.
import { facts, field, fill, formValues, h, money, notice, table, when } from "./dom.js"
import { api, attempt, client, errorText, link, navigate } from "./session.js"
import { environments, who } from "./who.js"

/** A day's totals in each of its currencies, one line each (never added across currencies). */
const totalsOf = (currencies) =>
  currencies.length === 0 ? "No activity" : h(
    "ul.plain",
    {},
    currencies.map((entry) =>
      h(
        "li",
        { "data-currency": entry.currency },
        "Bets ",
        money(entry.totals.bets, entry.currency),
        " · wins ",
        money(entry.totals.wins, entry.currency),
        " · refunds ",
        money(entry.totals.refunds, entry.currency),
        " · rollbacks ",
        money(entry.totals.rollbacks, entry.currency),
        " · net ",
        money(entry.totals.net, entry.currency)
      )
    )
  )

/** The page's address for an environment, and a day opened in it (its page of transactions). */
const pathOf = (environment, date = "", page = 1) => {
  const query = new URLSearchParams({ environment })
  if (date !== "") query.set("date", date)
  if (page > 1) query.set("page", String(page))
  return `/portal/statements?${query}`
}

/**
 * Downloads a day's signed document: fetched with the session (the API client reads JSON only), saved under a name
 * that says whose, which environment and which day; a refusal is shown in `region`.
 * @param {HTMLElement} region
 * @param {string} environment
 * @param {string} date
 */
const download = (region, environment, date) =>
  attempt(region, async () => {
    const response = await fetch(`${client.base}/api/statements/${environment}/${date}/document`, {
      credentials: "same-origin"
    })
    if (!response.ok) throw new Error((await response.json().catch(() => null))?.message ?? `HTTP ${response.status}`)
    const url = URL.createObjectURL(await response.blob())
    const save = h("a", { href: url, download: `statement-${who.partner?.slug}-${environment}-${date}.jsonl` })
    document.body.append(save)
    save.click()
    save.remove()
    setTimeout(() => URL.revokeObjectURL(url), 10_000)
  }, `The statement of ${date} (${environment}) was downloaded.`)

/** The download button of a day, its outcome shown in `region`. */
const downloadButton = (region, environment, date) =>
  h("button.secondary.small", { type: "button", on: { click: () => download(region, environment, date) } }, "Download")

/** One day opened: its totals, its document, its transactions (50 a page). */
async function statementView(environment, date, page) {
  const found = await api("GET", `/statements/${environment}/${date}?page=${page}&per_page=50`)
  const outcome = h("div", { "aria-live": "polite" })
  const { meta, statement } = found
  const pages = Math.max(1, Math.ceil(meta.total / meta.per_page))
  return h(
    "section.card",
    { "aria-labelledby": "statement-title", "data-statement": date },
    h("h2", { id: "statement-title" }, `Statement of ${date} (${environment})`),
    facts([
      ["From", when(statement.from)],
      ["To", when(statement.to)],
      ["Transactions", String(statement.counts.transactions)],
      ["Totals", totalsOf(statement.currencies)],
      ["Computed", when(statement.computed_at)],
      ["Document", `${found.document.lines} lines, ${found.document.bytes} bytes, SHA-256 ${found.document.sha256}`],
      ["Signature", h("code.id", {}, found.signature)]
    ]),
    h(
      "p",
      {},
      "The document is signed as callbacks are: X-Statement-Signature is HMAC-SHA256 of the file with your webhook ",
      "secret. Reconcile a day against your own books with POST /wallet/statements/{date}/reconciliation of the partner ",
      "API."
    ),
    h("div.actions", {}, downloadButton(outcome, environment, date), link(pathOf(environment), "Back to the list")),
    outcome,
    table(
      `Transactions of ${date}`,
      ["Transaction", "Kind", "Status", "Player", "Round", "Bet / win / amount", "Created"],
      found.transactions.map((line) => [
        h("code.id", {}, line.transaction_id),
        line.kind,
        line.rolled_back ? `${line.status} (rolled back)` : line.status,
        h("code.id", {}, line.external_player_id),
        h("code.id", {}, line.round_id),
        [
          money(line.bet, line.currency),
          " / ",
          money(line.win, line.currency),
          " / ",
          money(line.amount, line.currency)
        ],
        when(line.created_at)
      ]),
      "No transaction that day."
    ),
    pages === 1 ? null : h(
      "p.actions",
      {},
      page > 1 ? link(pathOf(environment, date, page - 1), "Previous page") : null,
      `Page ${page} of ${pages}`,
      page < pages ? link(pathOf(environment, date, page + 1), "Next page") : null
    )
  )
}

export async function statementsPage(main, params) {
  const environment = params.get("environment") === "test" ? "test" : "live"
  const date = params.get("date") ?? ""
  const page = Math.max(1, Number(params.get("page")) || 1)
  const [{ statements }, opened] = await Promise.all([
    api("GET", `/statements/${environment}?limit=60`),
    date === "" ?
      Promise.resolve(null) :
      statementView(environment, date, page).catch((error) => notice("error", errorText(error)))
  ])
  const outcome = h("div", { "aria-live": "polite" })
  const chooser = h(
    "form.inline",
    { role: "search" },
    field("Environment", { type: "select", name: "environment", value: environment, options: environments })
  )
  chooser.addEventListener("change", () => navigate(pathOf(formValues(chooser).environment)))
  fill(
    main,
    h("h1", {}, "Statements"),
    h(
      "p",
      {},
      "Each UTC day's statement of your wallet transactions, written minutes after the day ends: its totals per ",
      "currency, and the signed file GET /wallet/statements/{date} of the partner API answers."
    ),
    chooser,
    opened,
    outcome,
    table(
      `${environment === "live" ? "Live" : "Test"} statements`,
      ["Day", "Transactions", "Totals", "Computed", ""],
      statements.map((statement) => [
        statement.date,
        String(statement.transactions),
        totalsOf(statement.currencies),
        when(statement.computed_at),
        h(
          "div.actions",
          {},
          link(pathOf(environment, statement.date), "Open"),
          downloadButton(outcome, environment, statement.date)
        )
      ]),
      "No statement yet: the first is written minutes after the first UTC day ends."
    )
  )
}
