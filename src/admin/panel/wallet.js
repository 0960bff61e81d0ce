// @ts-check
// Wallet: transactions and rounds searched by partner, player, currency, transaction, round, status and time, each
// with its ledger entry (amounts beside their currency's code) and callbacks (body, answer, attempts, next attempt, last error); redeliver; pending bets and failed
// deliveries at a glance. Live, test or both: every transaction says which environment it is.
import { api, attempt, canChange, errorText, navigate } from "./session.js"
import {
  environmentBadge,
  field,
  fill,
  formValues,
  h,
  json,
  ledgerFilterFields,
  money,
  notice,
  table,
  when
} from "./dom.js"

const searchKeys = [
  "partner",
  "environment",
  "player",
  "currency",
  "transaction_id",
  "round_id",
  "kind",
  "status",
  "from",
  "to",
  "page"
]

function redeliverButton(callback, region, after) {
  if (!callback.redeliverable || !canChange()) return null
  return h("button.small", {
    type: "button",
    "data-action": `redeliver-${callback.id}`,
    on: {
      click: async () => {
        const answer = await attempt(
          region,
          () => api("POST", `/callbacks/${callback.id}/redeliver`),
          (result) =>
            `Callback ${result.callback.id} (${result.callback.kind}, ${result.callback.event_id}) was queued for delivery again.`
        )
        if (answer !== undefined && after) {
          await after()
        }
      }
    }
  }, "Redeliver")
}

function callbacksTable(callbacks, region, after) {
  return table(
    "Callbacks",
    ["#", "Kind", "Status", "Attempts", "Next attempt", "Last error", "Body", ""],
    callbacks.map((callback) => [
      String(callback.id),
      callback.kind,
      h(`span.badge.${callback.status}`, {}, callback.status),
      String(callback.attempts),
      when(callback.next_attempt_at),
      callback.last_error ?? "—",
      h("details", {}, h("summary", {}, callback.event_id), json(callback.body)),
      redeliverButton(callback, region, after)
    ]),
    "No callback."
  )
}

function transactionCard(entry, region, after) {
  return h(
    "article.card.transaction",
    { "data-transaction": entry.transaction_id, "data-environment": entry.environment },
    h(
      "h3",
      {},
      `${entry.kind} ${entry.transaction_id}`,
      " ",
      environmentBadge(entry.environment),
      " ",
      h(`span.badge.${entry.status}`, {}, entry.status)
    ),
    h(
      "dl.facts",
      {},
      h("dt", {}, "Partner"),
      h("dd", {}, entry.partner),
      h("dt", {}, "Environment"),
      h("dd", {}, entry.environment),
      h("dt", {}, "Player"),
      h("dd", {}, `${entry.player.external_player_id} (user code ${entry.player.user_code})`),
      h("dt", {}, "Round"),
      h("dd", {}, entry.round_id),
      h("dt", {}, "Game"),
      h("dd", {}, `${entry.game.provider ?? "—"} / ${entry.game.code ?? "—"}`),
      h("dt", {}, "Currency"),
      h("dd", { "data-field": "currency" }, entry.currency),
      h("dt", {}, "Bet / win / amount"),
      h(
        "dd",
        { "data-field": "amounts" },
        money(entry.bet, entry.currency),
        " / ",
        money(entry.win, entry.currency),
        " / ",
        money(entry.amount, entry.currency)
      ),
      h("dt", {}, "Balance after"),
      h("dd", { "data-field": "balance-after" }, money(entry.balance_after, entry.currency)),
      h("dt", {}, "Refusal"),
      h("dd", {}, entry.refusal ?? "—"),
      h("dt", {}, "Answer to the aggregator"),
      h("dd", {}, entry.answer === null ? "pending" : JSON.stringify(entry.answer)),
      h("dt", {}, "Created / settled"),
      h("dd", {}, when(entry.created_at), " / ", when(entry.settled_at)),
      entry.pending_seconds === undefined
        ? null
        : [h("dt", {}, "Pending for"), h("dd", {}, `${entry.pending_seconds} s`)]
    ),
    callbacksTable(entry.callbacks, region, after)
  )
}

