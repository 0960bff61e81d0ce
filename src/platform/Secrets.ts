/** Replaces every occurrence of a secret in a value (an upstream answer, a message) before it is shown or logged. */
export const withoutSecrets = (value: unknown, secrets: ReadonlyArray<string>): unknown => {
  const active = secrets.filter((secret) => secret.length > 0)
  if (active.length === 0) return value
  const scrub = (node: unknown): unknown => {
    if (typeof node === "string") {
      return active.reduce((text, secret) => text.split(secret).join("[redacted]"), node)
    }
    if (Array.isArray(node)) return node.map(scrub)
    if (node !== null && typeof node === "object") {
      return Object.fromEntries(Object.entries(node).map(([key, item]) => [key, scrub(item)]))
    }
    return node
  }
  return scrub(value)
}
