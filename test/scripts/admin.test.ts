import { assert, layer } from "@effect/vitest"
import { Effect } from "effect"
import { SqlClient } from "effect/sql"
import { TestDatabase, TestDatabaseUrl } from "../support/TestDatabase.ts"
import { Unauthorized } from "../../src/client/PartnerClient.ts"
import { partnerClient } from "../support/PartnerClient.ts"
import { bearer, givenPartner, request, TestApp } from "../support/TestApp.ts"
import { admin, adminCli } from "../support/AdminCli.ts"
import { runCommand } from "../support/process.ts"
import { AppConfig, publicBaseUrl } from "../../src/platform/AppConfig.ts"
import { eventually as eventuallyHolds, live } from "../support/live.ts"

/**
 * `admin <args>` against the test file's database, run in-process (./support/AdminCli.ts). These machines have
 * no public DNS, so callback URLs are not resolved here unless a test asks for the policy (`strict`).
 */
const strict = adminCli({ PARTNER_CALLBACK_ALLOW_PRIVATE: "false" })

/** GET /status as `token`'s partner through the typed client: its answer, or the contract's 401 (`Unauthorized`). */
const status = (token: string) =>
  Effect.flatMap(partnerClient(token), (client) =>
    client.account.status().pipe(
      Effect.map((answer) => ({ status: 200 as const, answer })),
      Effect.catchIf(
        (error): error is Unauthorized => error instanceof Unauthorized,
        (refusal) => Effect.succeed({ status: 401 as const, refusal })
      )
    ))

/** The service refuses or admits within seconds of a change made by another process. */
/** The same answer on the wire, where its RateLimit-* headers are read. */
const statusOnTheWire = (token: string) => request("GET", "/api/partner/v1/status", { headers: bearer(token) })

const eventually = (token: string, expected: 200 | 401) =>
  eventuallyHolds(status(token), (response) => response.status === expected, `status ${expected}`)

