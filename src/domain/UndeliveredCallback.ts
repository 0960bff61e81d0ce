import { maskedUrl } from "./MaskedUrl.ts"

/**
 * Why a `bet` callback got no usable answer, in plain words for a person at the sandbox's game page: the wallet
 * refuses such a bet as INSUFFICIENT_USER_FUNDS (the aggregator's protocol has no word for "the operator's wallet
 * could not be asked"), so without this the page said "Insufficient funds" while the real cause was only in the
 * service's log. `lastError` is what the ledger kept on the callback (PartnerCallbacks' CallbackFailed message or the
 * answer it could not read); the URL is masked (it may carry a key), and nothing here names an address the partner's
 * host resolved to (the policy keeps that for the log).
 */
export const undeliveredCause = (callbackUrl: string | null, lastError: string, allowPrivate: boolean): string => {
  // The socket's error names the URL it posted to, query and all: masked there too.
  const detail = lastError.replace(/https?:\/\/[^\s)]+/g, (url) => maskedUrl(url)).replace(/\.$/, "")
  const where = callbackUrl === null ? "Your wallet" : `Your wallet at ${maskedUrl(callbackUrl)}`
  const said = (words: string) => `${where} could not be called: ${words} (${detail}).`
  const policy = allowPrivate
    ? "the service's callback URL policy refused it"
    : "private addresses and plain http:// are refused unless PARTNER_CALLBACK_ALLOW_PRIVATE=true is set on the service"
  if (lastError.startsWith("The callback URL ") || /may not reach|EADDRNOTALLOWED/.test(lastError)) return said(policy)
  if (/ENOTFOUND|EAI_AGAIN|EAI_NONAME|EAI_FAIL|EAI_NODATA/.test(lastError)) {
    return said("its host name does not resolve")
  }
  if (/ECONNREFUSED/.test(lastError)) return said("the connection was refused (nothing listens there)")
  if (/did not answer within/.test(lastError)) return said("it did not answer in time")
  if (lastError.startsWith("The partner answered HTTP")) return said("it answered with an error status")
  if (/^The partner's (answer is not|balance)/.test(lastError)) return said("its answer could not be read")
  if (/no callback_url/.test(lastError)) return `${where} has no callback URL set (${detail}).`
  return said("it could not be reached")
}
