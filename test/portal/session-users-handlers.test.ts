import { RateLimiter } from "effect/persistence"
import { assert, layer } from "@effect/vitest"
import { Duration, Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { TestClock } from "effect/testing"
import {
  Conflict,
  NotFound,
  SessionForbidden,
  SessionUnauthorized,
  TooManyAttempts,
  ValidationFailed
} from "../../src/api/identity/Errors.ts"
import { PortalApi } from "../../src/api/portal/PortalApi.ts"
import { portalSessionCookie } from "../../src/api/portal/PortalSecurity.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { IdentityConfig } from "../../src/identity/IdentityConfig.ts"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { AppConfig } from "../../src/platform/AppConfig.ts"
import { AddressRanges, ClientAddress } from "../../src/platform/ClientAddress.ts"
import * as PortalAuth from "../../src/portal/http/PortalAuth.ts"
import { PortalLoginHandlers, PortalSessionHandlers } from "../../src/portal/http/Session.ts"
import { PortalUsersHandlers } from "../../src/portal/http/Users.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { type AdminSession, testPassword } from "../support/AdminConsole.ts"
import { asPortalUser, givenPortalUser } from "../support/Portal.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"
import { testConfig, testIdentityConfig } from "../support/TestApp.ts"

/**
 * The portal's contract for log-in, invitations, the session and a partner's users (statuses, the envelope, the
 * CSRF token and the role matrix, throttling, one partner's users only), through the real handlers and middleware
 * over memory repositories: no socket, no PostgreSQL. What needs the database is in portal-api.test.ts.
 */
const InMemoryPortal = Layer.mergeAll(PortalLoginHandlers, PortalSessionHandlers, PortalUsersHandlers).pipe(
  Layer.provideMerge(Layer.mergeAll(PortalAuth.layer, RequestValidationLive)),
  // The portal's per-session allowance, in memory.
  Layer.provideMerge(RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))),
  Layer.provideMerge(PartnerUsers.layerMemory),
  Layer.provideMerge(Layer.mergeAll(
    PartnerRepo.layerMemory,
    Layer.succeed(IdentityConfig, testIdentityConfig({ loginMaxFailures: 2, invitationTtl: Duration.days(7) })),
    Layer.succeed(AppConfig, testConfig()),
    Layer.succeed(ClientAddress, ClientAddress.make(new AddressRanges([])))
  )),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session?: AdminSession) =>
  HttpApiTest.groups(PortalApi, ["login", "session", "users"]).pipe(Effect.provide(asPortalUser(session)))
const client = clientAs()
const auditOf = (target: string) =>
  Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ target, limit: 100 }))
const invitationOf = (url: string) => url.slice(url.indexOf("#") + 1)