layer(TestApp(), live)("admin CLI", (it) => {
  it.effect("create prints only {id, slug, token, webhook_secret, test}; both tokens work at once, each in its environment", () =>
    Effect.gen(function*() {
      const created = yield* admin(
        "partners",
        "create",
        "--name",
        "Acme Bets",
        "--commission",
        "12.5",
        "--callback-url",
        "https://acme.example/wallet",
        "--test-callback-url",
        "https://acme.example/test-wallet"
      )
      assert.strictEqual(created.exitCode, 0, created.stderr)
      const output = JSON.parse(created.stdout)
      assert.deepStrictEqual(Object.keys(output).sort(), ["id", "slug", "test", "token", "webhook_secret"])
      assert.deepStrictEqual(Object.keys(output.test).sort(), ["token", "webhook_secret"])
      assert.strictEqual(output.slug, "acme-bets")
      assert.match(output.token, /^pak_live_[A-Za-z0-9_-]{43}$/)
      assert.match(output.test.token, /^pak_test_[A-Za-z0-9_-]{43}$/)
      assert.match(output.webhook_secret, /^whsec_[0-9a-f]{64}$/)
      assert.match(output.test.webhook_secret, /^whsec_[0-9a-f]{64}$/)
      assert.notStrictEqual(output.test.webhook_secret, output.webhook_secret)
      // Shown once: never in show or list; show labels both environments.
      const shown = (yield* admin("partners", "show", "acme-bets")).stdout
      for (const secret of [output.token, output.test.token, output.webhook_secret, output.test.webhook_secret]) {
        assert.notInclude(shown, secret)
      }
      assert.deepStrictEqual(
        JSON.parse(shown).environments.map((
          e: { environment: string; callback_url: string }
        ) => [e.environment, e.callback_url]),
        [["live", "https://acme.example/wallet"], ["test", "https://acme.example/test-wallet"]]
      )

      const response = yield* (yield* partnerClient(output.token)).account.status()
      assert.deepStrictEqual(response.data.partner, {
        id: output.id,
        name: "Acme Bets",
        slug: "acme-bets",
        status: "active",
        commission_percent: 12.5,
        environment: "live"
      })
      const tested = yield* (yield* partnerClient(output.test.token)).account.status()
      assert.strictEqual(tested.data.partner.environment, "test")
    }))

  it.effect("deactivate refuses the token; activate admits it again", () =>
    Effect.gen(function*() {
      const { token, slug } = JSON.parse(
        (yield* admin("partners", "create", "--name", "Beta", "--slug", "beta")).stdout
      )
      yield* eventually(token, 200)
      const deactivated = yield* admin("partners", "deactivate", slug)
      assert.strictEqual(deactivated.exitCode, 0, deactivated.stderr)
      assert.strictEqual(JSON.parse(deactivated.stdout).status, "inactive")
      yield* eventually(token, 401)
      // The exact refusal on the wire.
      const refused = yield* request("GET", "/api/partner/v1/status", { headers: bearer(token) })
      assert.deepStrictEqual([refused.status, refused.body], [401, {
        success: false,
        message: "Parceiro invalido ou inativo."
      }])
      yield* admin("partners", "activate", slug)
      yield* eventually(token, 200)
    }))

  it.effect("rotate-token: the new token works, the old one fails", () =>
    Effect.gen(function*() {
      const first = JSON.parse((yield* admin("partners", "create", "--name", "Gamma")).stdout)
      yield* eventually(first.token, 200)
      const rotated = yield* admin("partners", "rotate-token", first.slug)
      assert.strictEqual(rotated.exitCode, 0, rotated.stderr)
      const second = JSON.parse(rotated.stdout)
      assert.strictEqual(second.id, first.id)
      assert.notStrictEqual(second.token, first.token)
      yield* eventually(first.token, 401)
      assert.strictEqual((yield* status(second.token)).status, 200)
      assert.strictEqual(
        (yield* status(first.test.token)).status,
        200,
        "the test token is another environment's: untouched"
      )

      // --env test: the test token is replaced; the live one stays.
      const rotatedTest = JSON.parse((yield* admin("partners", "rotate-token", first.slug, "--env", "test")).stdout)
      assert.strictEqual(rotatedTest.environment, "test")
      assert.match(rotatedTest.token, /^pak_test_/)
      yield* eventually(first.test.token, 401)
      assert.strictEqual((yield* status(rotatedTest.token)).status, 200)
      assert.strictEqual((yield* status(second.token)).status, 200)
    }))

  it.effect("rotate-webhook-secret: a new secret signs from now on", () =>
    Effect.gen(function*() {
      const first = JSON.parse((yield* admin("partners", "create", "--name", "Webhook Co")).stdout)
      const rotated = yield* admin("partners", "rotate-webhook-secret", first.slug)
      assert.strictEqual(rotated.exitCode, 0, rotated.stderr)
      const second = JSON.parse(rotated.stdout)
      assert.deepStrictEqual(Object.keys(second).sort(), ["environment", "id", "slug", "webhook_secret"])
      assert.notStrictEqual(second.webhook_secret, first.webhook_secret)
      const sql = yield* SqlClient.SqlClient
      const secrets = () =>
        sql<{ environment: string; webhook_secret: string }>`
          SELECT environment, webhook_secret FROM partner_environments JOIN partners ON id = partner_id
          WHERE slug = ${first.slug} ORDER BY environment
        `.pipe(Effect.map((rows) => rows.map((row) => row.webhook_secret)))
      assert.deepStrictEqual(yield* secrets(), [second.webhook_secret, first.test.webhook_secret])
      const third = JSON.parse((yield* admin("partners", "rotate-webhook-secret", first.slug, "--env", "test")).stdout)
      assert.strictEqual(third.environment, "test")
      assert.deepStrictEqual(yield* secrets(), [second.webhook_secret, third.webhook_secret])
      const unknown = yield* admin("partners", "rotate-webhook-secret", "no-such-partner")
      assert.notStrictEqual(unknown.exitCode, 0)
      assert.match(unknown.stderr, /No partner with slug/)
    }))

  it.effect("a callback URL must be https:// and lead to a public address, unless private ones are allowed", () =>
    Effect.gen(function*() {
      const refusals: Array<[string, RegExp]> = [
        ["http://partner.example/wallet", /must be https:\/\//],
        ["https://127.0.0.1/wallet", /private, loopback, link-local or reserved address \(127\.0\.0\.1\)/],
        ["https://10.1.2.3/wallet", /\(10\.1\.2\.3\)/],
        ["https://169.254.169.254/latest/meta-data", /\(169\.254\.169\.254\)/],
        ["https://[::1]/wallet", /\(::1\)/],
        ["https://[fd00:ec2::254]/wallet", /\(fd00:ec2::254\)/],
        [
          "https://localhost/wallet",
          /must not resolve to a private, loopback, link-local or reserved address\. A wallet on this machine/
        ],
        ["ftp://partner.example/wallet", /must be an http:\/\/ or https:\/\/ URL/],
        ["not a url", /must be an absolute http:\/\/ or https:\/\/ URL/]
      ]
      for (const [url, reason] of refusals) {
        const refused = yield* strict("partners", "create", "--name", "Sneaky", "--callback-url", url)
        assert.strictEqual(refused.exitCode, 1, url)
        assert.match(refused.stderr, /Invalid callback URL/, url)
        assert.match(refused.stderr, reason, url)
        // What lifts a refusal for a private wallet, and that the service needs it too; not for a malformed URL.
        assert.strictEqual(/the service as well as this CLI/.test(refused.stderr), !/^(ftp|not)/.test(url), url)
      }
      const { slug } = JSON.parse(
        (yield* strict(
          "partners",
          "create",
          "--name",
          "Public Partner",
          "--callback-url",
          "https://93.184.215.14/wallet"
        )).stdout
      )
      const moved = yield* strict("partners", "set", slug, "--callback-url", "https://192.168.1.20/wallet")
      assert.strictEqual(moved.exitCode, 1)
      // Nothing was half-written: the partner keeps its URL, and no sneaky partner exists.
      const shown = JSON.parse((yield* admin("partners", "show", slug)).stdout)
      assert.strictEqual(shown.callback_url, "https://93.184.215.14/wallet")
      const listed = JSON.parse((yield* admin("partners", "list")).stdout) as Array<{ name: string }>
      assert.isFalse(listed.some((partner) => partner.name === "Sneaky"))
      // The operator's explicit choice lets a private wallet in (a partner on the same network).
      const allowed = yield* admin("partners", "set", slug, "--callback-url", "http://10.1.2.3:8080/wallet")
      assert.strictEqual(allowed.exitCode, 0, allowed.stderr)
    }))

  it.effect("callbacks list and retry", () =>
    Effect.gen(function*() {
      const sql = yield* SqlClient.SqlClient
      const { partner } = yield* givenPartner({ name: "Callbacks Co", callbackUrl: "http://127.0.0.1:9/wallet" })
      const [player] = yield* sql<{ id: string }>`
        INSERT INTO partner_players (partner_id, external_player_id, currency, balance)
        VALUES (${partner.id}, 'cb-1', 'BRL', 1000)
        RETURNING id::text
      `
      const [win] = yield* sql<{ id: string }>`
        INSERT INTO partner_callbacks (event_id, partner_id, player_id, kind, txn_id, body, status, attempts, last_error)
        VALUES ('evt_admin_test', ${partner.id}, ${Number(player.id)}, 'win', 'admin-txn', '{"kind":"win","amount":1}',
                'failed', 25, 'The partner could not be reached.')
        RETURNING id::text
      `
      const listed = yield* admin("callbacks", "list", "--status", "failed", "--partner", partner.slug)
      assert.strictEqual(listed.exitCode, 0, listed.stderr)
      const [entry] = JSON.parse(listed.stdout)
      assert.deepInclude(entry, {
        id: Number(win.id),
        event_id: "evt_admin_test",
        partner: partner.slug,
        player: "cb-1",
        kind: "win",
        status: "failed",
        attempts: 25,
        last_error: "The partner could not be reached."
      })
      assert.deepStrictEqual(entry.body, { kind: "win", amount: 1 })
      const nobody = yield* admin("callbacks", "list", "--partner", "no-such-partner")
      assert.deepStrictEqual(
        [nobody.exitCode, JSON.parse(nobody.stdout)],
        [0, []],
        "a slug naming no partner has no callbacks"
      )

      const retried = yield* admin("callbacks", "retry", win.id)
      assert.strictEqual(retried.exitCode, 0, retried.stderr)
      assert.deepInclude(JSON.parse(retried.stdout), { id: Number(win.id), status: "pending", last_error: null })
      const [queue] = yield* sql<{ attempts: number; due: boolean }>`
        SELECT attempts, next_attempt_at <= now() AS due FROM partner_callback_queues WHERE player_id = ${player.id}
      `
      assert.deepStrictEqual(queue, { attempts: 0, due: true }, "the player's delivery queue is scheduled afresh")

      const unknown = yield* admin("callbacks", "retry", "987654")
      assert.notStrictEqual(unknown.exitCode, 0)
      assert.match(unknown.stderr, /No callback with id 987654/)
    }))

  it.effect("list, show and set", () =>
    Effect.gen(function*() {
      const { slug } = JSON.parse((yield* admin("partners", "create", "--name", "Delta")).stdout)
      const changed = yield* admin(
        "partners",
        "set",
        slug,
        "--commission",
        "7",
        "--callback-url",
        "https://delta.example/cb",
        "--name",
        "Delta Two"
      )
      assert.strictEqual(changed.exitCode, 0, changed.stderr)
      const shown = JSON.parse((yield* admin("partners", "show", slug)).stdout)
      assert.deepInclude(shown, {
        slug,
        name: "Delta Two",
        commission_percent: 7,
        callback_url: "https://delta.example/cb"
      })
      const listed = JSON.parse((yield* admin("partners", "list")).stdout)
      assert.isTrue(listed.some((partner: { slug: string }) => partner.slug === slug))
      const cleared = JSON.parse((yield* admin("partners", "set", slug, "--callback-url", "none")).stdout)
      assert.isNull(cleared.callback_url)
      // --env test sets the test environment's URL and leaves the live one.
      const tested = JSON.parse(
        (yield* admin("partners", "set", slug, "--env", "test", "--callback-url", "https://delta.example/test")).stdout
      )
      assert.isNull(tested.callback_url)
      assert.deepStrictEqual(
        tested.environments.map((
          e: { environment: string; callback_url: string | null }
        ) => [e.environment, e.callback_url]),
        [["live", null], ["test", "https://delta.example/test"]]
      )
    }))

  it.effect("set --player-mode (audited); clear-test-data prints the counts and leaves live players", () =>
    Effect.gen(function*() {
      const created = JSON.parse((yield* admin("partners", "create", "--name", "Shadowed")).stdout)
      assert.strictEqual(JSON.parse((yield* admin("partners", "show", created.slug)).stdout).player_mode, "persisted")
      const shadow = yield* admin("partners", "set", created.slug, "--player-mode", "shadow")
      assert.strictEqual(shadow.exitCode, 0, shadow.stderr)
      assert.strictEqual(JSON.parse(shadow.stdout).player_mode, "shadow")
      const wrong = yield* admin("partners", "set", created.slug, "--player-mode", "hidden")
      assert.notStrictEqual(wrong.exitCode, 0)
      assert.match(wrong.stderr, /persisted|shadow/)
      const sql = yield* SqlClient.SqlClient
      const trail = yield* sql<{ action: string; after: unknown }>`
        SELECT action, after FROM admin_audit WHERE target = ${`partner:${created.slug}`} ORDER BY id`
      assert.deepStrictEqual(trail.map((row) => [row.action, row.after]).slice(1), [["partner.set-player-mode", {
        player_mode: "shadow"
      }]])

      for (const [environment, external] of [["live", "kept"], ["test", "kept"], ["test", "gone"]]) {
        yield* sql`INSERT INTO partner_players (partner_id, environment, external_player_id, currency, balance)
                   VALUES (${created.id}, ${environment}, ${external}, 'BRL', 1000)`
      }
      const cleared = yield* admin("partners", "clear-test-data", created.slug)
      assert.strictEqual(cleared.exitCode, 0, cleared.stderr)
      assert.deepStrictEqual(JSON.parse(cleared.stdout), {
        id: created.id,
        slug: created.slug,
        environment: "test",
        cleared: { players: 2, rounds: 0, transactions: 0, callbacks: 0, statements: 0 }
      })
      const left = yield* sql<
        { environment: string }
      >`SELECT environment FROM partner_players WHERE partner_id = ${created.id}`
      assert.deepStrictEqual(left.map((row) => row.environment), ["live"])
      const unknown = yield* admin("partners", "clear-test-data", "no-such-partner")
      assert.notStrictEqual(unknown.exitCode, 0)
    }))

  it.effect("set --currency and --currencies (audited, checked against CRYPTO_CURRENCIES); default and all clear them", () =>
    Effect.gen(function*() {
      const withCrypto = adminCli({ CRYPTO_CURRENCIES: "BTC,mBTC" })
      const created = JSON.parse((yield* admin("partners", "create", "--name", "Currencies")).stdout)
      const shown = JSON.parse((yield* admin("partners", "show", created.slug)).stdout)
      assert.deepStrictEqual([shown.default_currency, shown.currencies], [null, null])

      const set = yield* withCrypto("partners", "set", created.slug, "--currency", "mBTC", "--currencies", "mBTC, BRL")
      assert.strictEqual(set.exitCode, 0, set.stderr)
      assert.deepStrictEqual([JSON.parse(set.stdout).default_currency, JSON.parse(set.stdout).currencies], [
        "mBTC",
        ["mBTC", "BRL"]
      ])
      const listed = JSON.parse((yield* admin("partners", "list")).stdout)
      assert.deepStrictEqual(listed.find((partner: { slug: string }) => partner.slug === created.slug).currencies, [
        "mBTC",
        "BRL"
      ])

      const refusals = [
        [["--currency", "mBTC"], /"mBTC" is not a currency this deployment accepts.*CRYPTO_CURRENCIES/],
        [["--currency", "EUR"], /The default currency EUR is not among the partner's currencies \(mBTC, BRL\)/],
        [["--currencies", "brl"], /"brl", which is not a currency this deployment accepts \(did you mean BRL\?\)/],
        [["--currencies", ","], /1 to 64 codes \(0 given\)/]
      ] as const
      for (const [args, message] of refusals) {
        const refused = yield* admin("partners", "set", created.slug, ...args)
        assert.notStrictEqual(refused.exitCode, 0, args.join(" "))
        assert.match(refused.stderr, message, args.join(" "))
      }

      const cleared = yield* admin("partners", "set", created.slug, "--currency", "default", "--currencies", "all")
      assert.strictEqual(cleared.exitCode, 0, cleared.stderr)
      assert.deepStrictEqual([JSON.parse(cleared.stdout).default_currency, JSON.parse(cleared.stdout).currencies], [
        null,
        null
      ])
      const sql = yield* SqlClient.SqlClient
      const trail = yield* sql<{ action: string; before: unknown; after: unknown }>`
        SELECT action, before, after FROM admin_audit WHERE target = ${`partner:${created.slug}`} ORDER BY id`
      assert.deepStrictEqual(trail.slice(1).map((row) => [row.action, row.before, row.after]), [
        [
          "partner.set-currencies",
          { default_currency: null, currencies: null },
          { default_currency: "mBTC", currencies: ["mBTC", "BRL"] }
        ],
        [
          "partner.set-currencies",
          { default_currency: "mBTC", currencies: ["mBTC", "BRL"] },
          { default_currency: null, currencies: null }
        ]
      ], "a refused change records nothing")
    }))

  it.effect("set --rate-limit gives a partner its own limit, which the running service applies; default clears it", () =>
    Effect.gen(function*() {
      const created = JSON.parse((yield* admin("partners", "create", "--name", "Limited", "--rate-limit", "50")).stdout)
      assert.strictEqual(JSON.parse((yield* admin("partners", "show", created.slug)).stdout).rate_limit_per_minute, 50)
      const set = yield* admin("partners", "set", created.slug, "--rate-limit", "2")
      assert.strictEqual(set.exitCode, 0, set.stderr)
      assert.strictEqual(JSON.parse(set.stdout).rate_limit_per_minute, 2)
      const listed = JSON.parse((yield* admin("partners", "list")).stdout)
      assert.strictEqual(
        listed.find((partner: { slug: string }) => partner.slug === created.slug).rate_limit_per_minute,
        2
      )
      // The service hears of the change (NOTIFY) and answers by the new limit.
      yield* eventuallyHolds(
        statusOnTheWire(created.token),
        (response) => response.headers["ratelimit-limit"] === "2",
        "limit 2"
      )
      yield* eventuallyHolds(statusOnTheWire(created.token), (response) => response.status === 429, "status 429")

      const cleared = yield* admin("partners", "set", created.slug, "--rate-limit", "default")
      assert.strictEqual(cleared.exitCode, 0, cleared.stderr)
      assert.isNull(JSON.parse(cleared.stdout).rate_limit_per_minute)
      yield* eventuallyHolds(
        statusOnTheWire(created.token),
        (response) => response.headers["ratelimit-limit"] === "1200",
        "limit 1200"
      )

      const wrongs = ["0", "1.5", "lots"]
      const refusals = yield* Effect.forEach(
        wrongs,
        (wrong) => admin("partners", "set", created.slug, "--rate-limit", wrong),
        {
          concurrency: 3
        }
      )
      refusals.forEach((refused, i) => {
        assert.notStrictEqual(refused.exitCode, 0, wrongs[i])
        assert.match(refused.stderr, /rate limit/i, wrongs[i])
      })
    }))

  it.effect("bad arguments get a clear message and a non-zero exit", () =>
    Effect.gen(function*() {
      const cases: Array<[Array<string>, RegExp]> = [
        [["partners", "create"], /--name/],
        [["partners", "create", "--name", "X", "--commission", "150"], /commission.*between 0 and 100/i],
        [["partners", "create", "--name", "X", "--callback-url", "ftp://x"], /callback URL/],
        [["partners", "create", "--name", "X", "--slug", "Not A Slug"], /slug/],
        [["partners", "create", "--name", "X", "--status", "paused"], /status/],
        [["partners", "show", "no-such-partner"], /No partner with slug "no-such-partner"/],
        [["partners", "deactivate", "no-such-partner"], /No partner/],
        [["partners", "set", "no-such-partner"], /Nothing to change/],
        [["partners", "frobnicate"], /Unknown subcommand/]
      ]
      const results = yield* Effect.forEach(cases, ([args]) => admin(...args), { concurrency: 4 })
      cases.forEach(([args, message], i) => {
        assert.notStrictEqual(results[i].exitCode, 0, args.join(" "))
        assert.match(results[i].stderr, message, args.join(" "))
      })
      yield* admin("partners", "create", "--name", "Echo", "--slug", "echo")
      const duplicate = yield* admin("partners", "create", "--name", "Echo", "--slug", "echo")
      assert.notStrictEqual(duplicate.exitCode, 0)
      assert.match(duplicate.stderr, /already exists/)
    }))

  it.effect("casino: sync, then switch a game and a provider off and on; running services follow at once", () =>
    Effect.gen(function*() {
      const synced = yield* admin("casino", "sync")
      assert.strictEqual(synced.exitCode, 0, synced.stderr)
      const report = JSON.parse(synced.stdout)
      assert.deepStrictEqual(report.providers, { added: 12, changed: 0, absent: 0 })
      assert.isAbove(report.games.added, 300)
      const { token } = yield* givenPartner()
      const client = yield* partnerClient(token)
      const gameEnabled = (code: string) =>
        Effect.map(
          client.casino.games({ query: { search: code } }),
          (response) => response.data.games.find((g) => g.game_code === code)?.enabled
        )
      const providerListed = (slug: string) =>
        Effect.map(client.casino.providers(), (response) => response.data.list.some((p) => p.provider === slug))
      const until = <A, E, R>(read: Effect.Effect<A, E, R>, expected: A) =>
        Effect.gen(function*() {
          const started = Date.now()
          while ((yield* read) !== expected) {
            if (Date.now() - started > 10_000) return yield* Effect.die(`never became ${String(expected)}`)
            yield* Effect.sleep("50 millis")
          }
        })

      yield* until(gameEnabled("ag-hidden-fortune"), true) // now cached by the service
      const off = yield* admin("casino", "disable-game", "aurora-gaming", "ag-hidden-fortune")
      assert.strictEqual(off.exitCode, 0, off.stderr)
      assert.isFalse(JSON.parse(off.stdout).enabled)
      yield* until(gameEnabled("ag-hidden-fortune"), false)
      yield* admin("casino", "enable-game", "aurora-gaming", "ag-hidden-fortune")
      yield* until(gameEnabled("ag-hidden-fortune"), true)

      yield* until(providerListed("red-fox-studios"), true)
      yield* admin("casino", "disable-provider", "red-fox-studios")
      yield* until(providerListed("red-fox-studios"), false)
      const listed = JSON.parse((yield* admin("casino", "providers")).stdout)
      assert.isFalse(listed.find((p: { slug: string }) => p.slug === "red-fox-studios").enabled)
      yield* admin("casino", "enable-provider", "red-fox-studios")
      yield* until(providerListed("red-fox-studios"), true)

      const unknown = yield* admin("casino", "disable-game", "aurora-gaming", "no-such-game")
      assert.notStrictEqual(unknown.exitCode, 0)
      assert.match(unknown.stderr, /No game "no-such-game"/)
      const noProvider = yield* admin("casino", "enable-provider", "nobody")
      assert.notStrictEqual(noProvider.exitCode, 0)
      assert.match(noProvider.stderr, /No casino provider "nobody"/)
    }))

  it.effect("the stored catalog does not depend on the port of the process that synced it", () =>
    Effect.gen(function*() {
      // Synced by a process with another PORT (as the CLI is, without the service's environment).
      const synced = yield* adminCli({ PORT: "1" })("casino", "sync")
      assert.strictEqual(synced.exitCode, 0, synced.stderr)
      const sql = yield* SqlClient.SqlClient
      const stored = yield* sql<{ image_url: string | null }>`SELECT image_url FROM casino_games`
      assert.isAbove(stored.length, 300)
      for (const row of stored) assert.match(row.image_url ?? "", /^\/sandbox\/casino\/art\/[\w-]+\.svg$/)

      // The service answering prefixes its own public address.
      const base = publicBaseUrl(yield* AppConfig)
      const { token } = yield* givenPartner()
      const games = (yield* (yield* partnerClient(token)).casino.games({ query: { per_page: 5 } })).data.games
      assert.lengthOf(games, 5)
      for (const game of games) {
        assert.strictEqual(game.image_url, `${base}/sandbox/casino/art/${game.game_code}.svg`)
      }
    }))
})

// The one test of the entry point itself: a real process, through npm, over a database of its own.
layer(TestDatabase, live)("admin CLI through npm, as documented", (it) => {
  it.effect("`npm run -s admin -- ...` prints only JSON on stdout", () =>
    Effect.gen(function*() {
      const url = yield* TestDatabaseUrl
      const npmAdmin = (...args: Array<string>) =>
        runCommand("npm", ["run", "-s", "admin", "--", ...args], { DATABASE_URL: url, LOG_LEVEL: "Info" })
      const created = yield* npmAdmin("partners", "create", "--name", "Piped Co")
      assert.strictEqual(created.exitCode, 0, created.stderr)
      assert.strictEqual(JSON.parse(created.stdout).slug, "piped-co")
      const listed = yield* npmAdmin("partners", "list")
      assert.strictEqual(listed.exitCode, 0, listed.stderr)
      assert.include(JSON.parse(listed.stdout).map((partner: { slug: string }) => partner.slug), "piped-co")
      // A failure: nothing on stdout, the reason on stderr, a non-zero exit.
      const missing = yield* npmAdmin("partners", "show", "nobody")
      assert.notStrictEqual(missing.exitCode, 0)
      assert.strictEqual(missing.stdout, "")
      assert.match(missing.stderr, /nobody/)
    }))
})
