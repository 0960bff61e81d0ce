import { Context, Effect, Layer, Option } from "effect"
import { hash, randomBytes } from "node:crypto"
import { type Actor, isEmail, normalizeEmail } from "../domain/Admin.ts"
import type { PartnerRole, PartnerUser } from "../domain/PartnerUser.ts"
import { IdentityConfig } from "./IdentityConfig.ts"
import { AuditRepo } from "./AuditRepo.ts"
import { LoginAttemptRepo, type LoginThrottled, throttleRules } from "./LoginAttemptRepo.ts"
import { type HashersBusy, hashPassword, PasswordHashing } from "./Passwords.ts"
import {
  EmailHasAccount,
  PartnerEmailTaken,
  PartnerUserRepo,
  type UserOfPartner,
  type UsersPartner
} from "./PartnerUserRepo.ts"
import { InvitationInvalid, LastOwner, PartnerUserNotFound, PasswordSetByUser } from "./PartnerUserRows.ts"
import { hashSession, newSessionSecrets } from "./Sessions.ts"
import { checkPassword, InvalidAccountInput, type LoginRefused, makeLogin, replacementHash } from "./SignIn.ts"

export { EmailHasAccount, InvitationInvalid, LastOwner, PartnerEmailTaken, PartnerUserNotFound, PasswordSetByUser }

/** A user invited: the link's secret (shown to whoever invited, once) and when it stops working. */
export interface Invited {
  readonly user: PartnerUser
  readonly partner: UsersPartner
  readonly invitation: string
  readonly expiresAt: Date
}

/** A portal session: who, for which partner, the CSRF token every change carries, and when it ends. */
export interface PortalSession {
  readonly user: PartnerUser
  readonly partner: UsersPartner
  readonly csrfToken: string
  readonly expiresAt: Date
}

export interface NewPortalSession extends PortalSession {
  readonly sessionId: string
}

const hashInvitation = (invitation: string): Uint8Array => hash("sha256", invitation, "buffer")
const userAudit = (user: PartnerUser) => ({ user: user.email, role: user.role })
const target = (partner: UsersPartner) => `partner:${partner.slug}`

/**
 * A partner's users and their portal sessions, with the console's security: passwords hashed with scrypt under the
 * shared hash permits, log-ins throttled in PostgreSQL (apart from the console's), sessions in PostgreSQL with a CSRF
 * token, invitation links used once that expire, and every change in the audit trail (in the same transaction). Who
 * changes a partner's users is the caller's to check (an owner, an operator); every call names the partner, and a
 * user of another partner is not found.
 */
