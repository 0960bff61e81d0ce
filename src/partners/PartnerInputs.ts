/** What an operator brings to create or change a partner, what a new one is handed, and the errors these end in. */
import { Schema } from "effect"
import type { Partner, PartnerStatus } from "../domain/Partner.ts"
import { PartnerStatus as PartnerStatusSchema } from "../domain/Partner.ts"

/** What an operator may set on a partner. Shared by create and update. */
export const PartnerFields = Schema.Struct({
  name: Schema.String.check(Schema.isTrimmed(), Schema.isMinLength(1), Schema.isMaxLength(255)),
  slug: Schema.String.check(
    Schema.isPattern(/^[a-z0-9]+(-[a-z0-9]+)*$/, {
      message: "must be lowercase letters, digits and single dashes (e.g. acme-bets)"
    }),
    Schema.isMaxLength(100)
  ),
  status: PartnerStatusSchema,
  commissionPercent: Schema.Finite.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  // Its form and where it leads are the CallbackUrlPolicy's to judge.
  callbackUrl: Schema.NullOr(Schema.String.check(Schema.isMaxLength(2048))),
  /** The test environment's callback URL; null: the sandbox's partner wallet answers test players. */
  testCallbackUrl: Schema.NullOr(Schema.String.check(Schema.isMaxLength(2048))),
  /** Requests a minute on the partner API; null follows PARTNER_RATE_LIMIT. */
  rateLimitPerMinute: Schema.NullOr(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 1_000_000_000 })))
})

export class PartnerNotFound extends Schema.TaggedError<PartnerNotFound>()("PartnerNotFound", {
  slug: Schema.String
}) {
  override get message() {
    return `No partner with slug "${this.slug}".`
  }
}

export class InvalidPartnerInput extends Schema.TaggedError<InvalidPartnerInput>()("InvalidPartnerInput", {
  message: Schema.String
}) {}

export interface NewPartner {
  readonly name: string
  readonly slug?: string | undefined
  readonly status?: PartnerStatus | undefined
  readonly commissionPercent?: number | undefined
  readonly callbackUrl?: string | null | undefined
  readonly testCallbackUrl?: string | null | undefined
  /** Requests a minute on the partner API; absent or null: PARTNER_RATE_LIMIT. */
  readonly rateLimitPerMinute?: number | null | undefined
  /** A live token to install instead of a generated one (the demo partner's). */
  readonly token?: string | undefined
}

export interface PartnerChanges {
  readonly name?: string | undefined
  readonly commissionPercent?: number | undefined
  /** The live environment's; null clears it. */
  readonly callbackUrl?: string | null | undefined
  /** The test environment's; null clears it (the sandbox's partner wallet answers). */
  readonly testCallbackUrl?: string | null | undefined
  /** null: back to PARTNER_RATE_LIMIT. */
  readonly rateLimitPerMinute?: number | null | undefined
}

/** A change of a partner's currencies: a field absent is kept, null clears it (back to the deployment's). */
export interface CurrencyChange {
  /** null: the deployment's DEFAULT_CURRENCY. */
  readonly defaultCurrency?: string | null | undefined
  /** null: every currency the deployment enables. */
  readonly currencies?: ReadonlyArray<string> | null | undefined
}

/** What a new partner's environment is handed, this once. */
export interface IssuedCredentials {
  readonly token: string
  readonly webhookSecret: string
}

/** A new partner: its live credentials, and its test ones beside them. */
export interface CreatedPartner extends IssuedCredentials {
  readonly partner: Partner
  readonly test: IssuedCredentials
}
