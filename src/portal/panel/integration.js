// @ts-check
// Tokens and webhooks, per environment: roll a token now or with an overlap, the callback URL, a test callback that
// shows the exact signed request and the answer, the webhook secret, and the delivery log with redeliver.
import { field, fill, formValues, h, json, notice, secretBox, table, when } from "./dom.js"
import { api, attempt, changes, navigate } from "./session.js"
import { environments, may, overlapChoices, readOnly } from "./who.js"

const keepOld = (values) => values.keep_old_hours === "" ? null : Number(values.keep_old_hours)
const overlapField = (label, chosen = "") =>
  field(label, { type: "select", name: "keep_old_hours", value: chosen, options: overlapChoices })
const kept = (hours) =>
  hours === null ? "stops now" : `stays valid for ${overlapChoices.find(([value]) => value === String(hours))?.[1]}`

export async function tokensPage(main) {
  const { environments: found } = await api("GET", "/tokens")
  const { change, outcome } = changes(main, () => tokensPage(main))
  const section = ([environment, label]) => {
    const { tokens } = found.find((each) => each.environment === environment)
    const overlapping = tokens.some((token) => token.expires_at !== null)
    const form = h(
      "form.inline",
      {
        "aria-label": `Roll the ${environment} token`,
        on: {
          submit: async (event) => {
            event.preventDefault()
            const hours = keepOld(formValues(form))
            if (!confirm(`Issue a new ${environment} token? The current one ${kept(hours)}.`)) return
            await change(() => api("POST", `/tokens/${environment}/roll`, { keep_old_hours: hours }), (answer) => [
              secretBox(
                `New ${environment} token`,
                [[`${label} token`, answer.token, `${environment}-token`]],
                "Shown only this once: copy it now into your servers' configuration."
              ),
              answer.old_valid_until === null
                ? notice("ok", `The ${environment} token was rolled: the old one stopped working.`)
                : notice(
                  "ok",
                  `The ${environment} token was rolled: the old one works until `,
                  when(answer.old_valid_until),
                  "."
                )
            ])
          }
        }
      },
      overlapField("When the old token stops"),
      h("button", { type: "submit" }, `Roll ${environment} token`)
    )
    const endOverlap = h("button.danger.small", {
      type: "button",
      on: {
        click: async () => {
          if (!confirm(`Stop every old ${environment} token now? Only the current one keeps working.`)) return
          await change(
            () => api("POST", `/tokens/${environment}/end-overlap`),
            () => notice("ok", `The old ${environment} tokens stopped working.`)
          )
        }
      }
    }, "Stop the old tokens now")
    return h(
      "section.card",
      { "aria-labelledby": `tokens-${environment}`, "data-environment": environment },
      h("h2", { id: `tokens-${environment}` }, `${label} tokens`),
      table(
        `${label} tokens`,
        ["Token", "Issued", "Last used", "Valid until"],
        tokens.map((token) => [
          h("code", {}, token.prefix === null ? "(issued before prefixes were kept)" : `${token.prefix}…`),
          when(token.created_at),
          token.last_used_at === null ? "not used yet" : when(token.last_used_at),
          token.expires_at === null ? h("span.badge.active", {}, "current") : when(token.expires_at)
        ]),
        `No ${environment} token: roll one.`
      ),
      may("developer") ? [form, overlapping ? endOverlap : null] : h("p.empty", {}, readOnly("tokens"))
    )
  }
  fill(
    main,
    h("h1", {}, "Tokens"),
    h(
      "p",
      {},
      "A token is shown once, when it is issued. Roll one with the old one kept valid for a while, so every " +
        "server of yours can move over before it stops."
    ),
    outcome,
    environments.map(section)
  )
}

/** The test callback's request and answer, as they went over the wire. */
function trialView(environment, trial) {
  const request = trial.request === null ? null : [
    h("h4", {}, "Request"),
    h(
      "pre.wire",
      { "data-wire": "request" },
      `${trial.request.method} ${trial.request.url}\n` +
        Object.entries(trial.request.headers).map(([name, value]) => `${name}: ${value}`).join("\n") +
        `\n\n${trial.request.body}`
    )
  ]
  const answer = trial.answer === null
    ? notice("error", `No answer: ${trial.failure}`)
    : [
      h("h4", {}, `Answer: HTTP ${trial.answer.status} in ${trial.milliseconds} ms`),
      h("pre.wire", { "data-wire": "answer" }, trial.answer.body ?? "(an answer larger than 64 KiB)")
    ]
  return h("div.trial", { role: "status", "aria-label": `The ${environment} test callback` }, request, answer)
}

/**
 * An id as the delivery log shows it: whole (to copy), but free to wrap anywhere, so a sandbox's long ids do not widen
 * the table past its card and push Redeliver out of view (portal.css: code.id).
 * @param {string | null} id
 */
const idText = (id) => id === null ? "—" : h("code.id", { title: id }, id)