layer(InMemoryPortal)("the portal's log-in, session and users over memory", (it) => {
  it.effect("a log-in answers the session envelope: who, for which partner, the CSRF token and when it ends", () =>
    Effect.gen(function*() {
      const partner = yield* givenRepoPartner
      yield* givenPortalUser(partner, "owner-envelope@example.com", "developer")
      const answer = yield* (yield* client).login.login({
        payload: { email: " Owner-Envelope@Example.com ", password: testPassword }
      })
      assert.deepStrictEqual([answer.success, answer.user, answer.partner], [true, {
        email: "owner-envelope@example.com",
        role: "developer"
      }, {
        name: partner.name,
        slug: partner.slug
      }])
      assert.match(answer.csrfToken, /^[A-Za-z0-9_-]{43}$/)
      assert.deepStrictEqual(answer.expiresAt, new Date(Duration.toMillis(Duration.hours(8))))
    }))

  it.effect("without a session is 401; a wrong password and an unknown e-mail answer alike; past the allowance, 429 until it passes", () =>
    Effect.gen(function*() {
      const api = yield* client
      const none = yield* Effect.flip(api.session.current())
      assert.instanceOf(none, SessionUnauthorized)
      const partner = yield* givenRepoPartner
      yield* givenPortalUser(partner, "guessed@example.com")
      const wrong = yield* Effect.flip(
        api.login.login({ payload: { email: "guessed@example.com", password: "not the password" } })
      )
      const unknown = yield* Effect.flip(
        api.login.login({ payload: { email: "nobody-here@example.com", password: testPassword } })
      )
      assert.instanceOf(wrong, SessionUnauthorized)
      assert.strictEqual(wrong.message, "Wrong e-mail or password.")
      assert.deepStrictEqual(unknown, wrong)
      yield* Effect.flip(api.login.login({ payload: { email: "guessed@example.com", password: "another guess" } }))
      const blocked = yield* Effect.flip(
        api.login.login({ payload: { email: "guessed@example.com", password: testPassword } })
      )
      assert.instanceOf(blocked, TooManyAttempts)
      assert.isAbove((blocked as TooManyAttempts).retry_after_seconds, 0)
      yield* TestClock.adjust(Duration.seconds((blocked as TooManyAttempts).retry_after_seconds))
      assert.strictEqual(
        (yield* api.login.login({ payload: { email: "guessed@example.com", password: testPassword } })).user.email,
        "guessed@example.com"
      )
    }))

  it.effect("an invitation is read and accepted once: the password's rules are 422, a used link is 404, and acceptance logs in", () =>
    Effect.gen(function*() {
      const partner = yield* givenRepoPartner
      const { session } = yield* givenPortalUser(partner, "inviter@example.com", "owner")
      const invited = yield* (yield* clientAs(session)).users.invite({
        params: {},
        payload: { email: "new-dev@example.com", role: "developer" }
      })
      assert.deepStrictEqual([invited.user.status, invited.user.role, invited.user.email], [
        "invited",
        "developer",
        "new-dev@example.com"
      ])
      const invitation = invitationOf(invited.invitationUrl)
      const api = yield* client
      const read = yield* api.login.invitation({ payload: { invitation } })
      assert.deepStrictEqual([read.email, read.role, read.partner.slug, read.expiresAt], [
        "new-dev@example.com",
        "developer",
        partner.slug,
        invited.expiresAt
      ])
      const short = yield* Effect.flip(api.login.accept({ payload: { invitation, password: "short" } }))
      assert.instanceOf(short, ValidationFailed)
      assert.deepStrictEqual((short as ValidationFailed).errors, {
        password: ["The password must have 12 to 200 characters."]
      })
      const accepted = yield* api.login.accept({ payload: { invitation, password: "a long enough password" } })
      assert.deepStrictEqual([accepted.user.email, accepted.partner.slug], ["new-dev@example.com", partner.slug])
      assert.instanceOf(
        yield* Effect.flip(api.login.accept({ payload: { invitation, password: "a long enough password" } })),
        NotFound
      )
      assert.instanceOf(yield* Effect.flip(api.login.invitation({ payload: { invitation } })), NotFound)
      assert.instanceOf(yield* Effect.flip(api.login.invitation({ payload: { invitation: "never-issued" } })), NotFound)
    }))

  it.effect("a change without the session's CSRF token is 403 and recorded; log-out ends the session", () =>
    Effect.gen(function*() {
      const partner = yield* givenRepoPartner
      const { session } = yield* givenPortalUser(partner, "csrf-portal@example.com", "viewer")
      assert.strictEqual((yield* (yield* clientAs(session)).session.current()).csrfToken, session.csrf)
      const refused = yield* Effect.flip((yield* clientAs({ cookie: session.cookie, csrf: "forged" })).session.logout())
      assert.instanceOf(refused, SessionForbidden)
      assert.strictEqual(refused.message, "This change lacks the session's CSRF token (X-CSRF-Token): reload the page.")
      const recorded = (yield* auditOf("DELETE /portal/api/session")).filter((entry) =>
        entry.actor === "csrf-portal@example.com"
      )
      assert.deepStrictEqual(recorded.map((entry) => entry.after), [{
        status: 403,
        reason: refused.message,
        partner: partner.slug
      }])
      const done = yield* (yield* clientAs(session)).session.logout()
      assert.deepStrictEqual(done, { success: true, message: "Logged out." })
      assert.instanceOf(yield* Effect.flip((yield* clientAs(session)).session.current()), SessionUnauthorized)
    }))

  it.effect("a password change checks the current one (422 naming the field) and ends the user's other sessions", () =>
    Effect.gen(function*() {
      const partner = yield* givenRepoPartner
      const { session } = yield* givenPortalUser(partner, "changer@example.com", "viewer")
      const other = yield* Effect.flatMap(
        Effect.service(PartnerUsers),
        (users) => users.login("changer@example.com", testPassword, "192.0.2.1")
      )
      const api = yield* clientAs(session)
      const wrong = yield* Effect.flip(
        api.session.changePassword({
          payload: { current_password: "not mine at all", new_password: "a new long password" }
        })
      )
      assert.deepStrictEqual((wrong as ValidationFailed).errors, {
        current_password: ["The current password is wrong."]
      })
      assert.deepStrictEqual(
        yield* api.session.changePassword({
          payload: { current_password: testPassword, new_password: "a new long password" }
        }),
        { success: true, message: "Your password was changed." }
      )
      assert.strictEqual((yield* api.session.current()).user.email, "changer@example.com", "this session stays")
      const otherSession = { cookie: `${portalSessionCookie}=${other.sessionId}`, csrf: other.csrfToken }
      assert.instanceOf(
        yield* Effect.flip((yield* clientAs(otherSession)).session.current()),
        SessionUnauthorized,
        "the other one ended"
      )
    }))

  it.effect("the role matrix: a viewer reads the users but changes none (403 naming the role needed); an owner manages them", () =>
    Effect.gen(function*() {
      const partner = yield* givenRepoPartner
      const owner = yield* givenPortalUser(partner, "matrix-owner@example.com", "owner")
      const viewer = yield* givenPortalUser(partner, "matrix-viewer@example.com", "viewer")
      const developer = yield* givenPortalUser(partner, "matrix-dev@example.com", "developer")
      const listed = yield* (yield* clientAs(viewer.session)).users.list({ params: {} })
      assert.deepStrictEqual(listed.users.map((user) => [user.email, user.role, user.status]), [
        ["matrix-dev@example.com", "developer", "active"],
        ["matrix-owner@example.com", "owner", "active"],
        ["matrix-viewer@example.com", "viewer", "active"]
      ])
      for (
        const { message, session } of [
          { session: viewer.session, message: "Your role (viewer) cannot make this change: it needs an owner." },
          { session: developer.session, message: "Your role (developer) cannot make this change: it needs an owner." }
        ]
      ) {
        const refused = yield* Effect.flip(
          (yield* clientAs(session)).users.invite({
            params: {},
            payload: { email: "x-new@example.com", role: "viewer" }
          })
        )
        assert.instanceOf(refused, SessionForbidden)
        assert.strictEqual(refused.message, message)
      }
      const api = yield* clientAs(owner.session)
      const promoted = yield* api.users.setRole({ params: { id: viewer.user.id }, payload: { role: "developer" } })
      assert.deepStrictEqual([promoted.success, promoted.user.role], [true, "developer"])
      const removed = yield* api.users.remove({ params: { id: developer.user.id } })
      assert.strictEqual(removed.user.email, "matrix-dev@example.com")
      assert.instanceOf(
        yield* Effect.flip((yield* clientAs(developer.session)).session.current()),
        SessionUnauthorized,
        "a removed user's session ends"
      )
    }))

  it.effect("users: 409 for this partner's e-mail and for leaving no owner, 404 for another partner's user, 422 for a bad e-mail", () =>
    Effect.gen(function*() {
      const [partner, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const owner = yield* givenPortalUser(partner, "sole-owner@example.com", "owner")
      const stranger = yield* givenPortalUser(other, "stranger@example.com", "owner")
      const api = yield* clientAs(owner.session)
      const taken = yield* Effect.flip(
        api.users.invite({ params: {}, payload: { email: "sole-owner@example.com", role: "viewer" } })
      )
      assert.instanceOf(taken, Conflict)
      assert.strictEqual(taken.message, `The e-mail "sole-owner@example.com" is already a user of this partner.`)
      const last = yield* Effect.flip(api.users.setRole({ params: { id: owner.user.id }, payload: { role: "viewer" } }))
      assert.instanceOf(last, Conflict)
      assert.strictEqual(last.message, "A partner keeps at least one owner: make another user owner first.")
      assert.instanceOf(yield* Effect.flip(api.users.remove({ params: { id: owner.user.id } })), Conflict)
      for (
        const call of [
          api.users.setRole({ params: { id: stranger.user.id }, payload: { role: "viewer" } }),
          api.users.remove({ params: { id: stranger.user.id } }),
          api.users.reinvite({ params: { id: stranger.user.id } })
        ]
      ) {
        const missing = yield* Effect.flip(call)
        assert.instanceOf(missing, NotFound)
        assert.strictEqual(missing.message, `No user ${stranger.user.id} of this partner.`)
      }
      const bad = yield* Effect.flip(
        api.users.invite({ params: {}, payload: { email: "not-an-address", role: "viewer" } })
      )
      assert.deepStrictEqual((bad as ValidationFailed).errors, { email: ["The email must be a valid e-mail address."] })
      const pending = yield* api.users.invite({ params: {}, payload: { email: "pending@example.com", role: "viewer" } })
      const again = yield* api.users.reinvite({ params: { id: pending.user.id } })
      assert.match(again.invitationUrl, /\/portal\/invitation#[A-Za-z0-9_-]{43}$/)
      assert.notStrictEqual(again.invitationUrl, pending.invitationUrl)
      const trail = (yield* auditOf(`partner:${partner.slug}`)).map((entry) => entry.action)
      assert.include(trail, "partner-user.reinvite")
    }))

  it.effect("an owner cannot take over a co-owner who set a password (409, nothing written); a pending user is reinvited", () =>
    Effect.gen(function*() {
      const partner = yield* givenRepoPartner
      const owner = yield* givenPortalUser(partner, "taker-owner@example.com", "owner")
      const coOwner = yield* givenPortalUser(partner, "co-owner@example.com", "owner")
      const api = yield* clientAs(owner.session)
      for (const target of [coOwner, owner]) {
        const refused = yield* Effect.flip(api.users.reinvite({ params: { id: target.user.id } }))
        assert.instanceOf(refused, Conflict)
        assert.strictEqual(
          refused.message,
          "This user has set a password: they change it themselves under their account. " +
            "If it is lost, the operator issues a password reset from the console."
        )
      }
      const listed = (yield* api.users.list({ params: {} })).users.find((user) => user.id === coOwner.user.id)
      assert.deepStrictEqual([listed?.status, listed?.invitationExpiresAt], ["active", null], "no link was made")
      const trail = (yield* auditOf(`partner:${partner.slug}`)).map((entry) => entry.action)
      assert.notInclude(trail, "partner-user.reinvite")
      assert.notInclude(trail, "partner-user.password-reset")
      const login = yield* (yield* client).login.login({
        payload: { email: "co-owner@example.com", password: testPassword }
      })
      assert.strictEqual(login.user.email, "co-owner@example.com", "the co-owner's password still works")
      const pending = yield* api.users.invite({ params: {}, payload: { email: "not-yet@example.com", role: "owner" } })
      const again = yield* api.users.reinvite({ params: { id: pending.user.id } })
      assert.notStrictEqual(again.invitationUrl, pending.invitationUrl)
      assert.include((yield* auditOf(`partner:${partner.slug}`)).map((entry) => entry.action), "partner-user.reinvite")
    }))

  it.effect("another partner's e-mail is invited as a free one (201), but accepted only if it has no account yet (409)", () =>
    Effect.gen(function*() {
      const [partner, other] = [yield* givenRepoPartner, yield* givenRepoPartner]
      const owner = yield* givenPortalUser(partner, "claims-owner@example.com", "owner")
      const theirs = yield* givenPortalUser(other, "their-staff@example.com", "developer")
      const api = yield* clientAs(owner.session)
      const free = yield* api.users.invite({ params: {}, payload: { email: "free-staff@example.com", role: "viewer" } })
      const claimed = yield* api.users.invite({
        params: {},
        payload: { email: "their-staff@example.com", role: "viewer" }
      })
      const shapeOf = (
        answer: typeof free
      ) => [answer.success, answer.user.role, answer.user.status, typeof answer.invitationUrl]
      assert.deepStrictEqual(shapeOf(claimed), shapeOf(free), "a taken e-mail answers as a free one")
      const refused = yield* Effect.flip(
        (yield* client).login.accept({
          payload: { invitation: invitationOf(claimed.invitationUrl), password: "a long enough password" }
        })
      )
      assert.instanceOf(refused, Conflict)
      assert.strictEqual(
        refused.message,
        "Your e-mail already has a partner portal account (one account per e-mail): log in with it, " +
          "or ask the operator to move it."
      )
      const pending = yield* api.users.list({ params: {} })
      assert.deepStrictEqual(
        pending.users.filter((user) => user.email === "their-staff@example.com").map((user) => user.status),
        ["invited"],
        "the refused accept changed nothing"
      )
      const loggedIn = yield* (yield* client).login.login({
        payload: { email: "their-staff@example.com", password: testPassword }
      })
      assert.deepStrictEqual([loggedIn.partner.slug, loggedIn.user.role], [other.slug, theirs.user.role])
    }))
})
