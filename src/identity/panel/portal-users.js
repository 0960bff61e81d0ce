// @ts-check
// A partner's portal users, as its owner manages them in the partner portal and an operator in the console: the
// same list and the same changes (invite, role, a new invitation link, remove) under each panel's own API path.
import { field, fill, formValues, h, notice, secretBox, table, when, whenText } from "./dom.js"
import { api, canChange, changes, navigate } from "./session.js"

const roles =
  /** @type {const} */ ([["viewer", "Viewer: reads everything"], ["developer", "Developer: also tokens and webhooks"], [
    "owner",
    "Owner: also users"
  ]])

const invitationBox = (answer) =>
  secretBox(
    `Invitation for ${answer.user.email}`,
    [["Invitation link", answer.invitation_url, "invitation-url"]],
    `Shown only this once: send it to ${answer.user.email} over a safe channel. It works once, until ${
      whenText(answer.expires_at)
    }.`
  )

/**
 * The users under `path` (`/users` in the portal, `/partners/<slug>/users` in the console), drawn into `region`;
 * the forms only when `manage`, the API deciding all the same. A user who has set a password (active) gets a new link
 * only where `resets` (the console's password reset, with the note of the user's request); the portal leaves it out.
 * @param {HTMLElement} region
 * @param {{ path: string, manage: boolean, readOnly: string, resets: boolean }} options
 */
export async function usersSection(region, options) {
  const { users } = await api("GET", options.path)
  const { change, outcome } = changes(region, () => usersSection(region, options), "users-outcome")
  // The API refuses to demote or remove a partner's last owner (409): the only owner's row offers neither, and says why.
  const owners = users.filter((user) => user.role === "owner").length
  const actions = (user) => {
    if (!options.manage) return "—"
    const roleForm = h(
      "form.inline",
      {
        "aria-label": `Role of ${user.email}`,
        on: {
          submit: (event) => {
            event.preventDefault()
            const { role } = formValues(roleForm)
            return change(
              () => api("PATCH", `${options.path}/${user.id}`, { role }),
              (answer) => notice("ok", `${answer.user.email} is now ${answer.user.role}.`)
            )
          }
        }
      },
      field(`Role of ${user.email}`, { type: "select", name: "role", value: user.role, options: roles }),
      h("button.small", { type: "submit" }, "Save role")
    )
    const link = `${options.path}/${user.id}/invitation`
    const reset = () => {
      const note = prompt(
        `Reset the password of ${user.email}? Their password works until they use the new link. ` +
          "Note what you checked that they asked for it (a ticket, a call):"
      )
      return note !== null && change(() => api("POST", link, { requested_by_user: note }), invitationBox)
    }
    const newLink = user.status !== "active"
      ? h("button.secondary.small", {
        type: "button",
        on: { click: () => change(() => api("POST", link), invitationBox) }
      }, "New invitation link")
      : options.resets
      ? h("button.secondary.small", { type: "button", on: { click: reset } }, "Reset password")
      : null
    if (user.role === "owner" && owners === 1) {
      return h(
        "div.actions",
        {},
        newLink,
        h(
          "p.hint",
          { "data-only-owner": "" },
          "The only owner: make another user owner before changing this role or removing them."
        )
      )
    }
    return h(
      "div.actions",
      {},
      roleForm,
      newLink,
      h("button.danger.small", {
        type: "button",
        on: {
          click: () =>
            confirm(`Remove ${user.email}? Their sessions end at once.`) &&
            change(() => api("DELETE", `${options.path}/${user.id}`), (answer) =>
              notice("ok", `${answer.user.email} was removed.`))
        }
      }, "Remove")
    )
  }
  const invite = h(
    "form.card",
    {
      "aria-labelledby": "invite-title",
      on: {
        submit: (event) => {
          event.preventDefault()
          const values = formValues(invite)
          return change(() => api("POST", options.path, { email: values.email, role: values.role }), invitationBox)
        }
      }
    },
    h("h2", { id: "invite-title" }, "Invite a user"),
    h(
      "div.grid",
      {},
      field("E-mail", { name: "email", type: "email", required: true }),
      field("Role", { type: "select", name: "role", value: "developer", options: roles })
    ),
    h("button", { type: "submit" }, "Invite")
  )
  fill(
    region,
    outcome,
    table(
      "Users",
      ["E-mail", "Role", "Status", "Invitation link valid until", "Since", ""],
      users.map((user) => [
        user.email,
        user.role,
        user.status,
        when(user.invitation_expires_at),
        when(user.created_at),
        actions(user)
      ]),
      "No user yet."
    ),
    options.manage ? invite : h("p.empty", {}, options.readOnly)
  )
}

/**
 * The console's page of a partner's portal users: the partner chosen, then its users as its owner sees them.
 * @param {HTMLElement} main
 * @param {URLSearchParams} params
 */
export async function portalUsersPage(main, params) {
  const { partners } = await api("GET", "/partners")
  const slug = params.get("partner") ?? partners[0]?.slug ?? ""
  const chooser = h(
    "form.inline",
    { role: "search" },
    field("Partner", {
      type: "select",
      name: "partner",
      value: slug,
      options: partners.map((partner) => [partner.slug, partner.name])
    })
  )
  chooser.addEventListener(
    "change",
    () => navigate(`/admin/portal-users?partner=${encodeURIComponent(formValues(chooser).partner)}`)
  )
  const region = h("div")
  fill(
    main,
    h("h1", {}, "Portal users"),
    h(
      "p",
      {},
      "The partner's own users of the partner portal (/portal): invite its first owner here, who can then invite the rest."
    ),
    chooser,
    region
  )
  if (slug === "") return fill(region, h("p.empty", {}, "No partner yet."))
  await usersSection(region, {
    path: `/partners/${encodeURIComponent(slug)}/users`,
    manage: canChange(),
    resets: true,
    readOnly: "Your role (viewer) can read but not change portal users."
  })
}