export async function walletPage(main, params) {
  const query = new URLSearchParams()
  for (const key of searchKeys) if (params.get(key)) query.set(key, params.get(key))
  const searching = [...query.keys()].some((key) => key !== "page")
  const environment = params.get("environment") ?? ""
  const [{ partners }, pending, failed, found] = await Promise.all([
    api("GET", "/partners"),
    api("GET", "/wallet/pending"),
    api("GET", "/callbacks?status=failed&limit=20"),
    searching ? api("GET", `/wallet/transactions?${query}`).catch((error) => ({ error })) : Promise.resolve(null)
  ])
  const region = h("div", { "aria-live": "polite" })
  const reload = () =>
    walletPage(main, new URLSearchParams(location.search)).then(() =>
      fill(main.querySelector("#outcome"), ...region.childNodes)
    )

  const form = h(
    "form.card",
    {
      role: "search",
      "aria-labelledby": "search-title",
      on: {
        submit: (event) => {
          event.preventDefault()
          const values = formValues(form)
          const next = new URLSearchParams()
          for (const key of searchKeys) if (values[key]) next.set(key, values[key])
          navigate(`/admin/wallet?${next}`)
        }
      }
    },
    h("h2", { id: "search-title" }, "Find transactions"),
    h(
      "div.grid",
      {},
      field("Partner", {
        type: "select",
        name: "partner",
        value: params.get("partner") ?? "",
        options: [["", "Any partner"], ...partners.map((p) => [p.slug, p.name])]
      }),
      field("Environment", {
        type: "select",
        name: "environment",
        value: environment,
        options: [["", "Live and test"], ["live", "Live"], ["test", "Test"]]
      }, "A player id names a live player unless Test is chosen"),
      field(
        "Player",
        { name: "player", value: params.get("player") ?? "" },
        "The partner's own player id (choose the partner)"
      ),
      field("Transaction id", { name: "transaction_id", value: params.get("transaction_id") ?? "" }),
      field("Round id", { name: "round_id", value: params.get("round_id") ?? "" }),
      ...ledgerFilterFields(params)
    ),
    h(
      "div.actions",
      {},
      h("button", { type: "submit" }, "Search"),
      h("button.secondary", { type: "button", on: { click: () => navigate("/admin/wallet") } }, "Clear")
    )
  )

  let results = null
  if (found !== null) {
    if (found.error) results = notice("error", errorText(found.error))
    else {
      const { meta, transactions } = found
      const pages = Math.max(1, Math.ceil(meta.total / meta.per_page))
      const pageLink = (page, text) => {
        const next = new URLSearchParams(query)
        next.set("page", String(page))
        return h(
          "button.secondary.small",
          { type: "button", on: { click: () => navigate(`/admin/wallet?${next}`) } },
          text
        )
      }
      results = h(
        "section",
        { "aria-labelledby": "results-title" },
        h(
          "h2",
          { id: "results-title" },
          `${meta.total} transaction${meta.total === 1 ? "" : "s"}`,
          environment === "" ? " (live and test)" : ` (${environment} only)`
        ),
        transactions.length === 0
          ? h("p.empty", {}, "No transaction matches.")
          : transactions.map((entry) => transactionCard(entry, region, reload)),
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
  }

  // The pending bets follow the environment chosen (the list is short: filtered here).
  const pendingShown = pending.transactions.filter((entry) => environment === "" || entry.environment === environment)

  fill(
    main,
    h("h1", {}, "Wallet"),
    h("div", { id: "outcome", "aria-live": "polite" }),
    region,
    h(
      "section.glance",
      { "aria-label": "At a glance" },
      h(
        "div.card.stat",
        {},
        h("strong", {}, String(pendingShown.length)),
        ` bets waiting for a partner${environment === "" ? "" : ` (${environment})`}`
      ),
      h("div.card.stat", {}, h("strong", {}, String(failed.callbacks.length)), " deliveries that ran out of attempts")
    ),
    form,
    results,
    pendingShown.length === 0 ?
      null :
      h(
        "section",
        { "aria-labelledby": "pending-title" },
        h("h2", { id: "pending-title" }, "Pending bets"),
        pendingShown.map((entry) => transactionCard(entry, region, reload))
      ),
    h(
      "section",
      { "aria-labelledby": "failed-title" },
      h("h2", { id: "failed-title" }, "Failed deliveries"),
      table(
        "Failed deliveries",
        ["#", "Partner", "Player", "Kind", "Transaction", "Attempts", "Last error", ""],
        failed.callbacks.map((callback) => [
          String(callback.id),
          callback.partner,
          callback.player,
          callback.kind,
          h(
            "a",
            { href: `/admin/wallet?transaction_id=${encodeURIComponent(callback.transaction_id)}` },
            callback.transaction_id
          ),
          String(callback.attempts),
          callback.last_error ?? "—",
          redeliverButton(callback, region, reload)
        ]),
        "No failed delivery."
      )
    )
  )
}
