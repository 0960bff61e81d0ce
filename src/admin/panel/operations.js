// @ts-check
// Statements: a partner's statement of a day and environment (totals, counts, signature, transactions paged) and
// the latest ones. Stuck: what the wallet could not finish on its own (rounds open too long, bets pending past
// their time-out, notifications out of attempts), each with its operator alert, and what was resolved lately.
import { api, navigate } from "./session.js"
import { environmentBadge, facts, field, fill, formValues, h, notice, table, when } from "./dom.js"

/** A UTC day as YYYY-MM-DD, `days` before today. */
const dayBefore = (days) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10)

/** An amount as the API writes it, in its currency's units (a number, or a string past 3 decimals), as it is. */
const money = (value) => String(value)

/** Totals per currency, one line each: never added across currencies. */
const perCurrency = (currencies, field) =>
  currencies.length === 0
    ? "—"
    : currencies.map((entry) => `${money(entry.totals[field])} ${entry.currency}`).join(", ")

function statementView(answer, params) {
  const { counts, currencies } = answer.statement
  const { meta } = answer
  const pages = Math.max(1, Math.ceil(meta.total / meta.per_page))
  const pageLink = (page, text) => {
    const next = new URLSearchParams(params)
    next.set("page", String(page))
    return h(
      "button.secondary.small",
      { type: "button", on: { click: () => navigate(`/admin/statements?${next}`) } },
      text
    )
  }
  return h(
    "section",
    {
      "aria-labelledby": "statement-title",
      "data-statement": `${answer.statement.partner}/${answer.statement.environment}/${answer.statement.date}`
    },
    h(
      "h2",
      { id: "statement-title" },
      `Statement of ${answer.statement.partner} for ${answer.statement.date} `,
      environmentBadge(answer.statement.environment)
    ),
    h(
      "div.card",
      {},
      facts([
        [
          "Transactions",
          `${counts.transactions} (${counts.bets} bets applied, ${counts.refused_bets} refused, ${counts.wins} wins, ` +
          `${counts.refunds} refunds, ${counts.rollbacks} rolled back)`
        ],
        ["Computed", when(answer.statement.computed_at)],
        ["Document SHA-256", h("code", {}, answer.document.sha256)],
        ["Signature", h("code", {}, answer.signature)]
      ])
    ),
    table(
      "Totals per currency",
      ["Currency", "Transactions", "Bets", "Wins", "Refunds", "Rollbacks", "Net (players)"],
      currencies.map((entry) => [
        entry.currency,
        String(entry.counts.transactions),
        money(entry.totals.bets),
        money(entry.totals.wins),
        money(entry.totals.refunds),
        money(entry.totals.rollbacks),
        money(entry.totals.net)
      ]),
      "No transaction that day: no currency."
    ),
    table(
      "Transactions",
      ["Transaction", "Kind", "Status", "Player", "Round", "Currency", "Bet", "Win", "Amount", "Created"],
      answer.transactions.map((line) => [
        h("a", {
          href: `/admin/wallet?partner=${
            encodeURIComponent(answer.statement.partner)
          }&environment=${answer.statement.environment}&transaction_id=${encodeURIComponent(line.transaction_id)}`
        }, line.transaction_id),
        line.kind,
        h(`span.badge.${line.status}`, {}, line.rolled_back ? `${line.status}, rolled back` : line.status),
        line.external_player_id,
        line.round_id,
        line.currency,
        money(line.bet),
        money(line.win),
        money(line.amount),
        when(line.created_at)
      ]),
      "No transaction that day: an empty statement."
    ),
    pages > 1 ?
      h(
        "div.actions",
        {},
        meta.page > 1 ? pageLink(meta.page - 1, "Previous") : null,
        `Page ${meta.page} of ${pages}`,
        meta.page < pages ? pageLink(meta.page + 1, "Next") : null
      ) :
      null
  )
}

export async function statementsPage(main, params) {
  const partner = params.get("partner") ?? ""
  const environment = params.get("environment") ?? "live"
  const date = params.get("date") ?? dayBefore(1)
  const [{ partners }, { statements }, shown] = await Promise.all([
    api("GET", "/partners"),
    api("GET", `/statements?limit=60${partner === "" ? "" : `&partner=${encodeURIComponent(partner)}`}`),
    partner === ""
      ? Promise.resolve(null)
      : api(
        "GET",
        `/statements/${encodeURIComponent(partner)}/${environment}/${encodeURIComponent(date)}?page=${
          params.get("page") ?? "1"
        }`
      )
        .catch((error) => ({ error }))
  ])
  const form = h(
    "form.card",
    {
      "aria-labelledby": "find-statement-title",
      on: {
        submit: (event) => {
          event.preventDefault()
          const values = formValues(form)
          navigate(
            `/admin/statements?${new URLSearchParams({
              partner: values.partner,
              environment: values.environment,
              date: values.date
            })}`
          )
        }
      }
    },
    h("h2", { id: "find-statement-title" }, "Find a statement"),
    h(
      "div.grid",
      {},
      field("Partner", {
        type: "select",
        name: "partner",
        required: true,
        value: partner,
        options: [["", "Choose a partner"], ...partners.map((p) => [p.slug, p.name])]
      }),
      field("Environment", {
        type: "select",
        name: "environment",
        value: environment,
        options: [["live", "Live"], ["test", "Test"]]
      }),
      field("Day (UTC)", { name: "date", type: "date", value: date, required: true })
    ),
    h("button", { type: "submit" }, "Show")
  )

  const result = shown === null
    ? null
    : shown.error
    ? notice("info", shown.error.message)
    : statementView(shown, params)
  fill(
    main,
    h("h1", {}, "Statements"),
    h(
      "p",
      {},
      "Each partner's statement of a UTC day and environment, computed once after the day ends and signed with " +
        "that environment's webhook secret: what the partner reads at GET /wallet/statements/{date}."
    ),
    form,
    result,
    h(
      "section",
      { "aria-labelledby": "latest-title" },
      h("h2", { id: "latest-title" }, partner === "" ? "Latest statements" : `Latest statements of ${partner}`),
      table(
        "Latest statements",
        ["Day", "Partner", "Environment", "Transactions", "Bets", "Wins", "Net", "Computed"],
        statements.map((s) => [
          h("a", {
            href: `/admin/statements?${new URLSearchParams({
              partner: s.partner,
              environment: s.environment,
              date: s.date
            })}`
          }, s.date),
          s.partner,
          environmentBadge(s.environment),
          String(s.transactions),
          perCurrency(s.currencies, "bets"),
          perCurrency(s.currencies, "wins"),
          perCurrency(s.currencies, "net"),
          when(s.computed_at)
        ]),
        "No statement yet: days without activity have empty statements, read above."
      )
    )
  )
}

