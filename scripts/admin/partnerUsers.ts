/** The admin CLI's commands for a partner's portal users (`partners users`, `invite-user`, ...), as the console's. */
import { Clock, Console, Effect, Option } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { invitationUrl, userView } from "../../src/identity/http/PartnerUsers.ts"
import { type Invited, PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { normalizeEmail } from "../../src/domain/Admin.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { cliActor } from "./accounts.ts"
import { printJson, slug, userFacing } from "./output.ts"

const email = Argument.String("email").pipe(Argument.withDescription("The user's e-mail"))
const role = Flag.Literals("role", ["owner", "developer", "viewer"])

/** The partner and, when `userEmail` is given, that user of it (by e-mail: the CLI's way to name one). */
const partnerAndUser = Effect.fnUntraced(function*(partnerSlug: string, userEmail: string) {
  const partner = yield* userFacing((yield* Partners).show(partnerSlug))
  const users = yield* (yield* PartnerUsers).list(partner.id)
  const user = users.find((each) => each.email === normalizeEmail(userEmail))
  if (user === undefined) {
    return yield* new CliError.UserError({
      cause: userEmail,
      userMessage: `No portal user "${userEmail}" of partner "${partnerSlug}".`
    })
  }
  return { partner, user }
})

/** An invitation as the CLI prints it: the link (shown this once) and when it stops working. */
const printInvitation = Effect.fnUntraced(function*(invited: Invited) {
  const app = yield* AppConfig
  yield* Console.log(JSON.stringify({
    email: invited.user.email,
    role: invited.user.role,
    partner: invited.partner.slug,
    invitation_url: invitationUrl(app, invited.invitation),
    expires_at: invited.expiresAt.toISOString()
  }))
})

const users = Command.make("users", { slug }, ({ slug }) =>
  Effect.gen(function*() {
    const partner = yield* userFacing((yield* Partners).show(slug))
    const now = yield* Clock.currentTimeMillis
    yield* printJson((yield* (yield* PartnerUsers).list(partner.id)).map((user) => userView(user, now)))
  })).pipe(Command.withDescription("List the partner's portal users (/portal)"))

const inviteUser = Command.make("invite-user", {
  slug,
  email: Flag.String("email").pipe(Flag.withDescription("The user's e-mail (their log-in; one account per e-mail)")),
  role: role.pipe(Flag.withDescription("owner (also manages users), developer (tokens and webhooks) or viewer (reads)"))
}, (input) =>
  Effect.gen(function*() {
    const partner = yield* userFacing((yield* Partners).show(input.slug))
    yield* printInvitation(
      yield* userFacing((yield* PartnerUsers).invite(cliActor, partner, { email: input.email, role: input.role }))
    )
  })).pipe(Command.withDescription(
    "Invite a portal user and print the one-time invitation link (shown only this once; good for PORTAL_INVITATION_TTL)"
  ))

const reinviteUser = Command.make("reinvite-user", {
  slug,
  email,
  requestedByUser: Flag.String("requested-by-user").pipe(
    Flag.withDescription(
      "For a user who has set a password (the link resets it): what you checked that they asked (a ticket, a call)"
    ),
    Flag.optional
  )
}, (input) =>
  Effect.gen(function*() {
    const { partner, user } = yield* partnerAndUser(input.slug, input.email)
    const note = Option.getOrUndefined(input.requestedByUser)
    const invited = yield* (yield* PartnerUsers).reinvite(cliActor, partner, user.id, note).pipe(
      Effect.catchTag("PasswordSetByUser", () =>
        Effect.fail(
          new CliError.UserError({
            cause: input.email,
            userMessage: `${user.email} has set a password: a new link resets it, so only at their request, noted ` +
              `with --requested-by-user "<what you checked: a ticket, a call>".`
          })
        )),
      userFacing
    )
    yield* printInvitation(invited)
  })).pipe(
    Command.withDescription(
      "A new invitation link for a portal user (the earlier one stops working); for one who has set a password, a " +
        "password reset at their request (--requested-by-user)"
    )
  )

const setUserRole = Command.make("set-user-role", {
  slug,
  email,
  role: role.pipe(Flag.withDescription("The new role"))
}, (input) =>
  Effect.gen(function*() {
    const { partner, user } = yield* partnerAndUser(input.slug, input.email)
    const changed = yield* userFacing((yield* PartnerUsers).setRole(cliActor, partner, user.id, input.role))
    yield* printJson(userView(changed, yield* Clock.currentTimeMillis))
  })).pipe(Command.withDescription("Change a portal user's role (a partner keeps at least one owner)"))

const removeUser = Command.make("remove-user", { slug, email }, (input) =>
  Effect.gen(function*() {
    const { partner, user } = yield* partnerAndUser(input.slug, input.email)
    const removed = yield* userFacing((yield* PartnerUsers).remove(cliActor, partner, user.id))
    yield* printJson(userView(removed, yield* Clock.currentTimeMillis))
  })).pipe(
    Command.withDescription("Remove a portal user; their sessions end at once (a partner keeps at least one owner)")
  )

export const partnerUserCommands = [users, inviteUser, reinviteUser, setUserRole, removeUser] as const
