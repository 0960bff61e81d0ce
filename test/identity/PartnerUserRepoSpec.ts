import { assert, type Vitest } from "@effect/vitest"
import { Duration, Effect, Option } from "effect"
import { randomBytes } from "node:crypto"
import { EmailHasAccount, PartnerEmailTaken, PartnerUserRepo } from "../../src/identity/PartnerUserRepo.ts"
import { hashSession, newSessionSecrets } from "../../src/identity/Sessions.ts"
import type { PartnerRepo } from "../../src/partners/PartnerRepo.ts"
import { givenRepoPartner } from "../support/RepoPartner.ts"

/**
 * What PartnerUserRepo promises, whichever form keeps it: run over PostgreSQL (layerSql) and over memory
 * (layerMemory) by partner-user-repo.test.ts, so the twin the handler specs stand on is shown to answer as the SQL
 * does. Every test names its own partners and e-mails: the layer (and its rows) is shared by the file's tests.
 */
export const partnerUserRepoSpec = (it: Vitest.MethodsNonLive<PartnerUserRepo | PartnerRepo>) => {
  const unique = () => randomBytes(4).toString("hex")
  const givenPartner = givenRepoPartner
  const link = () => randomBytes(32)
  const week = Duration.days(7)
  const invite = (
    partnerId: number,
    email: string,
    role: "owner" | "developer" | "viewer" = "viewer",
    invitationHash = link(),
    invitationTtl = week
  ) =>
    Effect.flatMap(
      Effect.service(PartnerUserRepo),
      (repo) => repo.insert({ partnerId, email, role, invitationHash, invitationTtl })
    )

  it.effect("a new user has no password and an invitation ending its TTL after their creation; an e-mail is once a partner's user", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const [acme, other] = [yield* givenPartner, yield* givenPartner]
      const email = `new-${unique()}@example.com`
      const user = yield* invite(acme.id, email, "developer")
      assert.deepStrictEqual([user.partnerId, user.email, user.role, user.passwordSet], [
        acme.id,
        email,
        "developer",
        false
      ])
      assert.strictEqual(user.invitationExpiresAt!.getTime() - user.createdAt.getTime(), Duration.toMillis(week))
      const taken = yield* Effect.flip(invite(acme.id, email, "viewer"))
      assert.instanceOf(taken, PartnerEmailTaken)
      assert.strictEqual(taken.email, email)
      assert.deepStrictEqual((yield* repo.list(acme.id)).map((u) => u.id), [user.id], "the refused insert left nothing")
      const elsewhere = yield* invite(other.id, email)
      assert.deepStrictEqual([elsewhere.partnerId, elsewhere.passwordSet], [other.id, false], "a pending one elsewhere")
    }))

  it.effect("an e-mail with an accepted account cannot be accepted at another partner; the log-in finds that account", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const [acme, other, third] = [yield* givenPartner, yield* givenPartner, yield* givenPartner]
      const email = `shared-${unique()}@example.com`
      const [before, mine, after] = [link(), link(), link()]
      yield* invite(other.id, email, "owner", before)
      const user = yield* invite(acme.id, email, "viewer", mine)
      yield* repo.acceptInvitation(mine, "scrypt$mine")
      const pendingAfter = yield* invite(third.id, email, "owner", after)
      for (const invitation of [before, after]) {
        assert.instanceOf(yield* Effect.flip(repo.acceptInvitation(invitation, "scrypt$theirs")), EmailHasAccount)
        assert.isTrue(Option.isSome(yield* repo.byInvitation(invitation)), "the refused accept changed nothing")
      }
      assert.isFalse(Option.getOrThrow(yield* repo.find(third.id, pendingAfter.id)).passwordSet)
      const account = Option.getOrThrow(yield* repo.credentials(email))
      assert.deepStrictEqual([account.user.id, account.partner.slug, account.passwordHash], [
        user.id,
        acme.slug,
        "scrypt$mine"
      ], "pending invitations of other partners, before and after, never answer the log-in")
      const fresh = link()
      yield* repo.reinvite(acme.id, user.id, fresh, week, true)
      assert.isTrue(Option.isSome(yield* repo.acceptInvitation(fresh, "scrypt$again")), "its own reset link works")
    }))

  it.effect("two accepts of one e-mail at two partners at once: exactly one wins", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const [acme, other] = [yield* givenPartner, yield* givenPartner]
      const email = `racing-${unique()}@example.com`
      const [a, b] = [link(), link()]
      yield* invite(acme.id, email, "owner", a)
      yield* invite(other.id, email, "owner", b)
      const outcomes = yield* Effect.all(
        [a, b].map((invitation) => Effect.result(repo.acceptInvitation(invitation, "scrypt$race"))),
        { concurrency: "unbounded" }
      )
      const won = outcomes.filter((outcome) => outcome._tag === "Success" && Option.isSome(outcome.success))
      const refused = outcomes.filter((outcome) =>
        outcome._tag === "Failure" && outcome.failure._tag === "EmailHasAccount"
      )
      assert.deepStrictEqual([won.length, refused.length], [1, 1])
      const accepted = [...(yield* repo.list(acme.id)), ...(yield* repo.list(other.id))].filter((u) => u.passwordSet)
      assert.strictEqual(accepted.length, 1)
    }))

  it.effect("a partner's users are listed by e-mail and found by id only through their own partner", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const [acme, other] = [yield* givenPartner, yield* givenPartner]
      const tag = unique()
      for (const name of ["carol", "alice", "bob"]) yield* invite(acme.id, `${name}-${tag}@example.com`)
      const theirs = yield* invite(other.id, `dave-${tag}@example.com`)
      const listed = yield* repo.list(acme.id)
      assert.deepStrictEqual(listed.map((user) => user.email.split("-")[0]), ["alice", "bob", "carol"])
      assert.deepStrictEqual(
        Option.map(yield* repo.find(acme.id, listed[0].id), (user) => user.email),
        Option.some(listed[0].email)
      )
      assert.isTrue(Option.isNone(yield* repo.find(acme.id, theirs.id)), "another partner's user is not found")
      assert.isTrue(Option.isNone(yield* repo.setRole(acme.id, theirs.id, "owner")), "nor changed")
      assert.isTrue(Option.isNone(yield* repo.remove(acme.id, theirs.id)), "nor removed")
      assert.isTrue(Option.isNone(yield* repo.reinvite(acme.id, theirs.id, link(), week, true)), "nor invited again")
      assert.strictEqual((yield* repo.find(other.id, theirs.id)).pipe(Option.getOrThrow).role, "viewer")
    }))

  it.effect("an invitation names its user and partner until used once: the password is set and the link closed", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const acme = yield* givenPartner
      const email = `invited-${unique()}@example.com`
      const invitation = link()
      const user = yield* invite(acme.id, email, "owner", invitation)
      const open = Option.getOrThrow(yield* repo.byInvitation(invitation))
      assert.deepStrictEqual(open.partner, { id: acme.id, name: acme.name, slug: acme.slug, status: "active" })
      assert.deepStrictEqual([open.user.id, open.passwordHash, open.csrfToken], [user.id, null, null])
      assert.deepStrictEqual(open.expiresAt, user.invitationExpiresAt)
      const accepted = Option.getOrThrow(yield* repo.acceptInvitation(invitation, "scrypt$hash"))
      assert.deepStrictEqual([accepted.passwordSet, accepted.invitationExpiresAt], [true, null])
      assert.isTrue(
        Option.isNone(yield* repo.acceptInvitation(invitation, "scrypt$other")),
        "a second accept finds nothing"
      )
      assert.isTrue(Option.isNone(yield* repo.byInvitation(invitation)))
      const credentials = Option.getOrThrow(yield* repo.credentials(email))
      assert.deepStrictEqual([credentials.passwordHash, credentials.user.passwordSet, credentials.partner.slug], [
        "scrypt$hash",
        true,
        acme.slug
      ])
      assert.isTrue(Option.isNone(yield* repo.credentials(`nobody-${unique()}@example.com`)))
    }))

  it.effect("an expired invitation is not found nor accepted; a new one replaces the old link, a password's only as a reset", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const acme = yield* givenPartner
      const expired = link()
      const user = yield* invite(acme.id, `late-${unique()}@example.com`, "viewer", expired, Duration.zero)
      assert.isTrue(Option.isNone(yield* repo.byInvitation(expired)))
      assert.isTrue(Option.isNone(yield* repo.acceptInvitation(expired, "scrypt$hash")))
      const fresh = link()
      const reinvited = Option.getOrThrow(yield* repo.reinvite(acme.id, user.id, fresh, week, false))
      assert.isTrue(reinvited.invitationExpiresAt!.getTime() > user.invitationExpiresAt!.getTime())
      assert.strictEqual(Option.getOrThrow(yield* repo.byInvitation(fresh)).user.id, user.id)
      const again = link()
      yield* repo.reinvite(acme.id, user.id, again, week, false)
      assert.isTrue(Option.isNone(yield* repo.byInvitation(fresh)), "the link before stops working")
      assert.isTrue(Option.isSome(yield* repo.acceptInvitation(again, "scrypt$hash")))
      const refused = link()
      assert.isTrue(
        Option.isNone(yield* repo.reinvite(acme.id, user.id, refused, week, false)),
        "a user with a password gets a new link only where a reset is allowed"
      )
      assert.isTrue(Option.isNone(yield* repo.byInvitation(refused)), "and the refused one was not stored")
      const reset = link()
      assert.isTrue(Option.getOrThrow(yield* repo.reinvite(acme.id, user.id, reset, week, true)).passwordSet)
      assert.strictEqual(Option.getOrThrow(yield* repo.byInvitation(reset)).user.id, user.id)
    }))

  it.effect("roles change within the partner, its owners are counted, and a removed user is gone with their sessions", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const acme = yield* givenPartner
      const tag = unique()
      const first = yield* invite(acme.id, `first-${tag}@example.com`, "owner")
      const second = yield* invite(acme.id, `second-${tag}@example.com`, "developer")
      assert.strictEqual(yield* repo.lockOwners(acme.id), 1)
      assert.strictEqual(Option.getOrThrow(yield* repo.setRole(acme.id, second.id, "owner")).role, "owner")
      assert.strictEqual(yield* repo.lockOwners(acme.id), 2)
      const { csrfToken, sessionId } = newSessionSecrets()
      yield* repo.createSession({
        idHash: hashSession(sessionId),
        ownerId: first.id,
        csrfToken,
        ttl: Duration.hours(1)
      })
      assert.strictEqual(Option.getOrThrow(yield* repo.remove(acme.id, first.id)).id, first.id)
      assert.isTrue(Option.isNone(yield* repo.remove(acme.id, first.id)), "removed once")
      assert.strictEqual(yield* repo.lockOwners(acme.id), 1)
      assert.deepStrictEqual((yield* repo.list(acme.id)).map((user) => user.id), [second.id])
      assert.isTrue(Option.isNone(yield* repo.findSession(hashSession(sessionId))), "its session went with it")
    }))

  it.effect("a session is found by its hash until its end, with its CSRF token; a user's sessions end together but the one kept", () =>
    Effect.gen(function*() {
      const repo = yield* PartnerUserRepo
      const acme = yield* givenPartner
      const user = yield* invite(acme.id, `sessions-${unique()}@example.com`, "owner")
      yield* repo.setPassword(user.id, "scrypt$set")
      const start = (ttl: Duration.Duration) =>
        Effect.gen(function*() {
          const secrets = newSessionSecrets()
          const idHash = hashSession(secrets.sessionId)
          const expiresAt = yield* repo.createSession({ idHash, ownerId: user.id, csrfToken: secrets.csrfToken, ttl })
          return { idHash, csrfToken: secrets.csrfToken, expiresAt }
        })
      const [a, b, c] = [
        yield* start(Duration.hours(8)),
        yield* start(Duration.hours(8)),
        yield* start(Duration.hours(8))
      ]
      const found = Option.getOrThrow(yield* repo.findSession(a.idHash))
      assert.deepStrictEqual([found.user.id, found.user.passwordSet, found.partner.slug, found.csrfToken], [
        user.id,
        true,
        acme.slug,
        a.csrfToken
      ])
      assert.deepStrictEqual(found.expiresAt, a.expiresAt)
      assert.strictEqual(found.passwordHash, null, "a session's read never carries the password hash")
      const ended = yield* start(Duration.zero)
      assert.isTrue(Option.isNone(yield* repo.findSession(ended.idHash)), "a session past its end is not found")
      assert.isTrue(Option.isNone(yield* repo.findSession(hashSession("never issued"))))
      yield* repo.deleteSession(a.idHash)
      assert.isTrue(Option.isNone(yield* repo.findSession(a.idHash)))
      yield* repo.deleteSessionsOf(user.id, b.idHash)
      assert.isTrue(Option.isSome(yield* repo.findSession(b.idHash)), "the kept session stays")
      assert.isTrue(Option.isNone(yield* repo.findSession(c.idHash)))
      yield* repo.deleteSessionsOf(user.id)
      assert.isTrue(Option.isNone(yield* repo.findSession(b.idHash)))
    }))
}
