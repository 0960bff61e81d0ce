/**
 * A URL as the console, the portal, the CLI and the audit trail show it: its user name, password and query values
 * masked, since a partner's callback URL (or an operator's webhook) may carry a key in any of them. The scheme, host,
 * port, path and the query's names stay, so it is still recognisable. Text that is no URL is shown as it is.
 */
export const maskedUrl = (url: string): string => {
  const parsed = URL.parse(url)
  if (parsed === null) return url
  if (parsed.username !== "") parsed.username = "***"
  if (parsed.password !== "") parsed.password = "***"
  if (parsed.search !== "") {
    const names = [...parsed.searchParams.keys()]
    parsed.search = names.map((name) => `${encodeURIComponent(name)}=***`).join("&")
  }
  return parsed.href
}

/** The same for a URL that may be unset. */
export const maskedUrlOrNull = (url: string | null): string | null => url === null ? null : maskedUrl(url)
