import { makePartnerClient } from "../../src/client/PartnerClient.ts"

/**
 * The partner API's typed client (src/client, as a partner would use it),
 * over real HTTP to the test's server (whose HttpClient already points at
 * it), authenticating with `token` as a Bearer token.
 */
export const partnerClient = (token: string, scheme: "bearer" | "partnerKey" = "bearer") =>
  makePartnerClient({ token, scheme })
