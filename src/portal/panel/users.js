// @ts-check
// The partner's users (the owner invites, changes roles, removes, sends a new link: the console's users.js) and
// accepting an invitation.
import { field, fill, h, notice } from "./dom.js"
import { api, postingForm } from "./session.js"
import { usersSection } from "./portal-users.js"
import { may, readOnly } from "./who.js"

export async function usersPage(main) {
  const region = h("div")
  fill(main, h("h1", {}, "Users"), region)
  await usersSection(region, { path: "/users", manage: may("owner"), readOnly: readOnly("users"), resets: false })
}

/**
 * Accepting an invitation: the link's secret is its fragment (after `#`), which no request carries; it is taken
 * out of the address bar at once and sent only in the body of the two calls that need it.
 * @param {HTMLElement} main
 * @param {(answer: any) => void} accepted
 */
export async function invitationPage(main, accepted) {
  const invitation = location.hash.slice(1)
  history.replaceState(null, "", "/portal/invitation")
  // A link cut at its `#` (a mail client, a copy of half of it, this page reloaded) has no secret to ask about: it is
  // refused here in the words of a refused secret, not sent to the API for a 422 about a field nobody typed.
  if (invitation === "") {
    return fill(
      main,
      h(
        "div.card.narrow",
        {},
        h("h1", {}, "Invitation"),
        notice(
          "error",
          "This invitation link cannot be used: it lacks its secret, the part after #. Open the whole link exactly as " +
            "you were sent it; if it was cut or is lost, ask your partner's owner or the operator for a new one."
        )
      )
    )
  }
  let found
  try {
    found = await api("POST", "/invitation", { invitation })
  } catch (error) {
    return fill(
      main,
      h("div.card.narrow", {}, h("h1", {}, "Invitation"), notice("error", /** @type {Error} */ (error).message))
    )
  }
  const form = postingForm({
    title: `Join ${found.partner.name}`,
    intro:
      `You were invited as ${found.role} (${found.email}). Choose a password to log in with (12 characters or more).`,
    fields: [
      field("E-mail", { name: "email", type: "email", value: found.email, autocomplete: "username", readonly: true }),
      field("Password", {
        name: "password",
        type: "password",
        autocomplete: "new-password",
        minlength: 12,
        required: true
      })
    ],
    submit: "Set password and log in",
    path: "/invitation/accept",
    body: (values) => ({ invitation, password: values.password }),
    done: accepted
  })
  fill(main, form)
}
