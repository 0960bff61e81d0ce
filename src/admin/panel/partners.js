// @ts-check
// Partners: list and search; create (live and test tokens and webhook secrets shown once); edit (the player mode,
// the RTP policy and the currencies too); activate, deactivate; rotate a token or a webhook secret per environment; clear the test data. Every value
// says which environment it is.
import { api, attempt, canChange, navigate } from "./session.js"
import { field, fill, formValues, h, notice, secretBox, table, when } from "./dom.js"

/** Label of an environment, as every partner view shows it. */
const environmentLabel = { live: "Live", test: "Test" }

/** What each player mode keeps, as the console says it. */
const playerModes = {
  persisted: "Persisted: name, e-mail and balance mirror kept",
  shadow: "Shadow: no player data kept; the balance is always asked of the partner"
}

/** A partner's RTP policy in a few words: what its launches do with `user_rtp`. */
const rtpText = (policy) =>
  policy.mode === "clamp"
    ? `clamp ${policy.min}–${policy.max}`
    : policy.mode === "fixed"
    ? `fixed ${policy.value}`
    : "pass"

/** The RTP policy the edit form's fields say. */
const rtpPolicyOf = (values) =>
  values.rtp_mode === "clamp"
    ? { mode: "clamp", min: Number(values.rtp_min), max: Number(values.rtp_max) }
    : values.rtp_mode === "fixed"
    ? { mode: "fixed", value: Number(values.rtp_value) }
    : { mode: "pass" }

/** A partner's currencies in a few words: its default (or the deployment's) and what it may use. */
const currenciesText = (partner) =>
  `${partner.default_currency ?? "deployment default"}; ${
    partner.currencies === null ? "all currencies" : partner.currencies.join(", ")
  }`

/** The currencies field as the form says it: codes separated by commas (or spaces); none is no restriction (null). */
const currencyListOf = (text) => {
  const codes = text.split(/[\s,]+/).filter((code) => code !== "")
  return codes.length === 0 ? null : codes
}