function deliveriesTable(callbacks, change) {
  return table(
    "Deliveries",
    ["#", "Kind", "Player", "Transaction", "Status", "Attempts", "Next attempt", "Last error", "Body", ""],
    // A test callback (kind test) has no id, player or transaction: it is sent once and never redelivered.
    callbacks.map((callback) => [
      callback.id === null ? "—" : String(callback.id),
      callback.kind,
      idText(callback.player),
      idText(callback.transaction_id),
      h(`span.badge.${callback.status}`, {}, callback.status),
      String(callback.attempts),
      when(callback.next_attempt_at),
      callback.last_error ?? "—",
      callback.body === null
        ? idText(callback.event_id)
        : h(
          "details",
          {},
          h("summary", {}, callback.event_id === null ? "Body" : idText(callback.event_id)),
          json(callback.body)
        ),
      callback.redeliverable && may("developer")
        ? h("button.small", {
          type: "button",
          "data-action": `redeliver-${callback.id}`,
          on: {
            click: () =>
              change(
                () => api("POST", `/deliveries/${callback.id}/redeliver`),
                (answer) =>
                  notice(
                    "ok",
                    `Callback ${answer.callback.id} (${answer.callback.kind}) was queued for delivery again.`
                  )
              )
          }
        }, "Redeliver")
        : null
    ]),
    "No callback yet."
  )
}

/** An environment's delivery log, the newest 50 of the status chosen ("": all). */
const deliveriesPath = (environment, status) =>
  `/webhooks/${environment}/deliveries?limit=50${status === "" ? "" : `&status=${status}`}`

export async function webhooksPage(main, params) {
  const status = params.get("status") ?? ""
  const [{ environments: webhooks }, ...logs] = await Promise.all([
    api("GET", "/webhooks"),
    ...environments.map(([environment]) => api("GET", deliveriesPath(environment, status)))
  ])
  const { change, outcome } = changes(main, () => webhooksPage(main, params))
  const section = ([environment, label], index) => {
    const webhook = webhooks.find((each) => each.environment === environment)
    const urlForm = h(
      "form.inline",
      {
        "aria-label": `Set the ${environment} callback URL`,
        on: {
          submit: async (event) => {
            event.preventDefault()
            const url = formValues(urlForm).callback_url
            await change(
              () => api("PATCH", `/webhooks/${environment}`, { callback_url: url === "" ? null : url }),
              () => notice("ok", `The ${environment} callback URL was saved.`)
            )
          }
        }
      },
      field(
        `${label} callback URL`,
        { name: "callback_url", type: "url", value: webhook.callback_url ?? "" },
        environment === "test"
          ? "Empty: the service's sandbox wallet answers your test players"
          : "https:// on the public internet"
      ),
      h("button", { type: "submit" }, "Save")
    )
    const trial = h("div", { "aria-live": "polite" })
    const deliveries = h("div", { "data-deliveries": environment }, deliveriesTable(logs[index].callbacks, change))
    const test = h("button.secondary", {
      type: "button",
      on: {
        click: async () => {
          const sent = await attempt(trial, () => api("POST", `/webhooks/${environment}/test`))
          if (sent === undefined) return
          fill(trial, trialView(environment, sent))
          // The send is in the delivery log now, as every callback is: the log is read again, the answer kept above.
          const log = await attempt(trial, () => api("GET", deliveriesPath(environment, status)))
          if (log !== undefined) fill(deliveries, deliveriesTable(log.callbacks, change))
        }
      }
    }, `Send a test callback (${environment})`)
    const secretForm = h(
      "form.inline",
      {
        "aria-label": `Rotate the ${environment} webhook secret`,
        on: {
          submit: async (event) => {
            event.preventDefault()
            const hours = keepOld(formValues(secretForm))
            if (!confirm(`Issue a new ${environment} webhook secret? The current one ${kept(hours)}.`)) return
            await change(
              () => api("POST", `/webhooks/${environment}/rotate-secret`, { keep_old_hours: hours }),
              (answer) =>
                secretBox(`New ${environment} webhook secret`, [[
                  `${label} webhook secret`,
                  answer.webhook_secret,
                  `${environment}-webhook-secret`
                ]], "Shown only this once: verify callbacks with it (and, while the old one is valid, with either).")
            )
          }
        }
      },
      overlapField("When the old secret stops signing", "24"),
      h("button.secondary", { type: "submit" }, `Rotate ${environment} webhook secret`)
    )
    const developer = may("developer")
    return h(
      "section.card",
      { "aria-labelledby": `webhook-${environment}`, "data-environment": environment },
      h("h2", { id: `webhook-${environment}` }, `${label} webhook`),
      developer ? urlForm : h("p", {}, `${label} callback URL: `, webhook.callback_url ?? "none"),
      developer ? [h("div.actions", {}, test), trial] : null,
      h("h3", {}, "Webhook secret"),
      h(
        "p",
        {},
        webhook.previous_secret_valid_until === null
          ? "Callbacks are signed with the current secret only."
          : [
            "Callbacks are also signed with the previous secret until ",
            when(webhook.previous_secret_valid_until),
            "."
          ]
      ),
      developer ? secretForm : h("p.empty", {}, readOnly("webhooks")),
      h("h3", {}, `${label} deliveries`),
      deliveries
    )
  }
  const filter = h(
    "form.inline",
    { role: "search" },
    field("Show deliveries", {
      type: "select",
      name: "status",
      value: status,
      options: [["", "All"], ["pending", "Pending"], ["failed", "Failed"], ["delivered", "Delivered"]]
    })
  )
  filter.addEventListener("change", () => {
    const chosen = formValues(filter).status
    navigate(`/portal/webhooks${chosen === "" ? "" : `?status=${chosen}`}`)
  })
  fill(main, h("h1", {}, "Webhooks"), outcome, filter, environments.map(section))
}
