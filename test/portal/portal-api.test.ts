/**
 * The partner portal's API over real HTTP and PostgreSQL: invitations used once and expiring, two partners side by
 * side (every call answers and changes the session's partner only), the role matrix, CSRF and origin refusals, tokens
 * rolled with an overlap (both work, then the old one gets the contract's 401), the test callback and the delivery
 * log, the audit trail, and the operator's side (console API and CLI).
 */
import { assert, layer } from "@effect/vitest"
import { Effect, Schema } from "effect"
import { SqlClient } from "effect/sql"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { transactionEventId } from "../../src/domain/Callbacks.ts"
import { ErrorMessages } from "../../src/domain/ErrorMessages.ts"
import { verify } from "../../src/wallet/outbox/Signature.ts"
import { admin } from "../support/AdminCli.ts"
import { adminRequest, type AdminSession, givenAdmin, loginAs, testPassword } from "../support/AdminConsole.ts"
import { PartnerBooks } from "../support/FakePartner.ts"
import { FakeUpstream } from "../support/FakeUpstream.ts"
import { eventually, live } from "../support/live.ts"
import { givenPortalUser, portalClient } from "../support/Portal.ts"
import { bearer, errorBody, givenPartner, request } from "../support/TestApp.ts"
import { givenPlayer, givenWalletPlayer, walletAnswer, WalletApp, winBet } from "../support/WalletApp.ts"

const books = new PartnerBooks()

const auditOf = (target: string) =>
  Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ target, limit: 100 }))
const statusWith = (token: string) => request("GET", "/api/partner/v1/status", { headers: bearer(token) })
const portal = (method: "GET" | "POST" | "PATCH" | "DELETE", path: string, session?: AdminSession, json?: unknown) =>
  adminRequest(method, `/portal/api${path}`, { ...(session === undefined ? {} : { session }), json })
const Invitation = Schema.Struct({ invitation_url: Schema.String })
const secretOf = (answer: { readonly body: unknown }) =>
  Schema.decodeUnknownSync(Invitation)(answer.body).invitation_url.split("#")[1]

