import { assert, layer } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { HttpServer } from "effect/http"
import { HttpApiTest } from "effect/http-api"
import { randomBytes } from "node:crypto"
import { AdminApi } from "../../src/api/admin/AdminApi.ts"
import {
  Conflict,
  NotFound,
  SessionForbidden,
  SessionUnauthorized,
  ValidationFailed
} from "../../src/api/admin/AdminErrors.ts"
import * as AdminAuth from "../../src/admin/http/AdminAuth.ts"
import { AdminCertificationsHandlers } from "../../src/admin/http/Certifications.ts"
import { AdminPartnerUsersHandlers } from "../../src/admin/http/PartnerUsers.ts"
import { CertificationAdmin } from "../../src/changes/CertificationAdmin.ts"
import { newCertificationId } from "../../src/domain/Certification.ts"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { PartnerUsers } from "../../src/identity/PartnerUsers.ts"
import { CallbackUrlPolicy } from "../../src/partners/CallbackUrlPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { RequestValidationLive } from "../../src/routes.ts"
import { CertificationRepo } from "../../src/wallet/certification/CertificationRepo.ts"
import * as CertificationRepoMemory from "../../src/wallet/certification/CertificationRepoMemory.ts"
import { Certifications } from "../../src/wallet/certification/Certifications.ts"
import { PartnerCallbacks } from "../../src/wallet/outbox/PartnerCallbacks.ts"
import { LoginRefused } from "../../src/identity/SignIn.ts"
import { type AdminSession, asAdmin, givenAdmin, sessionOf, testPassword } from "../support/AdminConsole.ts"
import { givenPortalUser } from "../support/Portal.ts"
import { CallbackTargetsOfRepo } from "../support/RepoPartner.ts"
import { givenPartner, TestConfig } from "../support/TestApp.ts"
import { caseKeys } from "../../src/domain/CertificationCaseTexts.ts"

/**
 * The console's contract for a partner's portal users and its wallet certification (the envelope, 401 without a
 * session, a viewer's 403, 404 for an unknown partner or run, 409 and 422), through the real handlers and middleware
 * over memory repositories: no socket, no PostgreSQL. Starting a run calls the partner's test wallet, so it is
 * tested end to end in certification-console.test.ts; its refusals before any call are here.
 */
const InMemoryConsole = Layer.mergeAll(AdminPartnerUsersHandlers, AdminCertificationsHandlers).pipe(
  Layer.provideMerge(Layer.mergeAll(AdminAuth.layer, RequestValidationLive)),
  Layer.provideMerge(Layer.mergeAll(AdminAccounts.layerMemory, PartnerUsers.layerMemory, CertificationAdmin.layer)),
  Layer.provideMerge(Layer.mergeAll(
    Certifications.layerNoDeps.pipe(Layer.provide(Layer.mergeAll(PartnerCallbacks.layer, CallbackTargetsOfRepo))),
    AuditRepo.layerMemory
  )),
  Layer.provideMerge(
    Layer.mergeAll(Partners.layerNoDeps, CertificationRepoMemory.layerMemory, PartnerPlayers.layerMemory)
  ),
  Layer.provideMerge(Layer.mergeAll(PartnerRepo.layerMemory, CallbackUrlPolicy.layer)),
  Layer.provideMerge(TestConfig()),
  Layer.provideMerge(HttpServer.layerServices)
)

const clientAs = (session?: AdminSession) =>
  HttpApiTest.groups(AdminApi, ["partnerUsers", "certifications"]).pipe(Effect.provide(asAdmin(session)))
const unique = () => randomBytes(3).toString("hex")
const operator = Effect.gen(function*() {
  const email = `operator-${unique()}@example.com`
  yield* givenAdmin(email, "operator")
  return yield* sessionOf(email)
})
const viewer = Effect.gen(function*() {
  const email = `viewer-${unique()}@example.com`
  yield* givenAdmin(email, "viewer")
  return yield* sessionOf(email)
})
const partner = Effect.map(givenPartner({ name: `Partner ${unique()}` }), (created) => created.partner)

