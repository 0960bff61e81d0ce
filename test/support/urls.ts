/** The same server, another database. */
export const databaseUrl = (serverUrl: string, database: string) => {
  const url = new URL(serverUrl)
  url.pathname = `/${database}`
  return url.toString()
}

export const quoteIdentifier = (name: string) => `"${name.replaceAll("\"", "\"\"")}"`
