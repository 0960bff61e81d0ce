// @ts-check
// The partner's own data: its wallet transactions and rounds per environment, as the partner API gives them (each
// amount beside its currency's code), and
// what it uses of the rate limit and of the sports provider's quota.
import { field, fill, formValues, h, ledgerFilterFields, money, notice, table, when } from "./dom.js"
import { api, errorText, navigate } from "./session.js"
import { environments } from "./who.js"

const filterKeys = ["environment", "external_player_id", "currency", "round_id", "kind", "status", "from", "to", "page"]

/** A transaction's callbacks, as the partner API lists them: each with its delivery state. */
const callbacksOf = (entry) =>
  h(
    "ul.plain",
    {},
    entry.callbacks.map((callback) =>
      h(
        "li",
        {},
        `${callback.kind} `,
        h(`span.badge.${callback.status}`, {}, callback.status),
        ` · ${callback.attempts} attempt${callback.attempts === 1 ? "" : "s"}`,
        callback.last_error === null ? "" : ` · ${callback.last_error}`
      )
    )
  )

const transactionsTable = (transactions) =>
  table(
    "Transactions",
    ["Transaction", "Kind", "Status", "Player", "Round", "Bet / win / amount", "Balance after", "Created", "Callbacks"],
    transactions.map((entry) => [
      h("code", {}, entry.transaction_id),
      entry.kind,
      h(`span.badge.${entry.status}`, {}, entry.status),
      entry.player.external_player_id,
      entry.round_id,
      [
        money(entry.bet, entry.currency),
        " / ",
        money(entry.win, entry.currency),
        " / ",
        money(entry.amount, entry.currency)
      ],
      money(entry.balance_after, entry.currency),
      when(entry.created_at),
      callbacksOf(entry)
    ]),
    "No transaction matches."
  )

export async function walletPage(main, params) {
  const environment = params.get("environment") === "test" ? "test" : "live"
  const query = new URLSearchParams()
  for (const key of filterKeys) {
    if (key !== "environment" && params.get(key)) query.set(key, /** @type {string} */ (params.get(key)))
  }
  const roundId = params.get("round") ?? ""
  const [found, round] = await Promise.all([
    api("GET", `/wallet/${environment}/transactions?${query}`).catch((error) => ({ error })),
    roundId === ""
      ? Promise.resolve(null)
      : api("GET", `/wallet/${environment}/rounds/${encodeURIComponent(roundId)}`).catch((error) => ({ error }))
  ])
  const form = h(
    "form.card",
    {
      role: "search",
      "aria-labelledby": "wallet-search",
      on: {
        submit: (event) => {
          event.preventDefault()
          const values = formValues(form)
          const next = new URLSearchParams()
          for (const key of [...filterKeys, "round"]) if (values[key]) next.set(key, values[key])
          navigate(`/portal/wallet?${next}`)
        }
      }
    },
    h("h2", { id: "wallet-search" }, "Find transactions"),
    h(
      "div.grid",
      {},
      field("Environment", { type: "select", name: "environment", value: environment, options: environments }),
      field(
        "Player",
        { name: "external_player_id", value: params.get("external_player_id") ?? "" },
        "Your own player id"
      ),
      field("Round id", { name: "round_id", value: params.get("round_id") ?? "" }),
      ...ledgerFilterFields(params),
      field("Show a round", { name: "round", value: roundId }, "A round id: the round with its transactions")
    ),
    h("button", { type: "submit" }, "Search")
  )
  const roundView = round === null ? null : round.error ?
    notice("error", round.error.message)
    : h(
      "section",
      { "aria-labelledby": "round-title" },
      round.rounds.map((each) => [
        h("h2", { id: "round-title" }, `Round ${each.round_id} of ${each.player.external_player_id}: ${each.status}`),
        h(
          "p",
          {},
          "Bets ",
          money(each.bet_total, each.currency),
          ", wins ",
          money(each.win_total, each.currency),
          each.refunded_early ? " (refunded before any bet of it arrived)" : ""
        ),
        transactionsTable(each.transactions)
      ])
    )
  const results = found.error ?
    notice("error", errorText(found.error)) :
    h(
      "section",
      { "aria-labelledby": "results-title" },
      h(
        "h2",
        { id: "results-title" },
        `${found.meta.total} ${environment} transaction${found.meta.total === 1 ? "" : "s"}`
      ),
      transactionsTable(found.transactions)
    )
  fill(
    main,
    h("h1", {}, "Wallet"),
    h("p", {}, "Your players' transactions and rounds, as GET /wallet/transactions of the partner API answers them."),
    form,
    roundView,
    results
  )
}

export async function usagePage(main) {
  const { currencies, environments: usage } = await api("GET", "/usage")
  fill(
    main,
    h("h1", {}, "Usage"),
    h("p", {}, "What each environment's token may spend, read now without spending anything."),
    table(
      "Usage",
      [
        "Environment",
        "Rate limit",
        "Requests available now",
        "Sports provider",
        "Your share of its quota",
        "Calls available now"
      ],
      usage.map((each) => [
        each.environment === "test" ? "Test" : "Live",
        `${each.rate_limit.per_minute} a minute${each.rate_limit.default ? " (the service's default)" : ""}`,
        each.rate_limit.available_now === null ? "unknown" : String(each.rate_limit.available_now),
        each.provider_quota.provider,
        `${each.provider_quota.per_hour} uncached calls an hour (bursts of ${each.provider_quota.burst})`,
        each.provider_quota.available_now === null ? "unknown" : String(each.provider_quota.available_now)
      ])
    ),
    h("h2", {}, "Currencies"),
    h("p", {}, "The currencies your launches may be in, both environments. Your operator sets them."),
    h(
      "dl",
      { "data-currencies": "" },
      h("dt", {}, "Default currency"),
      h(
        "dd",
        {},
        `${currencies.default_currency}${currencies.default ? " (the service's default)" : ""}: a launch naming no ` +
          "currency is in it"
      ),
      h("dt", {}, "Allowed currencies"),
      h("dd", {}, currencies.allowed === null ? "Every currency the service accepts" : currencies.allowed.join(", "))
    )
  )
}
