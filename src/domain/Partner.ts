import { Schema } from "effect"

export const PartnerStatus = Schema.Literals(["active", "inactive"])
export type PartnerStatus = typeof PartnerStatus.Type

/** A partner (operator) as the service knows it. The token is never part of it. */
export class Partner extends Schema.Class<Partner>("Partner")({
  id: Schema.Int,
  name: Schema.String,
  slug: Schema.String,
  status: PartnerStatus,
  commission_percent: Schema.Finite,
  callback_url: Schema.NullOr(Schema.String),
  created_at: Schema.Date,
  updated_at: Schema.Date
}) {
  get isActive(): boolean {
    return this.status === "active"
  }
}
