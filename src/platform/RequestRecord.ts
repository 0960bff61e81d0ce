import { Context } from "effect"

/**
 * What the edge step learns while a request runs, from the steps inside it: the partner once auth has admitted it,
 * and the headers its rate limit puts on the answer. One record per request, added to the request's context once.
 */
export interface RequestRecord {
  partnerId: number | undefined
  partnerSlug: string | undefined
  /** The environment of the partner's token (live, test). */
  environment: string | undefined
  /** Headers every answer to this request carries, whatever its status (the partner's RateLimit-*). */
  headers: Record<string, string> | undefined
  /** Retry-After for a 429 about this request's address, set only if the answer is that 429. */
  retryAfterOn429: string | undefined
  /** The route of the direct answer (DirectAnswers) that answered it, which the router never matched. */
  route: string | undefined
}

/** The request's record, present only inside the edge step (outside a request, nothing records into it). */
export class RequestRecords extends Context.Service<RequestRecords, RequestRecord>()(
  "partner-api/platform/RequestRecords"
) {}

/** The current request's record, if the edge step runs around it. */
export const currentRecord = (context: Context.Context<never>): RequestRecord | undefined =>
  Context.getOrUndefined(context, RequestRecords)

/** Puts the partner a step admitted into the request's record (the access line's and metrics' partner). */
export const recordPartner = (
  context: Context.Context<never>,
  partner: { readonly id: number; readonly slug: string; readonly environment: string }
) => {
  const record = currentRecord(context)
  if (record === undefined) return
  record.partnerId = partner.id
  record.partnerSlug = partner.slug
  record.environment = partner.environment
}
