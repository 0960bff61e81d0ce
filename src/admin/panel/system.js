// @ts-check
// Sports (provider, quota, refreshes), System (health, version, configuration, background jobs), the audit trail.
import { api, attempt, canChange } from "./session.js"
import { facts, fill, h, json, table, when } from "./dom.js"

const reportText = (r) =>
  `${r.sports} sports, ${r.countries} countries, ${r.leagues} leagues, ${r.teams} teams, ${r.events} events; ` +
  `${r.changed} new or changed, ${r.deactivated} deactivated`

export async function sportsPage(main) {
  const [{ system }, { refreshes }] = await Promise.all([api("GET", "/system"), api("GET", "/sports/refreshes")])
  const region = h("div", { "aria-live": "polite" })
  fill(
    main,
    h("h1", {}, "Sports"),
    region,
    h(
      "section.card",
      { "aria-labelledby": "provider-title" },
      h("h2", { id: "provider-title" }, "Provider"),
      facts([
        ["Provider", system.sports.provider],
        ["Configured", system.sports.configured ? "yes" : "no"],
        ["Quota", `${system.sports.rate_limit_per_hour} upstream calls in any hour (SPORTS_PROVIDER_RATE_LIMIT)`],
        [
          "Refreshed every",
          `${system.configuration.CATALOG_REFRESH_INTERVAL}; events in play every ${system.configuration.CATALOG_LIVE_REFRESH_INTERVAL}`
        ]
      ])
    ),
    h(
      "section.card",
      { "aria-labelledby": "catalog-title" },
      h("h2", { id: "catalog-title" }, "Local catalog (active records)"),
      facts(Object.entries(system.sports.catalog).map(([key, value]) => [key, String(value)])),
      canChange() ?
        h("button", {
          type: "button",
          on: {
            click: async () => {
              if (
                await attempt(
                  region,
                  () => api("POST", "/sports/refresh"),
                  (answer) => `Refreshed: ${reportText(answer.report)}.`
                )
              ) {
                const kept = [...region.childNodes]
                await sportsPage(main)
                fill(main.querySelector("[aria-live]"), ...kept)
              }
            }
          }
        }, "Refresh now") :
        null
    ),
    h(
      "section",
      { "aria-labelledby": "refreshes-title" },
      h("h2", { id: "refreshes-title" }, "Last refreshes from the console or the CLI"),
      table(
        "Refreshes",
        ["When", "Who", "Counts"],
        refreshes.map((r) => [when(r.at), r.actor, r.report ? reportText(r.report) : "—"]),
        "None yet (the scheduled refreshes run on their own)."
      )
    )
  )
}

export async function systemPage(main) {
  const [{ system }, { admins }] = await Promise.all([api("GET", "/system"), api("GET", "/admins")])
  fill(
    main,
    h("h1", {}, "System"),
    h(
      "section.glance",
      { "aria-label": "Health" },
      h(
        `div.card.stat.${system.database.ok ? "good" : "bad"}`,
        {},
        h("strong", {}, system.database.ok ? "Healthy" : "Database unreachable"),
        ` · PostgreSQL ${system.database.embedded ? "(embedded)" : ""}`
      ),
      h("div.card.stat", {}, h("strong", {}, system.version), " version, up since ", when(system.started_at))
    ),
    h(
      "section.card",
      { "aria-labelledby": "jobs-title" },
      h("h2", { id: "jobs-title" }, "Background work"),
      facts([
        [
          "Delivery queues waiting / being delivered / retrying",
          `${system.jobs.queued} / ${system.jobs.locked} / ${system.jobs.failing}`
        ],
        ["Notifications pending / failed", `${system.wallet.pending_callbacks} / ${system.wallet.failed_callbacks}`],
        ["Bets waiting for a partner", String(system.wallet.pending_bets)],
        [
          "Casino catalog",
          `${system.casino.gateway}: ${system.casino.providers} providers, ${system.casino.games} games, synced every ${system.configuration.CASINO_SYNC_INTERVAL}`
        ],
        [
          "Sports catalog",
          `${system.sports.provider}: refreshed every ${system.configuration.CATALOG_REFRESH_INTERVAL}`
        ]
      ])
    ),
    h(
      "section",
      { "aria-labelledby": "aggregators-title" },
      h("h2", { id: "aggregators-title" }, "Casino aggregators"),
      table(
        "Casino aggregators",
        ["Aggregator", "Configured", "Last catalog sync", "Wallet calls (live)", "Last wallet call"],
        system.casino.aggregators.map((a) => [
          a.name,
          a.configured ? "yes" : "no",
          a.last_catalog_sync ? when(a.last_catalog_sync) : "never",
          String(a.wallet_calls),
          a.last_wallet_call ? when(a.last_wallet_call) : "none"
        ])
      )
    ),
    h(
      "section",
      { "aria-labelledby": "config-title" },
      h("h2", { id: "config-title" }, "Configuration (no secrets)"),
      table(
        "Configuration",
        ["Variable", "Value"],
        Object.entries(system.configuration).map(([key, value]) => [h("code", {}, key), value])
      )
    ),
    h(
      "section",
      { "aria-labelledby": "admins-title" },
      h("h2", { id: "admins-title" }, "Admins"),
      table("Admins", ["E-mail", "Role", "Disabled"], admins.map((a) => [a.email, a.role, a.disabled ? "yes" : "no"]))
    )
  )
}

export async function auditPage(main) {
  const { entries } = await api("GET", "/audit?limit=200")
  fill(
    main,
    h("h1", {}, "Audit trail"),
    h(
      "p",
      {},
      "Every change through the console, the admin CLI or the partner portal (by a partner's own user), newest " +
        "first. Secrets are never recorded."
    ),
    table(
      "Audit trail",
      ["When", "Who", "Via", "Action", "Target", "Before", "After"],
      entries.map((e) => [
        when(e.at),
        e.actor,
        e.via === "portal"
          ? h("span.badge.environment.test", { "data-via": "portal" }, "portal (partner user)")
          : e.via,
        h("code", {}, e.action),
        e.target,
        e.before === null ? "—" : json(e.before),
        e.after === null ? "—" : json(e.after)
      ]),
      "No change yet."
    )
  )
}