const kindNames = {
  round: "Round open",
  bet: "Bet pending",
  notification: "Notification failed",
  amount: "Amount unreadable"
}
/** A kind this page does not name yet (a newer service's) still shows, as its own word. */
const kindName = (kind) => kindNames[kind] ?? kind

/** How long, in words: `3 min 20 s`. */
const lasting = (seconds) => {
  /** @type {Array<[number, string]>} */
  const units = [[86_400, "d"], [3_600, "h"], [60, "min"], [1, "s"]]
  const parts = units.flatMap(([size, unit]) => {
    const n = Math.floor(seconds / size)
    seconds -= n * size
    return n > 0 ? [`${n} ${unit}`] : []
  })
  return parts.slice(0, 2).join(" ") || "0 s"
}

function alertCell(alert, alerts) {
  if (alert === null) return alerts ? "Not seen by the check yet" : "—"
  const badge = h(
    `span.badge.${alert.status === "sent" ? "delivered" : alert.status === "failed" ? "failed" : "pending"}`,
    { "data-alert": alert.status },
    alert.status
  )
  if (alert.status === "sent") return [badge, " ", when(alert.alerted_at)]
  if (alert.status === "off") return h("span", { "data-alert": "off" }, "off (no OPERATOR_ALERT_URL)")
  return [
    badge,
    ` after ${alert.attempts} attempt${alert.attempts === 1 ? "" : "s"}`,
    alert.last_error ? `: ${alert.last_error}` : ""
  ]
}

/** Where the wallet page shows the item. */
const walletLink = (item) => {
  const query = new URLSearchParams({ partner: item.partner, environment: item.environment })
  if (item.transaction_id === null) query.set("round_id", item.subject)
  else query.set("transaction_id", item.transaction_id)
  return h("a", { href: `/admin/wallet?${query}` }, item.subject)
}

export async function stuckPage(main) {
  const stuck = await api("GET", "/stuck")
  fill(
    main,
    h("h1", {}, "Stuck"),
    h(
      "section.glance",
      { "aria-label": "At a glance" },
      h(
        `div.card.stat.${stuck.items.length === 0 ? "good" : "bad"}`,
        {},
        h("strong", {}, String(stuck.items.length)),
        " stuck now"
      ),
      h(
        "div.card.stat",
        {},
        "Rounds are stuck after ",
        h("strong", {}, stuck.stuck_round_after),
        " (WALLET_STUCK_ROUND_AFTER)"
      ),
      h(
        "div.card.stat",
        {},
        "Operator alert: ",
        h("strong", {}, stuck.alerts ? "on" : "off"),
        stuck.alerts ? " (once per item)" : " (OPERATOR_ALERT_URL unset)"
      )
    ),
    h(
      "p",
      {},
      "What the wallet could not finish on its own: a round open too long, a bet still pending after its time-out and " +
        "the recovery pass after it, a notification whose delivery attempts ran out (the player's later notifications wait behind it; " +
        "redeliver it from the wallet page), an aggregator's call with an amount finer than the player's currency allows " +
        "(nothing moved; listed until the aggregator resends it readable, for at most 7 days)."
    ),
    stuck.truncated.length === 0
      ? null
      : notice("info", `More than 200 are stuck of: ${stuck.truncated.join(", ")}; the first 200 of each are listed.`),
    h(
      "section",
      { "aria-labelledby": "stuck-title" },
      h("h2", { id: "stuck-title" }, "Stuck now"),
      table(
        "Stuck now",
        ["Kind", "Partner", "Environment", "Round / transaction / event", "Player", "Since", "For", "What", "Alert"],
        stuck.items.map((item) => [
          h("span", { "data-stuck": `${item.kind}:${item.subject}` }, kindName(item.kind)),
          item.partner,
          environmentBadge(item.environment),
          walletLink(item),
          item.player ?? "—",
          when(item.since),
          lasting(item.stuck_seconds),
          item.detail,
          alertCell(item.alert, stuck.alerts)
        ]),
        "Nothing is stuck."
      )
    ),
    h(
      "section",
      { "aria-labelledby": "resolved-title" },
      h("h2", { id: "resolved-title" }, "Resolved within a day"),
      table(
        "Resolved",
        ["Kind", "Partner", "Environment", "Round / transaction / event", "Noticed", "Resolved", "Alert"],
        stuck.resolved.map((item) => [
          kindName(item.kind),
          item.partner,
          environmentBadge(item.environment),
          item.subject,
          when(item.first_seen_at),
          when(item.resolved_at),
          item.alert_status
        ]),
        "Nothing was resolved lately."
      )
    )
  )
}
