import type { PartnerRole } from "./PartnerUser.ts"
import { Schema } from "effect"

/** What an admin may do: a `viewer` reads everything; an `operator` also changes things. */
export const AdminRole = Schema.Literals(["viewer", "operator"])
export type AdminRole = typeof AdminRole.Type

/** An admin account as the console knows it. The password hash is never part of it. */
export class AdminAccount extends Schema.Class<AdminAccount>("AdminAccount")({
  id: Schema.Int,
  email: Schema.String,
  role: AdminRole,
  disabled: Schema.Boolean,
  createdAt: Schema.Date,
  updatedAt: Schema.Date
}) {
  get canChange(): boolean {
    return this.role === "operator" && !this.disabled
  }
}

/** An e-mail as accounts are keyed: trimmed and lower-cased, so `Ana@Example.com` is `ana@example.com`. */
export const normalizeEmail = (email: string) => email.trim().toLowerCase()

/** A plausible e-mail address: something, one `@`, a host with a dot; no spaces. */
export const isEmail = (email: string) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254

/**
 * Who made a change, and through what: the console (an admin's e-mail), the CLI (the machine's user) or the partner
 * portal (a partner user's e-mail: the change is that partner's own).
 */
export interface Actor {
  readonly name: string
  readonly via: "console" | "cli" | "portal"
  /** A portal user's role in the partner's account (operators have none: they are the operator). */
  readonly role?: PartnerRole | undefined
}

/** One entry of the audit trail. `before` and `after` never hold a secret (tokens, webhook secrets, passwords). */
export interface AuditEntry {
  readonly id: number
  readonly at: Date
  readonly actor: string
  readonly via: Actor["via"]
  readonly action: string
  readonly target: string
  readonly before: unknown
  readonly after: unknown
}