layer(InMemoryConsole)("the console's partner users and certifications over memory", (it) => {
  it.effect("an operator invites, lists, promotes and removes a partner's users; a partner keeps an owner (409)", () =>
    Effect.gen(function*() {
      const api = yield* clientAs(yield* operator)
      const { slug } = yield* partner
      const owner = yield* api.partnerUsers.invite({
        params: { slug },
        payload: { email: `owner-${slug}@example.com`, role: "owner" }
      })
      assert.deepStrictEqual([owner.success, owner.user.role, owner.user.status], [true, "owner", "invited"])
      assert.match(owner.invitationUrl, /\/portal\/invitation#[A-Za-z0-9_-]{43}$/)
      const dev = yield* api.partnerUsers.invite({
        params: { slug },
        payload: { email: `dev-${slug}@example.com`, role: "developer" }
      })
      const listed = yield* api.partnerUsers.list({ params: { slug } })
      assert.deepStrictEqual(listed.users.map((user) => user.email), [
        `dev-${slug}@example.com`,
        `owner-${slug}@example.com`
      ])
      assert.strictEqual(
        (yield* api.partnerUsers.setRole({ params: { slug, id: dev.user.id }, payload: { role: "viewer" } })).user.role,
        "viewer"
      )
      const last = yield* Effect.flip(
        api.partnerUsers.setRole({ params: { slug, id: owner.user.id }, payload: { role: "viewer" } })
      )
      assert.instanceOf(last, Conflict)
      assert.strictEqual(last.message, "A partner keeps at least one owner: make another user owner first.")
      assert.strictEqual((yield* api.partnerUsers.remove({ params: { slug, id: dev.user.id } })).user.id, dev.user.id)
      const again = yield* api.partnerUsers.reinvite({ params: { slug, id: owner.user.id }, payload: null })
      assert.notStrictEqual(again.invitationUrl, owner.invitationUrl)
      const trail = yield* Effect.flatMap(
        Effect.service(AuditRepo),
        (audit) => audit.list({ target: `partner:${slug}`, limit: 10 })
      )
      assert.deepStrictEqual(
        trail.map((entry) => entry.action).sort(),
        [
          "partner-user.invite",
          "partner-user.invite",
          "partner-user.reinvite",
          "partner-user.remove",
          "partner-user.set-role"
        ].sort()
      )
    }))

  it.effect("a new link for a user who set a password is a reset at their request: the note or 422, audited as a reset", () =>
    Effect.gen(function*() {
      const api = yield* clientAs(yield* operator)
      const created = yield* partner
      const { slug } = created
      const user = yield* givenPortalUser(created, `reset-${slug}@example.com`, "owner")
      for (const payload of [null, {}, { requestedByUser: "  " }]) {
        const refused = yield* Effect.flip(api.partnerUsers.reinvite({ params: { slug, id: user.user.id }, payload }))
        assert.instanceOf(refused, ValidationFailed)
        assert.deepStrictEqual((refused as ValidationFailed).errors, {
          requested_by_user: [
            "The requested_by_user field is required for a user who has set a password: a new link resets it, " +
            "so note how the user asked for it (a ticket, a call)."
          ]
        })
      }
      const trail = () =>
        Effect.flatMap(Effect.service(AuditRepo), (audit) => audit.list({ target: `partner:${slug}`, limit: 10 }))
      const links = () =>
        Effect.map(
          trail(),
          (entries) =>
            entries.filter((entry) =>
              entry.action !== "partner-user.invite" && entry.action !== "partner-user.accept-invitation"
            )
        )
      assert.deepStrictEqual(yield* links(), [], "the refusals wrote nothing")
      const reset = yield* api.partnerUsers.reinvite({
        params: { slug, id: user.user.id },
        payload: { requestedByUser: "Ticket 4711: called the user back on their known number" }
      })
      assert.match(reset.invitationUrl, /\/portal\/invitation#[A-Za-z0-9_-]{43}$/)
      assert.strictEqual(reset.user.status, "active", "the old password keeps working until the link is used")
      const [entry] = yield* links()
      assert.strictEqual(entry.action, "partner-user.password-reset")
      assert.deepStrictEqual(entry.after, {
        user: `reset-${slug}@example.com`,
        role: "owner",
        requestedByUser: "Ticket 4711: called the user back on their known number"
      })
      assert.notInclude(JSON.stringify(entry), reset.invitationUrl.slice(reset.invitationUrl.indexOf("#") + 1))
      const users = yield* PartnerUsers
      yield* users.login(`reset-${slug}@example.com`, testPassword, "192.0.2.9")
      yield* users.accept(reset.invitationUrl.slice(reset.invitationUrl.indexOf("#") + 1), "a new long password", "x")
      assert.instanceOf(
        yield* Effect.flip(users.login(`reset-${slug}@example.com`, testPassword, "192.0.2.9")),
        LoginRefused,
        "once the link is used, the old password is gone"
      )
      const pending = yield* api.partnerUsers.invite({
        params: { slug },
        payload: { email: `pending-${slug}@example.com`, role: "viewer" }
      })
      const again = yield* api.partnerUsers.reinvite({ params: { slug, id: pending.user.id }, payload: null })
      assert.notStrictEqual(again.invitationUrl, pending.invitationUrl)
      assert.strictEqual((yield* trail())[0].action, "partner-user.reinvite", "a pending user's new link, as before")
    }))

  it.effect("users: an unknown partner is 404, another partner's user is 404, the partner's own e-mail is 409, a bad one 422", () =>
    Effect.gen(function*() {
      const api = yield* clientAs(yield* operator)
      const [a, b] = [yield* partner, yield* partner]
      for (
        const unknown of [
          Effect.asVoid(api.partnerUsers.list({ params: { slug: "no-such-partner" } })),
          Effect.asVoid(api.partnerUsers.invite({
            params: { slug: "no-such-partner" },
            payload: { email: `nobody-${a.slug}@example.com`, role: "viewer" }
          })),
          Effect.asVoid(api.partnerUsers.reinvite({ params: { slug: "no-such-partner", id: 1 }, payload: null }))
        ]
      ) {
        const missing = yield* Effect.flip(unknown)
        assert.instanceOf(missing, NotFound)
        assert.strictEqual(missing.message, `No partner with slug "no-such-partner".`)
      }
      const theirs = yield* api.partnerUsers.invite({
        params: { slug: b.slug },
        payload: { email: `theirs-${b.slug}@example.com`, role: "owner" }
      })
      const elsewhere = yield* Effect.flip(api.partnerUsers.remove({ params: { slug: a.slug, id: theirs.user.id } }))
      assert.instanceOf(elsewhere, NotFound)
      assert.strictEqual(elsewhere.message, `No user ${theirs.user.id} of this partner.`)
      const taken = yield* Effect.flip(
        api.partnerUsers.invite({
          params: { slug: b.slug },
          payload: { email: `theirs-${b.slug}@example.com`, role: "viewer" }
        })
      )
      assert.instanceOf(taken, Conflict)
      assert.strictEqual(taken.message, `The e-mail "theirs-${b.slug}@example.com" is already a user of this partner.`)
      const atAnother = yield* api.partnerUsers.invite({
        params: { slug: a.slug },
        payload: { email: `theirs-${b.slug}@example.com`, role: "viewer" }
      })
      assert.deepStrictEqual([atAnother.user.status, atAnother.user.role], ["invited", "viewer"], "another's: free")
      const bad = yield* Effect.flip(
        api.partnerUsers.invite({ params: { slug: a.slug }, payload: { email: "nope", role: "viewer" } })
      )
      assert.deepStrictEqual((bad as ValidationFailed).errors, { email: ["The email must be a valid e-mail address."] })
    }))

  it.effect("without a session is 401; a viewer reads but changes nothing (403)", () =>
    Effect.gen(function*() {
      const { slug } = yield* partner
      assert.instanceOf(
        yield* Effect.flip((yield* clientAs()).partnerUsers.list({ params: { slug } })),
        SessionUnauthorized
      )
      assert.instanceOf(
        yield* Effect.flip((yield* clientAs()).certifications.list({ params: { slug } })),
        SessionUnauthorized
      )
      const api = yield* clientAs(yield* viewer)
      assert.deepStrictEqual((yield* api.partnerUsers.list({ params: { slug } })).users, [])
      assert.isFalse((yield* api.certifications.list({ params: { slug } })).certification_required)
      for (
        const change of [
          Effect.asVoid(
            api.partnerUsers.invite({ params: { slug }, payload: { email: `v-${slug}@example.com`, role: "viewer" } })
          ),
          Effect.asVoid(api.certifications.setRequirement({ params: { slug }, payload: { required: true } })),
          Effect.asVoid(api.certifications.start({ params: { slug }, payload: { external_player_id: "player-1" } }))
        ]
      ) {
        const refused = yield* Effect.flip(change)
        assert.instanceOf(refused, SessionForbidden)
        assert.strictEqual(refused.message, "Your role (viewer) can read but not change anything.")
      }
    }))

  it.effect("a partner's certifications: the setting and its runs newest first without cases; a run's report; unknowns 404", () =>
    Effect.gen(function*() {
      const api = yield* clientAs(yield* operator)
      const { id, slug } = yield* partner
      const empty = yield* api.certifications.list({ params: { slug } })
      assert.deepStrictEqual(empty, { success: true, certification_required: false, live_token_issued: true, runs: [] })
      const repo = yield* CertificationRepo
      const run = {
        partnerId: id,
        externalPlayerId: "cert-player",
        currency: "BRL",
        callbackUrl: "https://wallet.example/cb",
        partnerWallet: true,
        startedBy: "ops",
        timeoutMillis: 3_000
      } as const
      const older = yield* repo.insert({ ...run, id: newCertificationId(), startedVia: "cli" })
      yield* repo.recordCase(older.id, 0, {
        key: "balance",
        status: "passed",
        reason: null,
        balanceBefore: 10_000n,
        expectedBalance: 10_000n,
        balanceAfter: 10_000n,
        timing: null,
        exchanges: [],
        finishedAt: new Date(0)
      })
      yield* repo.finish(older.id, "failed", "1 of 18 cases passed.")
      const newer = yield* repo.insert({ ...run, id: newCertificationId(), startedVia: "console" })
      const listed = yield* api.certifications.list({ params: { slug } })
      assert.deepStrictEqual(listed.runs.map((entry) => [entry.id, entry.status, entry.cases.length]), [[
        newer.id,
        "running",
        0
      ], [older.id, "failed", 0]])
      const report = (yield* api.certifications.show({ params: { id: older.id } })).certification
      assert.deepStrictEqual([report.status, report.summary, report.started_via, report.cases.map((c) => c.key)], [
        "failed",
        "1 of 18 cases passed.",
        "cli",
        ["balance"]
      ])
      assert.strictEqual(report.cases_total, caseKeys.length)
      assert.deepStrictEqual([report.currency, report.cases[0].balance_before], ["BRL", 100])
      assert.instanceOf(yield* Effect.flip(api.certifications.show({ params: { id: newCertificationId() } })), NotFound)
      assert.instanceOf(yield* Effect.flip(api.certifications.list({ params: { slug: "no-such-partner" } })), NotFound)
      const unknown = yield* Effect.flip(
        api.certifications.start({ params: { slug }, payload: { external_player_id: "stranger" } })
      )
      assert.match(
        ((unknown as ValidationFailed).errors.external_player_id ?? [])[0] ?? "",
        /^"stranger" is not one of this partner's test players/
      )
      yield* Effect.flatMap(
        Effect.service(PartnerPlayers),
        (players) =>
          players.arrive({
            partnerId: id,
            environment: "test",
            externalPlayerId: "cert-player",
            currency: "BRL",
            name: null,
            email: null,
            balance: 10_000n
          })
      )
      const busy = yield* Effect.flip(
        api.certifications.start({ params: { slug }, payload: { external_player_id: "cert-player" } })
      )
      assert.instanceOf(busy, Conflict, "a partner runs one certification at a time")
      assert.strictEqual(
        busy.message,
        `A wallet certification of this partner is running (${newer.id}): wait for it to finish.`
      )
    }))

  it.effect("the requirement is set and audited; turned on without a passed run it withdraws the live token", () =>
    Effect.gen(function*() {
      const api = yield* clientAs(yield* operator)
      const { slug } = yield* partner
      const on = yield* api.certifications.setRequirement({ params: { slug }, payload: { required: true } })
      assert.deepStrictEqual(on, { success: true, certification_required: true, live_token_withdrawn: true })
      assert.deepStrictEqual(
        [
          (yield* api.certifications.list({ params: { slug } })).certification_required,
          (yield* api.certifications.list({ params: { slug } })).live_token_issued
        ],
        [true, false]
      )
      const off = yield* api.certifications.setRequirement({ params: { slug }, payload: { required: false } })
      assert.deepStrictEqual(off, { success: true, certification_required: false, live_token_withdrawn: false })
      const trail = yield* Effect.flatMap(
        Effect.service(AuditRepo),
        (audit) => audit.list({ target: `partner:${slug}`, limit: 10 })
      )
      assert.deepStrictEqual(
        trail.filter((entry) => entry.action === "partner.set-certification-requirement").map((entry) => entry.after),
        [
          { certification_required: false },
          { certification_required: true, live_token_withdrawn: true }
        ]
      )
      const missing = yield* Effect.flip(
        api.certifications.setRequirement({ params: { slug: "no-such-partner" }, payload: { required: true } })
      )
      assert.instanceOf(missing, NotFound)
    }))
})