/** "2 players" / "1 player". */
const counted = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`

/** The partner's settings in an environment (live, test). */
const environmentOf = (partner, environment) => partner.environments.find((e) => e.environment === environment)

export async function partnersPage(main, params) {
  const search = params.get("search") ?? ""
  const { partners } = await api("GET", `/partners?search=${encodeURIComponent(search)}`)
  const region = h("div", { "aria-live": "polite" })
  const reload = () => partnersPage(main, new URLSearchParams(location.search)).then(() => region)
  const change = async (action) => {
    const result = await attempt(region, action)
    if (result === undefined) return undefined
    await reload()
    return result
  }
  const showOutcome = (...nodes) => fill(main.querySelector("#outcome"), ...nodes)

  const searchForm = h(
    "form.inline",
    {
      role: "search",
      on: {
        submit: (event) => {
          event.preventDefault()
          navigate(`/admin/partners?search=${encodeURIComponent(formValues(searchForm).search)}`)
        }
      }
    },
    field("Search partners", { name: "search", type: "search", value: search, placeholder: "name or slug" }),
    h("button", { type: "submit" }, "Search")
  )

  const actions = (partner) =>
    !canChange() ?
      "—" :
      h(
        "div.actions",
        {},
        h("button.secondary.small", { type: "button", on: { click: () => editForm(partner) } }, "Edit"),
        partner.status === "active"
          ? h("button.danger.small", {
            type: "button",
            "data-action": `deactivate-${partner.slug}`,
            on: {
              click: async () => {
                if (await change(() => api("POST", `/partners/${encodeURIComponent(partner.slug)}/deactivate`))) {
                  showOutcome(notice("ok", `${partner.name} is inactive: its token is refused.`))
                }
              }
            }
          }, "Deactivate")
          : h("button.secondary.small", {
            type: "button",
            "data-action": `activate-${partner.slug}`,
            on: {
              click: async () => {
                if (await change(() => api("POST", `/partners/${encodeURIComponent(partner.slug)}/activate`))) {
                  showOutcome(notice("ok", `${partner.name} is active again.`))
                }
              }
            }
          }, "Activate"),
        ["live", "test"].flatMap((environment) => {
          const label = environmentLabel[environment]
          const query = `?environment=${environment}`
          return [
            h("button.secondary.small", {
              type: "button",
              "data-action": `rotate-token-${environment}-${partner.slug}`,
              on: {
                click: async () => {
                  if (
                    !confirm(
                      `Issue a new ${environment} token for ${partner.name}? The current ${environment} one stops working at once.`
                    )
                  ) return
                  const answer = await change(() =>
                    api("POST", `/partners/${encodeURIComponent(partner.slug)}/rotate-token${query}`)
                  )
                  if (answer) {
                    showOutcome(
                      secretBox(`New ${environment} token for ${partner.name}`, [[
                        `${label} token`,
                        answer.token,
                        `${environment}-token`
                      ]])
                    )
                  }
                }
              }
            }, `Rotate ${environment} token`),
            h("button.secondary.small", {
              type: "button",
              on: {
                click: async () => {
                  if (
                    !confirm(
                      `Issue a new ${environment} webhook secret for ${partner.name}? The current one keeps signing beside it for a while.`
                    )
                  ) return
                  const answer = await change(() =>
                    api("POST", `/partners/${encodeURIComponent(partner.slug)}/rotate-webhook-secret${query}`)
                  )
                  if (answer) {
                    showOutcome(
                      secretBox(`New ${environment} webhook secret for ${partner.name}`, [[
                        `${label} webhook secret`,
                        answer.webhook_secret,
                        `${environment}-webhook-secret`
                      ]])
                    )
                  }
                }
              }
            }, `Rotate ${environment} webhook secret`)
          ]
        }),
        h("button.danger.small", {
          type: "button",
          "data-action": `clear-test-data-${partner.slug}`,
          on: {
            click: async () => {
              if (
                !confirm(
                  `Clear the test data of ${partner.name}? Every test player, round, transaction and callback of ${partner.name} ` +
                    "is deleted. Live data is untouched."
                )
              ) return
              const answer = await change(() =>
                api("POST", `/partners/${encodeURIComponent(partner.slug)}/clear-test-data`)
              )
              if (answer) {
                const { callbacks, players, rounds, transactions } = answer.cleared
                showOutcome(
                  notice(
                    "ok",
                    `Test data of ${partner.name} cleared: ${counted(players, "player")}, ${
                      counted(rounds, "round")
                    }, ` +
                      `${counted(transactions, "transaction")}, ${
                        counted(callbacks, "callback")
                      } deleted. Live data is untouched.`
                  )
                )
              }
            }
          }
        }, "Clear test data")
      )

  const editRegion = h("div")
  function editForm(partner) {
    const form = h(
      "form.card",
      {
        "aria-labelledby": "edit-title",
        on: {
          submit: async (event) => {
            event.preventDefault()
            const values = formValues(form)
            // The mode and the RTP policy are sent only when they change: each is a change of its own in the audit trail.
            const modeChanged = values.player_mode !== partner.player_mode
            const rtpPolicy = rtpPolicyOf(values)
            const rtpChanged = rtpText(rtpPolicy) !== rtpText(partner.rtp_policy)
            // The currencies too (one change of their own, partner.set-currencies): both sent when either changes, so
            // the service judges the default against the list the form shows.
            const defaultCurrency = values.default_currency.trim() === "" ? null : values.default_currency.trim()
            const currencies = currencyListOf(values.currencies)
            const currenciesChanged = defaultCurrency !== partner.default_currency ||
              (currencies ?? []).join(",") !== (partner.currencies ?? []).join(",")
            if (
              modeChanged && values.player_mode === "shadow" &&
              !confirm(
                `Switch ${partner.name} to shadow players? The names, e-mails and balance mirrors kept of its players ` +
                  "are forgotten now; rounds in flight go on."
              )
            ) return
            const done = await change(() =>
              api("PATCH", `/partners/${encodeURIComponent(partner.slug)}`, {
                name: values.name,
                commission_percent: Number(values.commission_percent),
                callback_url: values.callback_url === "" ? null : values.callback_url,
                test_callback_url: values.test_callback_url === "" ? null : values.test_callback_url,
                rate_limit_per_minute: values.rate_limit_per_minute === ""
                  ? null
                  : Number(values.rate_limit_per_minute),
                player_mode: modeChanged ? values.player_mode : undefined,
                rtp_policy: rtpChanged ? rtpPolicy : undefined,
                default_currency: currenciesChanged ? defaultCurrency : undefined,
                currencies: currenciesChanged ? currencies : undefined
              })
            )
            if (done) showOutcome(notice("ok", `${done.partner.name} was saved.`))
          }
        }
      },
      h("h2", { id: "edit-title" }, `Edit ${partner.name}`),
      field("Name", { name: "name", value: partner.name, required: true, maxlength: 255 }),
      field("Commission (%)", {
        name: "commission_percent",
        type: "number",
        min: 0,
        max: 100,
        step: "0.01",
        value: partner.commission_percent
      }),
      field(
        "Live callback URL",
        { name: "callback_url", type: "url", value: partner.callback_url ?? "" },
        "Where live wallet callbacks go (https://); empty clears it"
      ),
      field("Test callback URL", {
        name: "test_callback_url",
        type: "url",
        value: environmentOf(partner, "test")?.callback_url ?? ""
      }, "Where test wallet callbacks go; empty: the sandbox's partner wallet answers"),
      field("Rate limit (requests a minute)", {
        name: "rate_limit_per_minute",
        type: "number",
        min: 1,
        step: "1",
        value: partner.rate_limit_per_minute ?? ""
      }, "On the partner API; empty: the service's default (PARTNER_RATE_LIMIT)"),
      field("Player mode", {
        type: "select",
        name: "player_mode",
        value: partner.player_mode,
        options: [["persisted", playerModes.persisted], ["shadow", playerModes.shadow]]
      }, "Both environments; to shadow, what was kept of the players is forgotten at once"),
      field(
        "RTP policy",
        {
          type: "select",
          name: "rtp_mode",
          value: partner.rtp_policy.mode,
          options: [["pass", "Pass: the launch's user_rtp as sent"], ["clamp", "Clamp user_rtp into a range"], [
            "fixed",
            "Fixed: ignore user_rtp"
          ]]
        },
        "What launches do with the user_rtp the partner sends (both environments); regulated markets forbid a per-player RTP"
      ),
      h(
        "div.grid",
        {},
        field("RTP minimum (%)", {
          name: "rtp_min",
          type: "number",
          min: 0,
          max: 100,
          step: "1",
          value: partner.rtp_policy.min ?? ""
        }, "With clamp"),
        field("RTP maximum (%)", {
          name: "rtp_max",
          type: "number",
          min: 0,
          max: 100,
          step: "1",
          value: partner.rtp_policy.max ?? ""
        }, "With clamp"),
        field("Fixed RTP (%)", {
          name: "rtp_value",
          type: "number",
          min: 0,
          max: 100,
          step: "1",
          value: partner.rtp_policy.value ?? ""
        }, "With fixed")
      ),
      h(
        "div.grid",
        {},
        field("Default currency", {
          name: "default_currency",
          value: partner.default_currency ?? "",
          maxlength: 10,
          autocomplete: "off"
        }, "The currency of a launch that names none (BRL, EUR, mBTC…); empty: the deployment's DEFAULT_CURRENCY"),
        field("Currencies", {
          name: "currencies",
          value: (partner.currencies ?? []).join(", "),
          autocomplete: "off"
        }, "The only currencies its launches may be in, separated by commas, the default among them; empty: all")
      ),
      h(
        "div.actions",
        {},
        h("button", { type: "submit" }, "Save"),
        h("button.secondary", { type: "button", on: { click: () => fill(editRegion) } }, "Cancel")
      )
    )
    fill(editRegion, form)
    form.querySelector("input")?.focus()
  }

  const createForm = h(
    "form.card",
    {
      "aria-labelledby": "create-title",
      on: {
        submit: async (event) => {
          event.preventDefault()
          const values = formValues(createForm)
          const answer = await change(() =>
            api("POST", "/partners", {
              name: values.name,
              slug: values.slug === "" ? undefined : values.slug,
              commission_percent: values.commission_percent === "" ? undefined : Number(values.commission_percent),
              callback_url: values.callback_url === "" ? null : values.callback_url,
              test_callback_url: values.test_callback_url === "" ? null : values.test_callback_url
            })
          )
          if (answer) {
            showOutcome(secretBox(`${answer.partner.name} was created`, [
              ["Live token", answer.token, "live-token"],
              ["Live webhook secret", answer.webhook_secret, "live-webhook-secret"],
              ["Test token", answer.test.token, "test-token"],
              ["Test webhook secret", answer.test.webhook_secret, "test-webhook-secret"]
            ]))
          }
        }
      }
    },
    h("h2", { id: "create-title" }, "New partner"),
    h(
      "div.grid",
      {},
      field("Name", { name: "name", required: true, maxlength: 255 }),
      field(
        "Slug",
        { name: "slug", pattern: "[a-z0-9]+(-[a-z0-9]+)*", maxlength: 100 },
        "Optional: derived from the name"
      ),
      field("Commission (%)", { name: "commission_percent", type: "number", min: 0, max: 100, step: "0.01" }),
      field(
        "Live callback URL",
        { name: "callback_url", type: "url" },
        "Optional: https:// address of the partner's live wallet"
      ),
      field(
        "Test callback URL",
        { name: "test_callback_url", type: "url" },
        "Optional: its test wallet; empty: the sandbox's partner wallet"
      )
    ),
    h("button", { type: "submit" }, "Create partner")
  )

  fill(
    main,
    h("h1", {}, "Partners"),
    h("div", { id: "outcome", "aria-live": "polite" }),
    region,
    searchForm,
    table(
      "Partners",
      [
        "Name",
        "Slug",
        "Status",
        "Commission",
        "Live callback URL",
        "Test callback URL",
        "Tokens",
        "Rate limit",
        "Player mode",
        "RTP",
        "Currencies",
        "Created",
        "Actions"
      ],
      partners.map((partner) => [
        partner.name,
        h("code", {}, partner.slug),
        h(`span.badge.${partner.status}`, {}, partner.status),
        `${partner.commission_percent}%`,
        partner.callback_url ?? "—",
        environmentOf(partner, "test")?.callback_url ?? "sandbox wallet",
        h(
          "ul.plain",
          {},
          partner.environments.map((e) =>
            h(
              "li",
              { "data-environment": e.environment },
              `${environmentLabel[e.environment]}: ${e.token_issued_at === null ? "none issued" : "issued "}`,
              e.token_issued_at === null ? "" : when(e.token_issued_at)
            )
          )
        ),
        partner.rate_limit_per_minute === null ? "default" : `${partner.rate_limit_per_minute}/min`,
        h(
          "span",
          { "data-player-mode": partner.player_mode, title: playerModes[partner.player_mode] },
          partner.player_mode
        ),
        h("span", { "data-rtp-policy": rtpText(partner.rtp_policy) }, rtpText(partner.rtp_policy)),
        h("span", { "data-currencies": "" }, currenciesText(partner)),
        when(partner.created_at),
        actions(partner)
      ]),
      search === "" ? "No partner yet." : "No partner matches."
    ),
    editRegion,
    canChange() ? createForm : h("p.empty", {}, "Your role (viewer) can read but not change partners.")
  )
}
