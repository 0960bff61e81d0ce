import { Schema } from "effect"
import { SqlError } from "effect/sql"
import { PartnerStatus } from "../domain/Partner.ts"
import { PartnerUser } from "../domain/PartnerUser.ts"
import { IdFromBigInt } from "../platform/SqlCodecs.ts"
import { rowsOf } from "../platform/SqlRows.ts"

// PartnerUserRepo's rows (decoded only there), and the refusals of a partner's users, the repository's and
// PartnerUsers': apart so the repository, its memory twin and the service stay short.

const UserRow = Schema.Struct({ ...PartnerUser.fields, id: IdFromBigInt, partnerId: IdFromBigInt }).pipe(
  Schema.encodeKeys({
    partnerId: "partner_id",
    passwordSet: "password_set",
    invitationExpiresAt: "invitation_expires_at",
    createdAt: "created_at"
  }),
  Schema.decodeTo(PartnerUser)
)
export const decodeUsers = Schema.decodeUnknownEffect(Schema.Array(UserRow))

/** The partner a user belongs to, read with them (a session, an invitation): who they act for. */
export const UsersPartner = Schema.Struct({
  id: IdFromBigInt,
  name: Schema.String,
  slug: Schema.String,
  status: PartnerStatus
})
export type UsersPartner = typeof UsersPartner.Type
const PartnerColumns = UsersPartner.pipe(
  Schema.encodeKeys({ id: "p_id", name: "p_name", slug: "p_slug", status: "p_status" })
)
export const decodePartners = Schema.decodeUnknownEffect(Schema.Array(PartnerColumns))

const Extra = Schema.Struct({
  passwordHash: Schema.NullOr(Schema.String),
  csrfToken: Schema.NullOr(Schema.String),
  expiresAt: Schema.NullOr(Schema.Date)
}).pipe(Schema.encodeKeys({ passwordHash: "password_hash", csrfToken: "csrf_token", expiresAt: "expires_at" }))
export const decodeExtras = Schema.decodeUnknownEffect(Schema.Array(Extra))
export const countRows = rowsOf(Schema.Struct({ n: Schema.Int }))

/** A user with their partner, and what the query read beside them (a password hash, a session's CSRF token and end). */
export interface UserOfPartner {
  readonly user: PartnerUser
  readonly partner: UsersPartner
  readonly passwordHash: string | null
  readonly csrfToken: string | null
  readonly expiresAt: Date | null
}

/** An e-mail already a user of this partner (another partner's users are not this partner's to learn of). */
export class PartnerEmailTaken
  extends Schema.TaggedError<PartnerEmailTaken>()("PartnerEmailTaken", { email: Schema.String })
{
  override get message() {
    return `The e-mail "${this.email}" is already a user of this partner.`
  }
}

/** An invitation accepted for an e-mail that has an accepted account at another partner: one account per e-mail. */
export class EmailHasAccount extends Schema.TaggedError<EmailHasAccount>()("EmailHasAccount", {}) {
  override get message() {
    return "Your e-mail already has a partner portal account (one account per e-mail): log in with it, " +
      "or ask the operator to move it."
  }
}

export const isAccountEmailTaken = (error: unknown): boolean =>
  SqlError.isSqlError(error) && error.reason._tag === "UniqueViolation" &&
  error.reason.constraint === "partner_users_account_email_key"

/** An invitation link that cannot be used: one answer whether it never existed, was used, replaced or expired. */
export class InvitationInvalid extends Schema.TaggedError<InvitationInvalid>()("InvitationInvalid", {}) {
  override get message() {
    return "This invitation link cannot be used: it was used already, replaced by a newer one, or it expired. " +
      "Ask your partner's owner or the operator for a new one."
  }
}

export class PartnerUserNotFound
  extends Schema.TaggedError<PartnerUserNotFound>()("PartnerUserNotFound", { id: Schema.Int })
{
  override get message() {
    return `No user ${this.id} of this partner.`
  }
}

/**
 * A new link for a user who has set a password, without a note of their request: it would reset the password and
 * hand the account to whoever asked. The portal's answer; the console asks for the note instead.
 */
export class PasswordSetByUser extends Schema.TaggedError<PasswordSetByUser>()("PasswordSetByUser", {}) {
  override get message() {
    return "This user has set a password: they change it themselves under their account. " +
      "If it is lost, the operator issues a password reset from the console."
  }
}

/** A change that would leave a partner without an owner (who manages its users). */
export class LastOwner extends Schema.TaggedError<LastOwner>()("LastOwner", {}) {
  override get message() {
    return "A partner keeps at least one owner: make another user owner first."
  }
}