export class PartnerUsers extends Context.Service<PartnerUsers, {
  invite(actor: Actor, partner: UsersPartner, input: { email: string; role: PartnerRole }): Effect.Effect<
    Invited,
    PartnerEmailTaken | InvalidAccountInput
  >
  /**
   * A new invitation link (the earlier one stops working) for a user who has not set a password. For one who has, it
   * is a password reset (their password works until the link is used), only at the user's request: `requestedByUser`
   * is what the operator checked (a ticket, a call), audited with the reset; without it, refused.
   */
  reinvite(
    actor: Actor,
    partner: UsersPartner,
    userId: number,
    requestedByUser?: string
  ): Effect.Effect<Invited, PartnerUserNotFound | PasswordSetByUser>
  list(partnerId: number): Effect.Effect<ReadonlyArray<PartnerUser>>
  setRole(
    actor: Actor,
    partner: UsersPartner,
    userId: number,
    role: PartnerRole
  ): Effect.Effect<PartnerUser, PartnerUserNotFound | LastOwner>
  remove(
    actor: Actor,
    partner: UsersPartner,
    userId: number
  ): Effect.Effect<PartnerUser, PartnerUserNotFound | LastOwner>
  /** Who an open invitation is for. */
  invitation(invitation: string): Effect.Effect<UserOfPartner, InvitationInvalid>
  /**
   * Uses an invitation: the password is set, the user's other sessions end, and a session begins; refused while the
   * e-mail has an accepted account at another partner.
   */
  accept(invitation: string, password: string, clientAddress: string): Effect.Effect<
    NewPortalSession,
    InvitationInvalid | EmailHasAccount | InvalidAccountInput | HashersBusy
  >
  login(
    email: string,
    password: string,
    clientAddress: string
  ): Effect.Effect<NewPortalSession, LoginRefused | LoginThrottled | HashersBusy>
  /** A live session of a user whose partner is active. */
  session(sessionId: string): Effect.Effect<Option.Option<PortalSession>>
  logout(sessionId: string, session: PortalSession): Effect.Effect<void>
  /** The current password checked under the log-in's throttle (counted against `clientAddress`). */
  changePassword(
    sessionId: string,
    session: PortalSession,
    current: string,
    next: string,
    clientAddress: string
  ): Effect.Effect<void, LoginRefused | LoginThrottled | InvalidAccountInput | HashersBusy>
}>()("partner-api/identity/PartnerUsers") {
  static readonly layerNoDeps = Layer.effect(
    PartnerUsers,
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const audit = yield* AuditRepo
      const attempts = yield* LoginAttemptRepo
      const hashing = yield* PasswordHashing
      const config = yield* IdentityConfig
      const replaceHash = replacementHash({ attempts, hashing, rules: throttleRules(config) }, "portal")
      const found = (userId: number) =>
        Option.match({
          onNone: () => Effect.fail(new PartnerUserNotFound({ id: userId })),
          onSome: Effect.succeed<PartnerUser>
        })

      const issued = (user: PartnerUser, partner: UsersPartner, invitation: string): Invited => ({
        user,
        partner,
        invitation,
        expiresAt: user.invitationExpiresAt!
      })

      const invite = Effect.fn("PartnerUsers.invite")(
        function*(actor: Actor, partner: UsersPartner, input: { email: string; role: PartnerRole }) {
          const email = normalizeEmail(input.email)
          if (!isEmail(email)) {
            return yield* new InvalidAccountInput({
              field: "email",
              message: "The email must be a valid e-mail address."
            })
          }
          const invitation = randomBytes(32).toString("base64url")
          return yield* audit.atomically(Effect.gen(function*() {
            const user = yield* repo.insert({
              partnerId: partner.id,
              email,
              role: input.role,
              invitationHash: hashInvitation(invitation),
              invitationTtl: config.invitationTtl
            })
            yield* audit.record(actor, {
              action: "partner-user.invite",
              target: target(partner),
              after: userAudit(user)
            })
            return issued(user, partner, invitation)
          }))
        }
      )

      const reinvite = Effect.fn("PartnerUsers.reinvite")(
        function*(actor: Actor, partner: UsersPartner, userId: number, requestedByUser?: string) {
          const note = requestedByUser?.trim() ?? ""
          const invitation = randomBytes(32).toString("base64url")
          return yield* audit.atomically(Effect.gen(function*() {
            const before = yield* repo.find(partner.id, userId).pipe(Effect.flatMap(found(userId)))
            if (before.passwordSet && note === "") return yield* new PasswordSetByUser()
            // Without a note the update skips a user who set a password since: the link would be a reset.
            const updated = yield* repo.reinvite(
              partner.id,
              userId,
              hashInvitation(invitation),
              config.invitationTtl,
              note !== ""
            )
            if (Option.isNone(updated)) {
              yield* repo.find(partner.id, userId).pipe(Effect.flatMap(found(userId)))
              return yield* new PasswordSetByUser()
            }
            const user = updated.value
            // The note, never the link: the audit trail is read by more people than the user.
            yield* audit.record(
              actor,
              user.passwordSet
                ? {
                  action: "partner-user.password-reset",
                  target: target(partner),
                  after: { ...userAudit(user), requestedByUser: note }
                }
                : { action: "partner-user.reinvite", target: target(partner), after: userAudit(user) }
            )
            return issued(user, partner, invitation)
          }))
        }
      )

      /**
       * A change of a user's role or their removal: under the lock of the partner's owners, refused when it would
       * leave none.
       */
      const ownersKept = (
        action: string,
        actor: Actor,
        partner: UsersPartner,
        userId: number,
        losesOwner: boolean,
        change: Effect.Effect<Option.Option<PartnerUser>>
      ): Effect.Effect<PartnerUser, PartnerUserNotFound | LastOwner> =>
        audit.atomically(Effect.gen(function*() {
          const owners = yield* repo.lockOwners(partner.id)
          const before = yield* repo.find(partner.id, userId).pipe(Effect.flatMap(found(userId)))
          if (before.role === "owner" && losesOwner && owners <= 1) return yield* new LastOwner()
          const after = yield* change.pipe(Effect.flatMap(found(userId)))
          yield* audit.record(actor, {
            action,
            target: target(partner),
            before: userAudit(before),
            after: action === "partner-user.remove" ? null : userAudit(after)
          })
          return after
        }))

      /** An open invitation of an active partner's user (an inactive partner's users cannot log in, nor join). */
      const invitationOf = (invitation: string) =>
        Effect.flatMap(
          repo.byInvitation(hashInvitation(invitation)),
          (found) =>
            Option.isSome(found) && found.value.partner.status === "active"
              ? Effect.succeed(found.value)
              : Effect.fail(new InvitationInvalid())
        )

      const opened = (
        found: UserOfPartner,
        sessionId: string,
        csrfToken: string,
        expiresAt: Date
      ): NewPortalSession => ({
        sessionId,
        csrfToken,
        expiresAt,
        user: found.user,
        partner: found.partner
      })

      const accept = Effect.fn("PartnerUsers.accept")(
        function*(invitation: string, password: string, clientAddress: string) {
          const open = yield* invitationOf(invitation)
          yield* checkPassword(password)
          const passwordHash = yield* hashing.gated("portal", hashPassword(password))
          const { csrfToken, sessionId } = newSessionSecrets()
          return yield* audit.atomically(Effect.gen(function*() {
            // Used once: of two accepts racing, the second finds the link closed.
            const user = yield* Effect.flatMap(
              repo.acceptInvitation(hashInvitation(invitation), passwordHash),
              Option.match({
                onNone: () => Effect.fail(new InvitationInvalid()),
                onSome: Effect.succeed
              })
            )
            yield* repo.deleteSessionsOf(user.id)
            yield* audit.record({ name: user.email, via: "portal" }, {
              action: "partner-user.accept-invitation",
              target: target(open.partner),
              after: { ...userAudit(user), client: clientAddress }
            })
            const expiresAt = yield* repo.createSession({
              idHash: hashSession(sessionId),
              ownerId: user.id,
              csrfToken,
              ttl: config.portalSessionTtl
            })
            return opened({ ...open, user }, sessionId, csrfToken, expiresAt)
          }))
        }
      )

      const signIn = makeLogin({
        attempts,
        audit,
        hashing,
        rules: throttleRules(config)
      }, {
        realm: "portal",
        via: "portal",
        prefix: "portal",
        target: (email) => `partner-user:${email}`,
        claimant: (email) =>
          Effect.map(
            repo.credentials(email),
            Option.map((found) => ({
              ...found,
              account: found.user,
              barred: found.partner.status === "active" ? undefined : "partner inactive"
            }))
          ),
        late: () => Option.none<{ reason: string; error: never }>(),
        openSession: (found, session) =>
          repo.createSession({ ...session, ownerId: found.user.id, ttl: config.portalSessionTtl })
      })

      const changePassword = Effect.fn("PartnerUsers.changePassword")(
        function*(sessionId: string, session: PortalSession, current: string, next: string, clientAddress: string) {
          const stored = yield* repo.credentials(session.user.email)
          const passwordHash = yield* replaceHash(
            { email: session.user.email, clientAddress },
            Option.match(stored, { onNone: () => null, onSome: (s) => s.passwordHash }),
            current,
            next
          )
          yield* audit.atomically(Effect.gen(function*() {
            yield* repo.setPassword(session.user.id, passwordHash)
            // Other sessions of the user (perhaps someone else's) end; this one goes on.
            yield* repo.deleteSessionsOf(session.user.id, hashSession(sessionId))
            yield* audit.record({ name: session.user.email, via: "portal" }, {
              action: "partner-user.change-password",
              target: target(session.partner)
            })
          }))
        }
      )

      return PartnerUsers.of({
        invite,
        reinvite,
        list: repo.list,
        setRole: (actor, partner, userId, role) =>
          ownersKept(
            "partner-user.set-role",
            actor,
            partner,
            userId,
            role !== "owner",
            repo.setRole(partner.id, userId, role)
          ),
        remove: (actor, partner, userId) =>
          ownersKept("partner-user.remove", actor, partner, userId, true, repo.remove(partner.id, userId)),
        invitation: invitationOf,
        accept,
        login: (email, password, clientAddress) =>
          Effect.map(
            signIn(email, password, clientAddress),
            ({ claimant, csrfToken, expiresAt, sessionId }) => opened(claimant, sessionId, csrfToken, expiresAt)
          ),
        session: (sessionId) =>
          sessionId === "" ?
            Effect.succeedNone :
            Effect.map(
              repo.findSession(hashSession(sessionId)),
              Option.flatMap((found) =>
                found.partner.status === "active" && found.csrfToken !== null && found.expiresAt !== null
                  ? Option.some({
                    user: found.user,
                    partner: found.partner,
                    csrfToken: found.csrfToken,
                    expiresAt: found.expiresAt
                  })
                  : Option.none()
              )
            ),
        logout: (sessionId, session) =>
          audit.atomically(Effect.gen(function*() {
            yield* repo.deleteSession(hashSession(sessionId))
            yield* audit.record({ name: session.user.email, via: "portal" }, {
              action: "portal.logout",
              target: `partner-user:${session.user.email}`
            })
          })),
        changePassword
      })
    })
  )

  static readonly layer = this.layerNoDeps.pipe(
    Layer.provide(
      Layer.mergeAll(PartnerUserRepo.layerSql, AuditRepo.layerSql, LoginAttemptRepo.layerSql, PasswordHashing.layer)
    )
  )

  /** Over memory repositories (the audit trail kept beside it for a test to read); the partners are the caller's (PartnerRepo). */
  static readonly layerMemory = this.layerNoDeps.pipe(
    Layer.provideMerge(AuditRepo.layerMemory),
    Layer.provide(Layer.mergeAll(PartnerUserRepo.layerMemory, LoginAttemptRepo.layerMemory, PasswordHashing.layer))
  )
}
