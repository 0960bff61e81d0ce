/**
 * The baseline: a bare node:http server answering a fixed JSON body, the
 * fastest anything on this machine can answer that body over HTTP.
 */
import { readFileSync } from "node:fs"
import { createServer } from "node:http"

// The body comes in a file: a large one does not fit in the environment.
const body = readFileSync(process.env.BODY_FILE ?? "/dev/null", "utf8") || "{}"
const port = Number(process.env.PORT ?? 0)

const server = createServer((_request, response) => {
  response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) })
  response.end(body)
})
server.listen(port, "127.0.0.1", () => {
  console.log(`Listening on ${(server.address() as { port: number }).port}`)
})
process.on("SIGTERM", () => server.close(() => process.exit(0)))