// The token cache is off: an expiry moved into the past by the test is seen at once (the cache's own expiry check
// is tested under a test clock, in token-expiry.test.ts). Deliveries are tried once, so a refused one is failed.
layer(WalletApp(books, { app: { authCacheTtlMillis: 0 }, callbacks: { maxAttempts: 1 } }), live)(
  "partner portal API",
  (it) => {
    it.effect("an invitation opens the portal once, by its secret in a body; a used or expired one is refused", () =>
      Effect.gen(function*() {
        const { partner } = yield* givenPartner({ name: "Invited Co", slug: "invited-co" })
        const users = yield* PartnerUsers
        const invited = yield* Effect.orDie(
          users.invite({ name: "ops@example.com", via: "console" }, partner, {
            email: "Ana@Invited.example",
            role: "owner"
          })
        )
        const preview = yield* portal("POST", "/invitation", undefined, { invitation: invited.invitation })
        assert.strictEqual(preview.status, 200)
        assert.deepInclude(preview.body, {
          email: "ana@invited.example",
          role: "owner",
          partner: { name: "Invited Co", slug: "invited-co" }
        })
        const short = yield* portal("POST", "/invitation/accept", undefined, {
          invitation: invited.invitation,
          password: "short"
        })
        assert.deepStrictEqual(errorBody(short).errors, { password: ["The password must have 12 to 200 characters."] })
        const accepted = yield* portal("POST", "/invitation/accept", undefined, {
          invitation: invited.invitation,
          password: testPassword
        })
        assert.strictEqual(accepted.status, 200)
        assert.deepStrictEqual(accepted.body.user, { email: "ana@invited.example", role: "owner" })
        const cookie = accepted.setCookie.find((line) => line.startsWith("portal_session="))!
        for (const part of [/HttpOnly/i, /SameSite=Strict/i, /Path=\/portal/]) assert.match(cookie, part)
        const again = yield* portal("POST", "/invitation/accept", undefined, {
          invitation: invited.invitation,
          password: "another long password"
        })
        assert.strictEqual(again.status, 404, "a link works once")
        // The console's cookie is not the portal's: an admin session opens nothing here, and the other way round.
        yield* givenAdmin("ops@invited.example")
        const adminSession = yield* loginAs("ops@invited.example")
        assert.strictEqual((yield* portal("GET", "/session", adminSession)).status, 401)
        const session = { cookie: cookie.split(";")[0], csrf: accepted.body.csrf_token as string }
        assert.strictEqual((yield* adminRequest("GET", "/admin/api/session", { session })).status, 401)

        const late = yield* Effect.orDie(
          users.invite({ name: "ops@example.com", via: "console" }, partner, {
            email: "late@invited.example",
            role: "viewer"
          })
        )
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE partner_users SET invitation_expires_at = now() - interval '1 second' WHERE email = 'late@invited.example'`
          .pipe(Effect.orDie)
        const expired = yield* portal("POST", "/invitation", undefined, { invitation: late.invitation })
        assert.strictEqual(expired.status, 404)
        assert.include(errorBody(expired).message, "expired")
        const login = yield* portal("POST", "/session", undefined, {
          email: "ana@invited.example",
          password: testPassword
        })
        assert.strictEqual(login.status, 200)
        assert.strictEqual(
          (yield* portal("POST", "/session", undefined, { email: "late@invited.example", password: testPassword }))
            .status,
          401
        )
        const trail = yield* auditOf("partner:invited-co")
        assert.deepStrictEqual(trail.map((entry) => [entry.action, entry.via]).reverse(), [
          ["partner-user.invite", "console"],
          ["partner-user.accept-invitation", "portal"],
          ["partner-user.invite", "console"]
        ])
      }))

    it.effect("two partners side by side: every call reads and changes the session's partner only", () =>
      Effect.gen(function*() {
        const sides = yield* Effect.forEach(["a", "b"], (side) =>
          Effect.gen(function*() {
            const wallet = yield* givenWalletPlayer(books, 100)
            yield* winBet(wallet.userCode, `iso-${side}`, { bet: 2, win: 3 }, `iso-round-${side}`)
            yield* eventually(
              Effect.sync(() => books.receivedFor(transactionEventId("win", `iso-${side}`)).length),
              (n) => n === 1
            )
            const owner = yield* givenPortalUser(wallet.partner, `owner-${side}@side.example`)
            const viewer = yield* givenPortalUser(wallet.partner, `viewer-${side}@side.example`, "viewer")
            return { ...wallet, owner, viewer }
          }))
        const [a, b] = sides
        const api = yield* portalClient(a.owner.session)
        const tokens = yield* api.tokens.list()
        const tokenIds = tokens.environments.flatMap((each) => each.tokens.map((token) => token.id))
        const sql = yield* SqlClient.SqlClient
        const ofA = yield* sql<{ id: string }>`SELECT id::text FROM partner_tokens WHERE partner_id = ${a.partner.id}`
          .pipe(Effect.orDie)
        assert.sameMembers(tokenIds, ofA.map((row) => Number(row.id)))
        const deliveries = yield* api.webhooks.deliveries({ params: { environment: "live" }, query: {} })
        assert.deepStrictEqual([...new Set(deliveries.callbacks.map((callback) => callback.partner))], [a.partner.slug])
        const transactions = yield* api.wallet.transactions({ params: { environment: "live" }, query: {} })
        assert.deepStrictEqual(transactions.transactions.map((entry) => entry.transaction_id), ["iso-a"])
        assert.strictEqual((yield* portal("GET", "/wallet/live/rounds/iso-round-b", a.owner.session)).status, 404)
        assert.deepStrictEqual((yield* api.users.list({ params: {} })).users.map((user) => user.email), [
          "owner-a@side.example",
          "viewer-a@side.example"
        ])
        // B's rows by their ids, from A's session: not found, and unchanged.
        const [bCallback] = (yield* (yield* portalClient(b.owner.session)).webhooks.deliveries({
          params: { environment: "live" },
          query: {}
        })).callbacks
        assert.strictEqual(
          (yield* portal("POST", `/deliveries/${bCallback.id}/redeliver`, a.owner.session)).status,
          404
        )
        for (
          const [method, path] of [["PATCH", `/users/${b.viewer.user.id}`], ["DELETE", `/users/${b.viewer.user.id}`], [
            "POST",
            `/users/${b.viewer.user.id}/invitation`
          ]] as const
        ) {
          assert.strictEqual(
            (yield* portal(method, path, a.owner.session, method === "PATCH" ? { role: "owner" } : undefined)).status,
            404,
            path
          )
        }
        assert.deepStrictEqual(
          (yield* (yield* portalClient(b.owner.session)).users.list({ params: {} })).users.map((
            user
          ) => [user.email, user.role]),
          [
            ["owner-b@side.example", "owner"],
            ["viewer-b@side.example", "viewer"]
          ]
        )
        assert.strictEqual(
          books.receivedFor(transactionEventId("win", "iso-b")).length,
          1,
          "B's win was not sent again"
        )
      }))

    it.effect("roles: a viewer changes nothing, a developer tokens and webhooks, only an owner users; a change without CSRF or from elsewhere is refused", () =>
      Effect.gen(function*() {
        const { partner } = yield* givenPartner({ name: "Roles Co", slug: "roles-co" })
        const owner = yield* givenPortalUser(partner, "owner@roles.example")
        const developer = yield* givenPortalUser(partner, "dev@roles.example", "developer")
        const viewer = yield* givenPortalUser(partner, "viewer@roles.example", "viewer")
        const refused = yield* portal("POST", "/tokens/test/roll", viewer.session, {})
        assert.strictEqual(refused.status, 403)
        assert.strictEqual(
          errorBody(refused).message,
          "Your role (viewer) cannot make this change: it needs a developer."
        )
        assert.strictEqual(
          (yield* portal("PATCH", "/webhooks/test", viewer.session, { callback_url: null })).status,
          403
        )
        assert.strictEqual((yield* portal("GET", "/tokens", viewer.session)).status, 200, "a viewer reads")
        assert.strictEqual(
          (yield* portal("POST", "/session/password", viewer.session, {
            current_password: testPassword,
            new_password: "a viewer's new password"
          })).status,
          200
        )
        assert.strictEqual((yield* portal("POST", "/tokens/test/roll", developer.session, {})).status, 200)
        assert.strictEqual(
          (yield* portal("POST", "/users", developer.session, { email: "x@roles.example", role: "viewer" })).status,
          403
        )
        const invited = yield* portal("POST", "/users", owner.session, { email: "new@roles.example", role: "viewer" })
        assert.match(invited.body.invitation_url, /^http:\/\/.+\/portal\/invitation#[A-Za-z0-9_-]{43}$/)
        const lastOwner = yield* portal("PATCH", `/users/${owner.user.id}`, owner.session, { role: "developer" })
        assert.strictEqual(lastOwner.status, 409)
        assert.strictEqual(
          (yield* portal("PATCH", `/users/${developer.user.id}`, owner.session, { role: "owner" })).status,
          200
        )
        assert.strictEqual(
          (yield* portal("DELETE", `/users/${owner.user.id}`, developer.session)).status,
          200,
          "another owner remains"
        )
        assert.strictEqual(
          (yield* portal("GET", "/session", owner.session)).status,
          401,
          "a removed user's session ends"
        )

        const noCsrf = yield* adminRequest("POST", "/portal/api/tokens/test/roll", {
          session: developer.session,
          csrf: null,
          json: {}
        })
        assert.strictEqual(noCsrf.status, 403)
        assert.include(errorBody(noCsrf).message, "CSRF")
        const elsewhere = yield* adminRequest("POST", "/portal/api/tokens/test/roll", {
          session: developer.session,
          json: {},
          headers: { origin: "https://evil.example" }
        })
        assert.strictEqual(elsewhere.status, 403)
        // The portal's refusal names the portal: a partner user has never seen the console.
        assert.strictEqual(errorBody(elsewhere).message, "Changes are only taken from the portal's own pages.")
        const refusals = (yield* auditOf("POST /portal/api/tokens/test/roll")).map((
          entry
        ) => [entry.actor, entry.via, (entry.after as { status: number }).status])
        assert.sameDeepMembers(refusals, [
          ["viewer@roles.example", "portal", 403],
          ["dev@roles.example", "portal", 403],
          ["dev@roles.example", "portal", 403]
        ])
      }))

    it.effect("log-ins are throttled apart from the console's; two owners demoting each other at once leave one; an inactive partner's sessions end", () =>
      Effect.gen(function*() {
        const { partner } = yield* givenPartner({ name: "Guarded Co", slug: "guarded-co" })
        const first = yield* givenPortalUser(partner, "first@guarded.example")
        const second = yield* givenPortalUser(partner, "second@guarded.example")
        yield* givenPortalUser(partner, "guessed@guarded.example", "viewer")
        yield* givenAdmin("guessed@guarded.example")
        for (let attempt = 0; attempt < 5; attempt++) {
          assert.strictEqual(
            (yield* portal("POST", "/session", undefined, {
              email: "guessed@guarded.example",
              password: `guess ${attempt}`
            })).status,
            401
          )
        }
        const locked = yield* portal("POST", "/session", undefined, {
          email: "guessed@guarded.example",
          password: testPassword
        })
        assert.strictEqual(locked.status, 429, "even the right password, while locked out")
        assert.isDefined(locked.headers["retry-after"])
        const console = yield* adminRequest("POST", "/admin/api/session", {
          json: { email: "guessed@guarded.example", password: testPassword }
        })
        assert.strictEqual(console.status, 200, "the console counts its own log-ins")

        const demote = (by: AdminSession, id: number) => portal("PATCH", `/users/${id}`, by, { role: "viewer" })
        const [a, b] = yield* Effect.all(
          [demote(first.session, second.user.id), demote(second.session, first.user.id)],
          { concurrency: 2 }
        )
        // One wins. The other is refused: 409 when both were checked before either wrote (the last owner is kept), 403
        // when the machine ran them one after the other (its author is no owner any more). Either way, one owner is left.
        assert.oneOf([a.status, b.status].sort((x, y) => x - y).join(","), ["200,403", "200,409"])
        const users = yield* (yield* PartnerUsers).list(partner.id)
        assert.strictEqual(users.filter((user) => user.role === "owner").length, 1)

        const survivor = a.status === 200 ? first : second
        assert.strictEqual((yield* portal("GET", "/session", survivor.session)).status, 200)
        yield* Effect.orDie((yield* Partners).setStatus("guarded-co", "inactive"))
        assert.strictEqual((yield* portal("GET", "/session", survivor.session)).status, 401)
        assert.strictEqual(
          (yield* portal("POST", "/session", undefined, { email: survivor.user.email, password: testPassword })).status,
          401
        )
      }))

    it.effect("?currency= lists only that currency's transactions of a player with BRL and JPY rows; a known code without rows is none", () =>
      Effect.gen(function*() {
        const wallet = yield* givenWalletPlayer(books, 100)
        const jpy = yield* (yield* PartnerPlayers).arrive({
          partnerId: wallet.partner.id,
          environment: "live",
          externalPlayerId: wallet.external,
          currency: "JPY",
          name: null,
          email: null,
          balance: 10_000n
        })
        books.balances.set(books.walletOf(wallet.external, "JPY"), 10_000n)
        assert.strictEqual(walletAnswer(yield* winBet(wallet.userCode, "cur-brl", { bet: 2, win: 0.5 })).msg, "")
        assert.strictEqual(walletAnswer(yield* winBet(jpy.internalUserId, "cur-jpy", { bet: 1250, win: 0 })).msg, "")
        const { session } = yield* givenPortalUser(wallet.partner, "owner@currencies.example", "viewer")
        const api = yield* portalClient(session)
        const of = (currency?: string) =>
          Effect.map(
            api.wallet.transactions({ params: { environment: "live" }, query: { currency } }),
            (found) => found.transactions.map((entry) => [entry.transaction_id, entry.currency, entry.bet, entry.win])
          )
        assert.deepStrictEqual(yield* of("JPY"), [["cur-jpy", "JPY", 1250, 0]])
        assert.deepStrictEqual(yield* of("BRL"), [["cur-brl", "BRL", 2, 0.5]])
        assert.deepStrictEqual((yield* of()).map(([id]) => id), ["cur-jpy", "cur-brl"])
        assert.deepStrictEqual(yield* of("EUR"), [])
        const refused = yield* portal("GET", "/wallet/live/transactions?currency=yen", session)
        assert.strictEqual(refused.status, 422)
        assert.deepStrictEqual(errorBody(refused).errors, {
          currency: [
            "The selected currency is invalid. Use a currency code such as BRL, EUR or BTC (codes are case-sensitive: mBTC)."
          ]
        })
      }))

    it.effect("bad input is a 422 naming the field, never a 500", () =>
      Effect.gen(function*() {
        const { partner } = yield* givenPartner({ name: "Strict Co", slug: "strict-co" })
        const { session } = yield* givenPortalUser(partner, "owner@strict.example")
        const cases = [
          ["GET", "/webhooks/prod/deliveries", undefined, "environment"],
          ["POST", "/tokens/prod/end-overlap", undefined, "environment"],
          ["POST", "/webhooks/staging/test", undefined, "environment"],
          ["POST", "/tokens/test/roll", { keep_old_hours: 0 }, "keep_old_hours"],
          ["POST", "/tokens/test/roll", { keep_old_hours: 169 }, "keep_old_hours"],
          ["POST", "/deliveries/abc/redeliver", undefined, "id"],
          ["DELETE", "/users/abc", undefined, "id"],
          ["PATCH", "/users/1", { role: "admin" }, "role"],
          ["GET", "/wallet/test/transactions?from=yesterday", undefined, "from"],
          ["GET", "/wallet/test/transactions?currency=brl", undefined, "currency"],
          ["GET", "/wallet/live/transactions?currency=EURO", undefined, "currency"]
        ] as const
        for (const [method, path, json, field] of cases) {
          const answer = yield* portal(method, path, session, json)
          assert.strictEqual(answer.status, 422, `${method} ${path}`)
          assert.hasAllKeys(errorBody(answer).errors ?? {}, [field], `${method} ${path}`)
        }
      }))

    it.effect("a token rolled with a 1 hour overlap: both work; once the overlap ends the old one gets the contract's 401", () =>
      Effect.gen(function*() {
        const created = yield* givenPartner({ name: "Rolling Co", slug: "rolling-co" })
        const developer = yield* givenPortalUser(created.partner, "dev@rolling.example", "developer")
        const api = yield* portalClient(developer.session)
        const rolled = yield* api.tokens.roll({ params: { environment: "test" }, payload: { keep_old_hours: 1 } })
        assert.match(rolled.token, /^pak_test_/)
        assert.deepStrictEqual(rolled.tokens.map((token) => token.expiresAt === null), [true, false])
        assert.strictEqual(rolled.tokens[0].prefix, rolled.token.slice(0, 13))
        for (const token of [created.test.token, rolled.token]) {
          assert.strictEqual((yield* statusWith(token)).status, 200)
        }
        const hour = rolled.oldValidUntil!.getTime() - Date.now()
        assert.isTrue(hour > 3_590_000 && hour <= 3_600_000, `the old token is valid for an hour (${hour} ms)`)
        assert.strictEqual((yield* statusWith(created.token)).status, 200, "the live token is untouched")
        // The hour passes (its end moved to now): the old token is the contract's "invalid or inactive".
        const sql = yield* SqlClient.SqlClient
        yield* sql`UPDATE partner_tokens SET expires_at = now() WHERE partner_id = ${created.partner.id} AND expires_at IS NOT NULL`
          .pipe(Effect.orDie)
        const expired = yield* statusWith(created.test.token)
        assert.deepStrictEqual([expired.status, expired.body], [401, {
          success: false,
          message: ErrorMessages.invalidPartner
        }])
        assert.strictEqual((yield* statusWith(rolled.token)).status, 200)
        // When each was last used is written off the request path, and read back in the list.
        const used = yield* eventually(
          api.tokens.list(),
          (answer) => answer.environments[1].tokens[0].lastUsedAt !== null,
          "last used recorded"
        )
        assert.isNull(
          used.environments[1].tokens.find((token) => token.id !== used.environments[1].tokens[0].id) ?? null
        )
        // Rolled now: the one before stops at once; ending an overlap stops every old one.
        const again = yield* api.tokens.roll({ params: { environment: "test" }, payload: { keep_old_hours: 24 } })
        yield* api.tokens.endOverlap({ params: { environment: "test" } })
        assert.strictEqual((yield* statusWith(rolled.token)).status, 401)
        const now = yield* api.tokens.roll({ params: { environment: "test" }, payload: {} })
        assert.isNull(now.oldValidUntil)
        assert.strictEqual((yield* statusWith(again.token)).status, 401)
        const actions = (yield* auditOf("partner:rolling-co")).filter((entry) => entry.action.startsWith("partner."))
          .map((entry) => [entry.action, entry.actor, entry.via, entry.after])
        assert.deepStrictEqual(actions.reverse(), [
          ["partner.rotate-token", "dev@rolling.example", "portal", { environment: "test", old_kept_valid_for: "1h" }],
          ["partner.rotate-token", "dev@rolling.example", "portal", { environment: "test", old_kept_valid_for: "1d" }],
          ["partner.end-token-overlap", "dev@rolling.example", "portal", { environment: "test" }],
          ["partner.rotate-token", "dev@rolling.example", "portal", { environment: "test" }]
        ])
        assert.notMatch(JSON.stringify(actions), /pak_/, "no token in the trail")
      }))

    it.effect("a live token held back for a wallet certification: the portal's roll is a 409 saying why, and the test token still rolls", () =>
      Effect.gen(function*() {
        const created = yield* givenPartner({ name: "Held Co", slug: "held-co" })
        const developer = yield* givenPortalUser(created.partner, "dev@held.example", "developer")
        // No run passed yet: turning the requirement on withdraws the live token, and none may be issued.
        yield* admin("partners", "set", "held-co", "--require-certification", "on")
        const refused = yield* portal("POST", "/tokens/live/roll", developer.session, {})
        assert.strictEqual(refused.status, 409)
        assert.match(errorBody(refused).message, /certification/i)
        const api = yield* portalClient(developer.session)
        assert.deepStrictEqual((yield* api.tokens.list()).environments[0].tokens, [], "no live token was issued")
        assert.match((yield* api.tokens.roll({ params: { environment: "test" }, payload: {} })).token, /^pak_test_/)
      }))

    it.effect("the test callback shows the signed request and the answer; a failed delivery is redelivered from the log", () =>
      Effect.gen(function*() {
        const fake = yield* FakeUpstream
        const created = yield* givenPartner({ name: "Hooks Co", slug: "hooks-co" })
        books.secrets.add(created.test.webhookSecret)
        const developer = yield* givenPortalUser(created.partner, "dev@hooks.example", "developer")
        const api = yield* portalClient(developer.session)
        const unsafe = yield* portal("PATCH", "/webhooks/test", developer.session, {
          callback_url: "ftp://hooks.example/wallet"
        })
        assert.strictEqual(unsafe.status, 422)
        assert.include(errorBody(unsafe).errors?.callback_url?.[0], "http")
        const set = yield* api.webhooks.setUrl({
          params: { environment: "test" },
          payload: { callback_url: `${fake.url}/wallet` }
        })
        assert.strictEqual(set.webhook.callbackUrl, `${fake.url}/wallet`)
        const trial = yield* api.webhooks.test({ params: { environment: "test" } })
        const sent = trial.request!
        assert.strictEqual(sent.url, `${fake.url}/wallet`)
        assert.isTrue(
          verify(
            created.test.webhookSecret,
            { timestamp: sent.headers["x-partner-timestamp"], signature: sent.headers["x-partner-signature"] },
            sent.body,
            new Date()
          )
        )
        const received = books.receivedFor(sent.headers["x-partner-event-id"])
        assert.strictEqual(received.length, 1)
        assert.strictEqual(received[0].raw, sent.body, "the request shown is the one sent, byte for byte")
        assert.deepStrictEqual(trial.answer, { status: 400, body: JSON.stringify({ error: "unknown kind" }) })

        const player = yield* givenPlayer(books, created.partner.id, "hooks-player", 100, "test")
        books.failNotifications = 1
        assert.strictEqual(
          walletAnswer(yield* winBet(player.internalUserId, "hooks-txn", { bet: 1, win: 4 }, "hooks-txn", "test"))
            .msg,
          ""
        )
        const failed = yield* eventually(
          api.webhooks.deliveries({ params: { environment: "test" }, query: { status: "failed" } }),
          (answer) => answer.callbacks.length === 2
        )
        // The win the wallet refused, newest, then the test callback it answered 400: every callback is in the log.
        const [win, test] = failed.callbacks
        assert.strictEqual(win.kind, "win")
        assert.include(win.lastError ?? "", "HTTP 500")
        assert.deepStrictEqual(test, {
          id: null,
          eventId: sent.headers["x-partner-event-id"],
          partner: "hooks-co",
          externalPlayerId: null,
          kind: "test",
          txnId: null,
          status: "failed",
          attempts: 1,
          lastError: `The partner answered HTTP 400: ${JSON.stringify(JSON.stringify({ error: "unknown kind" }))}`,
          createdAt: test.createdAt,
          deliveredAt: null,
          nextAttemptAt: null,
          body: sent.body,
          redeliverable: false
        })
        assert.isNotNull(win.id)
        yield* api.webhooks.redeliver({ params: { id: win.id! } })
        yield* eventually(
          api.webhooks.deliveries({ params: { environment: "test" }, query: { status: "delivered" } }),
          (answer) => answer.callbacks.some((callback) => callback.kind === "win")
        )
        const live = yield* api.webhooks.deliveries({ params: { environment: "live" }, query: {} })
        assert.deepStrictEqual(live.callbacks, [], "the test environment's callbacks are not in the live log")
        const trail = (yield* auditOf("partner:hooks-co")).filter((entry) => entry.action.startsWith("partner.")).map((
          entry
        ) => [entry.action, entry.via])
        assert.deepStrictEqual(trail.reverse(), [["partner.update", "portal"], ["partner.test-callback", "portal"]])
        const redelivered = yield* auditOf(`callback:${win.id}`)
        assert.deepStrictEqual(redelivered.map((entry) => [entry.action, entry.actor, entry.via]), [[
          "callback.redeliver",
          "dev@hooks.example",
          "portal"
        ]])
      }))

    it.effect("an operator invites through the console's API and the CLI; the portal's OpenAPI document is for logged-in users", () =>
      Effect.gen(function*() {
        yield* givenPartner({ name: "Operated Co", slug: "operated-co" })
        yield* givenAdmin("ops@operated.example")
        const operator = yield* loginAs("ops@operated.example")
        const invited = yield* adminRequest("POST", "/admin/api/partners/operated-co/users", {
          session: operator,
          json: { email: "owner@operated.example", role: "owner" }
        })
        assert.strictEqual(invited.status, 200)
        const accepted = yield* portal("POST", "/invitation/accept", undefined, {
          invitation: secretOf(invited),
          password: testPassword
        })
        assert.strictEqual(accepted.status, 200)
        const fromCli = yield* admin(
          "partners",
          "invite-user",
          "operated-co",
          "--email",
          "dev@operated.example",
          "--role",
          "developer"
        )
        assert.strictEqual(fromCli.exitCode, 0, fromCli.stderr)
        assert.match(JSON.parse(fromCli.stdout).invitation_url, /\/portal\/invitation#/)
        const listed = JSON.parse((yield* admin("partners", "users", "operated-co")).stdout) as Array<
          { email: string; status: string }
        >
        assert.deepStrictEqual(listed.map((user) => [user.email, user.status]), [["dev@operated.example", "invited"], [
          "owner@operated.example",
          "active"
        ]])
        // A new link for the owner, who has set a password, resets it: only with the note of their request.
        const linkOf = (id: number, json?: unknown) =>
          adminRequest("POST", `/admin/api/partners/operated-co/users/${id}/invitation`, { session: operator, json })
        const owner = invited.body.user.id as number
        for (
          const [json, field] of [[undefined, "requested_by_user"], [
            { requested_by_user: "x".repeat(501) },
            "requested_by_user"
          ]] as const
        ) {
          const refused = yield* linkOf(owner, json)
          assert.deepStrictEqual(
            [refused.status, Object.keys(refused.body.errors)],
            [422, [field]],
            JSON.stringify(refused.body)
          )
        }
        const reset = yield* linkOf(owner, { requested_by_user: "Ticket 12: the owner called from the known number" })
        assert.deepStrictEqual([reset.status, reset.body.user.status], [200, "active"])
        const dev = listed.find((user) => user.email === "dev@operated.example") as unknown as { id: number }
        assert.strictEqual((yield* linkOf(dev.id)).status, 200, "a pending user's new link needs no body, as before")
        const fromCliReset = yield* admin("partners", "reinvite-user", "operated-co", "owner@operated.example")
        assert.strictEqual(fromCliReset.exitCode, 1)
        assert.include(fromCliReset.stderr, "--requested-by-user")
        const last = yield* admin("partners", "remove-user", "operated-co", "owner@operated.example")
        assert.strictEqual(last.exitCode, 1)
        assert.include(last.stderr, "at least one owner")
        assert.strictEqual((yield* request("GET", "/portal/api/openapi.json")).status, 401)
        const session = {
          cookie: accepted.setCookie.find((line) => line.startsWith("portal_session="))!.split(";")[0],
          csrf: ""
        }
        const document = yield* adminRequest("GET", "/portal/api/openapi.json", { session })
        assert.strictEqual(document.status, 200)
        assert.include(Object.keys(document.body.paths), "/portal/api/tokens/{environment}/roll")
        const page = yield* request("GET", "/portal/tokens")
        assert.include(page.headers["content-security-policy"], "script-src 'self'")
      }))
  }
)
