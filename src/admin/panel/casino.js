// @ts-check
// Casino: providers and games with enable/disable; sync now; the last syncs and what they changed; which aggregator
// serves a studio several offer, and the switch; the studio aliases, added and removed.
import { api, attempt, canChange, navigate } from "./session.js"
import { field, fill, formValues, h, json, notice, table, when } from "./dom.js"

const counts = (c) =>
  `providers +${c.providers.added} ~${c.providers.changed} −${c.providers.absent}; games +${c.games.added} ~${c.games.changed} −${c.games.absent}`

export async function casinoPage(main, params) {
  const provider = params.get("provider") ?? ""
  const search = params.get("search") ?? ""
  const page = params.get("page") ?? "1"
  const games = new URLSearchParams({ page, per_page: "50" })
  if (provider) games.set("provider", provider)
  if (search) games.set("search", search)
  const [{ providers, studios, syncs }, gameList, { aliases, limit }] = await Promise.all([
    api("GET", "/casino/providers"),
    api("GET", `/casino/games?${games}`),
    api("GET", "/casino/studio-aliases")
  ])
  const region = h("div", { "aria-live": "polite" })
  const reload = async () => {
    await casinoPage(main, new URLSearchParams(location.search))
    fill(main.querySelector("#outcome"), ...region.childNodes)
  }
  const toggle = (label, path, enabled, success) =>
    !canChange() ? "—" : h(enabled ? "button.danger.small" : "button.secondary.small", {
      type: "button",
      on: {
        click: async () => {
          if (await attempt(region, () => api("POST", path), success)) await reload()
        }
      }
    }, enabled ? `Disable ${label}` : `Enable ${label}`)

  const filter = h(
    "form.inline",
    {
      role: "search",
      on: {
        submit: (event) => {
          event.preventDefault()
          const values = formValues(filter)
          const next = new URLSearchParams()
          if (values.provider) next.set("provider", values.provider)
          if (values.search) next.set("search", values.search)
          navigate(`/admin/casino?${next}`)
        }
      }
    },
    field("Provider", {
      type: "select",
      name: "provider",
      value: provider,
      options: [["", "Every provider"], ...providers.map((p) => [p.slug, p.name])]
    }),
    field("Search games", { type: "search", name: "search", value: search }),
    h("button", { type: "submit" }, "Show games")
  )

  // A refused alias is announced beside its form; an added or removed one in the page's outcome, once redrawn.
  const aliasRegion = h("div", { "aria-live": "polite" })
  const aliasForm = h(
    "form.inline",
    {
      "aria-label": "Add a studio alias",
      on: {
        submit: async (event) => {
          event.preventDefault()
          const values = formValues(aliasForm)
          const added = await attempt(
            aliasRegion,
            () => api("PUT", `/casino/studio-aliases/${encodeURIComponent(values.alias)}`, { studio: values.studio })
          )
          if (added) {
            fill(region, notice("ok", `${added.alias.alias} is taken as ${added.alias.studio}.`))
            await reload()
          }
        }
      }
    },
    field("Alias", { name: "alias", required: true }, "A provider name, as an aggregator writes it"),
    field("Studio", { name: "studio", required: true }, "The studio it is"),
    h("button", { type: "submit" }, "Add alias")
  )

  const pages = Math.max(1, Math.ceil(gameList.meta.total / gameList.meta.per_page))
  const pageLink = (n, text) => {
    const next = new URLSearchParams(params)
    next.set("page", String(n))
    return h("button.secondary.small", { type: "button", on: { click: () => navigate(`/admin/casino?${next}`) } }, text)
  }

  fill(
    main,
    h("h1", {}, "Casino"),
    h("div", { id: "outcome", "aria-live": "polite" }),
    region,
    h(
      "section.card",
      { "aria-labelledby": "sync-title" },
      h("h2", { id: "sync-title" }, "Catalog sync"),
      canChange() ?
        h("button", {
          type: "button",
          on: {
            click: async () => {
              if (
                await attempt(
                  region,
                  () => api("POST", "/casino/sync"),
                  (answer) => `Synced: ${counts(answer.changes)}.`
                )
              ) await reload()
            }
          }
        }, "Sync now") :
        null,
      table(
        "Last syncs from the console or the CLI",
        ["When", "Who", "What changed"],
        syncs.map((sync) => [
          when(sync.at),
          sync.actor,
          sync.changes ? counts(sync.changes) : json(sync.changes)
        ]),
        "No sync was asked from the console or the CLI yet (the scheduled ones run every CASINO_SYNC_INTERVAL)."
      )
    ),
    studios.length === 0 ? null : h(
      "section",
      { "aria-labelledby": "studios-title" },
      h("h2", { id: "studios-title" }, "Studios several aggregators offer"),
      table(
        "Studios several aggregators offer",
        ["Studio", "Offered by", "Served by", ""],
        studios.map((s) => [
          s.names.map((n) => `${n.name} (${n.aggregator})`).join(", "),
          s.offered_by.join(", "),
          `${s.served_by}${s.chosen ? " (chosen)" : " (first in CASINO_GATEWAY)"}`,
          !canChange() ? "—" : h(
            "div.actions",
            {},
            ...s.offered_by.filter((a) => a !== s.served_by).map((a) =>
              h("button.secondary.small", {
                type: "button",
                on: {
                  click: async () => {
                    if (
                      await attempt(
                        region,
                        () =>
                          api("POST", `/casino/studios/${encodeURIComponent(s.studio)}/serve/${encodeURIComponent(a)}`),
                        `${s.names[0].name} is served by ${a}.`
                      )
                    ) await reload()
                  }
                }
              }, `Serve from ${a}`)
            )
          )
        ])
      )
    ),
    h(
      "section",
      { "aria-labelledby": "aliases-title" },
      h("h2", { id: "aliases-title" }, "Studio aliases"),
      h(
        "p",
        {},
        "Studios are matched across aggregators by name, ignoring case, spaces and punctuation; an alias joins a " +
          `name the matching misses to a studio (names are kept as keys; aliases do not chain; at most ${limit}).`
      ),
      table(
        "Studio aliases",
        ["Alias", "Studio", ""],
        aliases.map((a) => [
          h("code", {}, a.alias),
          h("code", {}, a.studio),
          !canChange() ? "—" : h("button.danger.small", {
            type: "button",
            on: {
              click: async () => {
                if (
                  await attempt(
                    region,
                    () => api("DELETE", `/casino/studio-aliases/${encodeURIComponent(a.alias)}`),
                    `The alias ${a.alias} is removed.`
                  )
                ) await reload()
              }
            }
          }, `Remove ${a.alias}`)
        ]),
        "No alias: studios are matched by their names alone."
      ),
      canChange() ? aliasForm : null,
      aliasRegion
    ),
    h(
      "section",
      { "aria-labelledby": "providers-title" },
      h("h2", { id: "providers-title" }, "Providers"),
      table(
        "Providers",
        ["Name", "Slug", "Aggregator", "Enabled", ""],
        providers.map((p) => [
          p.name,
          h("code", {}, p.slug),
          p.aggregator,
          p.enabled ? "yes" : "no",
          toggle(
            "",
            `/casino/providers/${encodeURIComponent(p.slug)}/${p.enabled ? "disable" : "enable"}`,
            p.enabled,
            `${p.name} is ${p.enabled ? "disabled" : "enabled"}.`
          )
        ])
      )
    ),
    h(
      "section",
      { "aria-labelledby": "games-title" },
      h("h2", { id: "games-title" }, `Games (${gameList.meta.total})`),
      filter,
      table(
        "Games",
        ["Name", "Code", "Provider", "Enabled", ""],
        gameList.games.map((g) => [
          g.name,
          h("code", {}, g.game_code),
          g.provider,
          g.enabled ? "yes" : "no",
          toggle(
            "",
            `/casino/games/${encodeURIComponent(g.provider)}/${encodeURIComponent(g.game_code)}/${
              g.enabled ? "disable" : "enable"
            }`,
            g.enabled,
            `${g.name} is ${g.enabled ? "disabled" : "enabled"}.`
          )
        ]),
        "No game matches."
      ),
      pages > 1 ?
        h(
          "div.actions",
          {},
          Number(page) > 1 ? pageLink(Number(page) - 1, "Previous") : null,
          `Page ${page} of ${pages}`,
          Number(page) < pages ? pageLink(Number(page) + 1, "Next") : null
        ) :
        null
    )
  )
}
