import { Option, Schema } from "effect"

/**
 * What a partner's launches do with the `user_rtp` the partner sends (the return to player, a whole percent
 * from 0 to 100): `pass` it on as sent (none sent: the aggregator's default), `clamp` it into [min, max] (none
 * sent: still none), or ignore it for a `fixed` value on every launch (regulated markets forbid a per-player
 * RTP). Set by an operator, per partner, for both environments.
 */
const Percent = Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 }))

export const RtpPolicy = Schema.Union([
  Schema.Struct({ mode: Schema.Literal("pass") }),
  Schema.Struct({ mode: Schema.Literal("clamp"), min: Percent, max: Percent }).check(
    Schema.makeFilter((policy) => policy.min <= policy.max, { message: "min must not be above max" })
  ),
  Schema.Struct({ mode: Schema.Literal("fixed"), value: Percent })
]).annotate({
  identifier: "RtpPolicy",
  description:
    "`{mode: \"pass\"}`, `{mode: \"clamp\", min, max}` or `{mode: \"fixed\", value}`; percentages are whole numbers 0 to 100"
})
export type RtpPolicy = typeof RtpPolicy.Type

export const passRtp: RtpPolicy = { mode: "pass" }

/** The RTP a launch carries to the aggregator under the policy; null: none (the aggregator's default). */
export const appliedRtp = (policy: RtpPolicy, requested: number | null): number | null => {
  switch (policy.mode) {
    case "pass":
      return requested
    case "clamp":
      return requested === null ? null : Math.min(Math.max(requested, policy.min), policy.max)
    case "fixed":
      return policy.value
  }
}

/** The policy in the CLI's words: `pass`, `clamp:85-96`, `fixed:94`. */
export const rtpPolicyText = (policy: RtpPolicy): string =>
  policy.mode === "pass"
    ? "pass"
    : policy.mode === "clamp"
    ? `clamp:${policy.min}-${policy.max}`
    : `fixed:${policy.value}`

const decodePolicy = Schema.decodeUnknownOption(RtpPolicy)

/** The CLI's words read back (`pass`, `clamp:85-96`, `fixed:94`, any case, spaces around allowed); undefined if not one. */
export const parseRtpPolicy = (text: string): RtpPolicy | undefined => {
  const trimmed = text.trim().toLowerCase()
  if (trimmed === "pass") return passRtp
  const clamp = /^clamp:(\d{1,3})-(\d{1,3})$/.exec(trimmed)
  const fixed = /^fixed:(\d{1,3})$/.exec(trimmed)
  const candidate = clamp !== null
    ? { mode: "clamp", min: Number(clamp[1]), max: Number(clamp[2]) }
    : fixed !== null
    ? { mode: "fixed", value: Number(fixed[1]) }
    : undefined
  return candidate === undefined ? undefined : Option.getOrUndefined(decodePolicy(candidate))
}
