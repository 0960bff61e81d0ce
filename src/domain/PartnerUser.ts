import { Schema } from "effect"

/**
 * What a partner user may do in the partner portal. Everyone reads everything of their own partner; a `developer`
 * also changes its tokens and webhooks; an `owner` also manages its users. A `viewer` changes nothing (but their
 * own password).
 */
export const PartnerRole = Schema.Literals(["owner", "developer", "viewer"])
export type PartnerRole = typeof PartnerRole.Type

const rank: Record<PartnerRole, number> = { viewer: 0, developer: 1, owner: 2 }

/** Whether `role` reaches `needed` (an owner may do what a developer may, a developer what a viewer may). */
export const roleReaches = (role: PartnerRole, needed: PartnerRole) => rank[role] >= rank[needed]

/**
 * What each kind of change in the portal needs: the one table of the role matrix (docs/partner-guide/portal.md shows it). `account`
 * is the user's own (their password, logging out).
 */
export const changeNeeds = {
  account: "viewer",
  tokens: "developer",
  webhooks: "developer",
  users: "owner"
} as const satisfies Record<string, PartnerRole>
export type PortalChange = keyof typeof changeNeeds

/** A user of a partner, as the portal and the console know them: never their password or invitation. */
export class PartnerUser extends Schema.Class<PartnerUser>("PartnerUser")({
  id: Schema.Int,
  partnerId: Schema.Int,
  email: Schema.String,
  role: PartnerRole,
  /** Whether they chose a password (accepted an invitation); until then no log-in works. */
  passwordSet: Schema.Boolean,
  /** When their open invitation link stops working; null: none open. */
  invitationExpiresAt: Schema.NullOr(Schema.Date),
  createdAt: Schema.Date
}) {
  /** `active` (has a password), `invited` (an open link, no password yet), or `invitation expired` (invite again). */
  statusAt(now: number): "active" | "invited" | "invitation expired" {
    if (this.passwordSet) return "active"
    return this.invitationExpiresAt !== null && this.invitationExpiresAt.getTime() > now
      ? "invited"
      : "invitation expired"
  }
}
