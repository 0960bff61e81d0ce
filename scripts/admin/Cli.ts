/**
 * The operator's admin CLI, as a program: `scripts/admin.ts` runs it on the process's arguments
 * (`npm run -s admin -- <command>`), tests run it in-process on theirs. Results are JSON on stdout;
 * logs and errors go to stderr; failures exit non-zero.
 */
import { Console, Effect, Layer, Logger, Option, References, Schema, Stdio } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { CallbackDetail } from "../../src/api/admin/AdminWallet.ts"
import { WalletTransactionEntryCodec } from "../../src/api/Wallet.ts"
import type { CallbackView } from "../../src/domain/Callbacks.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { partnerViews, viewPartner } from "../../src/admin/PartnerView.ts"
import type { Partner } from "../../src/domain/Partner.ts"
import { parseRtpPolicy } from "../../src/domain/RtpPolicy.ts"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { CallbackAdmin, CasinoAdmin, CasinoSyncAdmin, PartnerAdmin } from "../../src/admin/AdminChanges.ts"
import { CertificationAdmin } from "../../src/admin/CertificationAdmin.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import * as Database from "../../src/platform/Database.ts"
import { AdminLayers, ConfigLive } from "../../src/server.ts"
import { adminsCommand, auditCommand, cliActor } from "./accounts.ts"
import { certifications, certify } from "./certification.ts"
import { partnerUserCommands } from "./partnerUsers.ts"

const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))


/** Domain failures become a one-line message for the operator and exit code 1. */
const userFacing = <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>) =>
  Effect.mapError(effect, (error) => new CliError.UserError({ cause: error, userMessage: error.message }))

const slug = Argument.String("slug").pipe(Argument.withDescription("The partner's slug"))
const commission = Flag.Finite("commission").pipe(
  Flag.withDescription("Commission percent, 0 to 100"),
  Flag.optional
)
const callbackUrl = Flag.String("callback-url").pipe(
  Flag.withDescription("Where wallet callbacks for this partner's players go (http:// or https://); \"none\" clears it"),
  Flag.optional
)
const name = Flag.String("name").pipe(Flag.withDescription("Display name"))
const environment = Flag.Literals("env", ["live", "test"]).pipe(
  Flag.withDescription("Which environment: live (real upstreams and wallet, the default) or test (the sandboxes only)"),
  Flag.withDefault("live" as const)
)

/** A partner as the operator sees it, both environments labelled. */
const printPartner = (partner: Partner) =>
  Effect.gen(function*() {
    yield* printJson(yield* viewPartner(yield* Partners, yield* PartnerPlayers, partner))
  })
const rateLimit = Flag.String("rate-limit").pipe(
  Flag.withDescription("Requests a minute this partner may send to the partner API; \"default\" follows PARTNER_RATE_LIMIT"),
  Flag.optional
)

/** `--rate-limit`: a whole number of requests a minute, or `default` (the service's PARTNER_RATE_LIMIT). */
const toRateLimit = (value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => {
      const trimmed = text.trim().toLowerCase()
      if (trimmed === "default") return Effect.succeed(null)
      return /^[0-9]+$/.test(trimmed)
        ? Effect.succeed(Number(trimmed))
        : Effect.fail(
          new CliError.UserError({
            cause: text,
            userMessage: `Invalid rate limit: "${text}" is neither a whole number of requests a minute nor "default".`
          })
        )
    }
  })

/** `--rtp-policy`: pass, clamp:MIN-MAX or fixed:VALUE. */
const toRtpPolicy = (value: Option.Option<string>) =>
  Option.match(value, {
    onNone: () => Effect.succeed(undefined),
    onSome: (text) => {
      const policy = parseRtpPolicy(text)
      return policy !== undefined
        ? Effect.succeed(policy)
        : Effect.fail(
          new CliError.UserError({
            cause: text,
            userMessage: `Invalid RTP policy: "${text}". Use pass, clamp:MIN-MAX (like clamp:85-96, MIN not above MAX) or ` +
              "fixed:VALUE (like fixed:94), with whole percents from 0 to 100."
          })
        )
    }
  })

const toCallbackUrl = (value: Option.Option<string>) =>
  Option.map(value, (url) => url === "none" ? null : url).pipe(Option.getOrUndefined)

const create = Command.make("create", {
  name,
  slug: Flag.String("slug").pipe(Flag.withDescription("URL-safe id; derived from the name when omitted"), Flag.optional),
  status: Flag.Literals("status", ["active", "inactive"]).pipe(Flag.withDefault("active" as const)),
  commission,
  callbackUrl,
  testCallbackUrl: Flag.String("test-callback-url").pipe(
    Flag.withDescription("Where the test environment's wallet callbacks go; omitted: the sandbox's partner wallet answers"),
    Flag.optional
  ),
  rateLimit
}, (input) =>
  Effect.gen(function*() {
    const partners = yield* PartnerAdmin
    const { partner, test, token, webhookSecret } = yield* userFacing(partners.create(cliActor, {
      name: input.name,
      slug: Option.getOrUndefined(input.slug),
      status: input.status,
      commissionPercent: Option.getOrUndefined(input.commission),
      callbackUrl: toCallbackUrl(input.callbackUrl),
      testCallbackUrl: toCallbackUrl(input.testCallbackUrl),
      rateLimitPerMinute: yield* toRateLimit(input.rateLimit)
    }))
    // The only time the tokens and the webhook secrets are shown: live at the top, test beside it.
    yield* Console.log(JSON.stringify({
      id: partner.id,
      slug: partner.slug,
      token,
      webhook_secret: webhookSecret,
      test: { token: test.token, webhook_secret: test.webhookSecret }
    }))
  })).pipe(Command.withDescription(
    "Create a partner and print its live and test tokens and webhook secrets (shown only this once)"
  ))

const list = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const partners = yield* Partners
    yield* printJson(yield* partnerViews(partners, yield* PartnerPlayers, yield* partners.list))
  })).pipe(Command.withDescription("List all partners"))

const show = Command.make("show", { slug }, ({ slug }) =>
  Effect.gen(function*() {
    const partners = yield* Partners
    yield* printPartner(yield* userFacing(partners.show(slug)))
  })).pipe(Command.withDescription("Show one partner"))

const setStatus = (command: "activate" | "deactivate") =>
  Command.make(command, { slug }, ({ slug }) =>
    Effect.gen(function*() {
      const partners = yield* PartnerAdmin
      const partner = yield* userFacing(partners.setStatus(cliActor, slug, command === "activate" ? "active" : "inactive"))
      yield* printPartner(partner)
    })).pipe(Command.withDescription(
      command === "activate"
        ? "Let the partner's token in again"
        : "Refuse the partner's token (within AUTH_CACHE_TTL on running services)"
    ))

const rotateToken = Command.make("rotate-token", { slug, environment }, ({ environment, slug }) =>
  Effect.gen(function*() {
    const partners = yield* PartnerAdmin
    const { partner, token } = yield* userFacing(partners.rotateToken(cliActor, slug, environment))
    yield* Console.log(JSON.stringify({ id: partner.id, slug: partner.slug, environment, token }))
  })).pipe(Command.withDescription(
    "Issue a new token for the environment (--env, live by default; shown only this once); its old one stops working, " +
      "the other environment's is untouched. A partner created before environments gets its first test token this way."
  ))

const rotateWebhookSecret = Command.make("rotate-webhook-secret", { slug, environment }, ({ environment, slug }) =>
  Effect.gen(function*() {
    const partners = yield* PartnerAdmin
    const { partner, webhookSecret } = yield* userFacing(partners.rotateWebhookSecret(cliActor, slug, environment))
    yield* Console.log(JSON.stringify({ id: partner.id, slug: partner.slug, environment, webhook_secret: webhookSecret }))
  })).pipe(Command.withDescription(
    "Issue a new webhook secret for the environment (--env, live by default; shown only this once); its callbacks " +
      "carry a signature with it and, for PARTNER_WEBHOOK_SECRET_OVERLAP (24 hours), one with the previous secret too"
  ))

const set = Command.make("set", {
  slug,
  commission,
  callbackUrl,
  rateLimit,
  environment,
  name: name.pipe(Flag.optional),
  playerMode: Flag.Literals("player-mode", ["persisted", "shadow"]).pipe(
    Flag.withDescription(
      "What the service keeps of the partner's players: persisted (name, e-mail, balance mirror) or shadow (none of " +
        "them; to shadow, what was kept is forgotten at once, rounds in flight go on)"
    ),
    Flag.optional
  ),
  requireCertification: Flag.Literals("require-certification", ["on", "off"]).pipe(
    Flag.withDescription(
      "on: the live token is issued only once the partner's latest wallet certification passed (turned on without one, " +
        "the live token is withdrawn at once); off: as before"
    ),
    Flag.optional
  ),
  rtpPolicy: Flag.String("rtp-policy").pipe(
    Flag.withDescription(
      "What its launches do with the user_rtp the partner sends: pass (as sent), clamp:MIN-MAX (into that range, " +
        "e.g. clamp:85-96) or fixed:VALUE (always VALUE, whatever was sent; e.g. fixed:94); whole percents 0 to 100"
    ),
    Flag.optional
  )
}, (input) =>
  Effect.gen(function*() {
    const settings: ReadonlyArray<Option.Option<unknown>> = [input.commission, input.callbackUrl, input.name, input.rateLimit]
    if ([...settings, input.playerMode, input.rtpPolicy, input.requireCertification].every(Option.isNone)) {
      return yield* new CliError.UserError({
        cause: "nothing to change",
        userMessage: "Nothing to change: pass --commission, --callback-url, --rate-limit, --name, --player-mode, " +
          "--rtp-policy or --require-certification."
      })
    }
    const rtpPolicy = yield* toRtpPolicy(input.rtpPolicy)
    const partners = yield* PartnerAdmin
    // The player mode is a change of its own in the audit trail; only it given, no empty partner.update is recorded.
    const partner = settings.every(Option.isNone)
      ? yield* userFacing((yield* Partners).show(input.slug))
      : yield* userFacing(partners.update(cliActor, input.slug, {
        name: Option.getOrUndefined(input.name),
        commissionPercent: Option.getOrUndefined(input.commission),
        // --callback-url is the environment's (--env); the rest are the partner's, the same in both.
        [input.environment === "live" ? "callbackUrl" : "testCallbackUrl"]: toCallbackUrl(input.callbackUrl),
        rateLimitPerMinute: yield* toRateLimit(input.rateLimit)
      }))
    if (Option.isSome(input.playerMode)) yield* userFacing(partners.setPlayerMode(cliActor, partner.slug, input.playerMode.value))
    // Audited on its own (partner.set-rtp-policy), as the player mode.
    const saved = rtpPolicy === undefined ? partner : yield* userFacing(partners.setRtpPolicy(cliActor, partner.slug, rtpPolicy))
    if (Option.isNone(input.requireCertification)) return yield* printPartner(saved)
    // The setting is the wallet certification's; its answer says whether it withdrew the live token.
    const set = yield* userFacing(
      (yield* CertificationAdmin).setRequired(cliActor, saved.slug, input.requireCertification.value === "on")
    )
    yield* printJson({
      ...(yield* viewPartner(yield* Partners, yield* PartnerPlayers, set.partner)),
      certification_required: set.required,
      live_token_withdrawn: set.liveTokenWithdrawn
    })
  })).pipe(Command.withDescription(
    "Change a partner's name, commission, rate limit, player mode, RTP policy, wallet certification requirement, or the " +
      "callback URL of an environment (--env, live by default)"
  ))

const clearTestData = Command.make("clear-test-data", { slug }, ({ slug }) =>
  Effect.gen(function*() {
    const partners = yield* PartnerAdmin
    const { cleared, partner } = yield* userFacing(partners.clearTestData(cliActor, slug))
    yield* Console.log(JSON.stringify({ id: partner.id, slug: partner.slug, environment: "test", cleared }))
  })).pipe(Command.withDescription(
    "Delete the partner's test players, rounds, transactions and callbacks (audited) and print how many; no live row is touched"
  ))

const partnersCommand = Command.make("partners").pipe(
  Command.withDescription("Manage partners (operators) and their tokens"),
  Command.withSubcommands([
    create,
    list,
    show,
    setStatus("activate"),
    setStatus("deactivate"),
    rotateToken,
    rotateWebhookSecret,
    set,
    clearTestData,
    certify,
    certifications,
    ...partnerUserCommands
  ]),
  Command.provide(AdminLayers.partners)
)

const providerRef = Argument.String("provider").pipe(Argument.withDescription("The provider's id or slug"))
const gameCode = Argument.String("game-code").pipe(Argument.withDescription("The game's code"))

const casinoSync = Command.make("sync", {}, () =>
  Effect.gen(function*() {
    const sync = yield* CasinoSyncAdmin
    yield* printJson(yield* userFacing(sync.sync(cliActor)))
  })).pipe(
    Command.withDescription("Refresh the local catalog from the casino aggregator now"),
    Command.provide(AdminLayers.casinoSync)
  )

const casinoProviders = Command.make("providers", {}, () =>
  Effect.gen(function*() {
    const catalog = yield* CasinoCatalog
    yield* printJson(yield* catalog.allProviders)
  })).pipe(
    Command.withDescription("List every provider in the local catalog, enabled or not"),
    Command.provide(AdminLayers.casinoCatalog)
  )

const setProviderEnabled = (command: "enable-provider" | "disable-provider") =>
  Command.make(command, { provider: providerRef }, ({ provider }) =>
    Effect.gen(function*() {
      const catalog = yield* CasinoAdmin
      yield* printJson(yield* userFacing(catalog.setProviderEnabled(cliActor, provider, command === "enable-provider")))
    })).pipe(Command.withDescription(
      command === "enable-provider"
        ? "Offer a provider's games again (when the aggregator lists them)"
        : "Stop offering a provider and its games; syncs do not undo this"
    ), Command.provide(AdminLayers.casinoCatalog))

const setGameEnabled = (command: "enable-game" | "disable-game") =>
  Command.make(command, { provider: providerRef, gameCode }, ({ gameCode, provider }) =>
    Effect.gen(function*() {
      const catalog = yield* CasinoAdmin
      yield* printJson(yield* userFacing(catalog.setGameEnabled(cliActor, provider, gameCode, command === "enable-game")))
    })).pipe(Command.withDescription(
      command === "enable-game"
        ? "Offer a game again (when the aggregator lists it)"
        : "Stop offering a game; syncs do not undo this"
    ), Command.provide(AdminLayers.casinoCatalog))

const casinoCommand = Command.make("casino").pipe(
  Command.withDescription("The local casino catalog"),
  Command.withSubcommands([
    casinoSync,
    casinoProviders,
    setProviderEnabled("enable-provider"),
    setProviderEnabled("disable-provider"),
    setGameEnabled("enable-game"),
    setGameEnabled("disable-game")
  ])
)

// Results are printed in the admin API's wire form (snake_case, amounts in units, ISO dates): the contract's codecs.
const encodeEntry = Schema.encodeSync(WalletTransactionEntryCodec)
const encodeCallback = Schema.encodeSync(CallbackDetail)

/** A callback as the admin API shows it, without `redeliverable` (the CLI's retry says why it refuses a bet). */
const callbackView = (callback: CallbackView) => {
  const { redeliverable: _, ...shown } = encodeCallback(callback)
  return shown
}

const callbacksList = Command.make("list", {
  status: Flag.Literals("status", ["pending", "delivered", "failed"]).pipe(
    Flag.withDescription("Only callbacks in this state"),
    Flag.optional
  ),
  partner: Flag.String("partner").pipe(Flag.withDescription("Only this partner's (slug)"), Flag.optional),
  limit: Flag.Int("limit").pipe(Flag.withDescription("How many, newest first (default 50)"), Flag.withDefault(50))
}, (input) =>
  Effect.gen(function*() {
    const outbox = yield* CallbackOutbox
    const partners = yield* Partners
    const slug = Option.getOrUndefined(input.partner)
    const partner = slug === undefined ? undefined : Option.getOrNull(yield* Effect.option(partners.show(slug)))
    // A slug that names no partner has no callbacks.
    const callbacks = partner === null ? [] : yield* outbox.list({
      status: Option.getOrUndefined(input.status),
      partnerId: partner?.id,
      limit: Math.max(1, Math.min(input.limit, 1000))
    })
    yield* printJson(callbacks.map(callbackView))
  })).pipe(Command.withDescription("Show callbacks sent to partners: bets answered at once, notifications and their delivery"))

const callbacksRetry = Command.make("retry", {
  id: Argument.Int("id").pipe(Argument.withDescription("The callback's id (from callbacks list)"))
}, ({ id }) =>
  Effect.gen(function*() {
    const callbacks = yield* CallbackAdmin
    yield* printJson(callbackView(yield* userFacing(callbacks.redeliver(cliActor, id))))
  })).pipe(Command.withDescription(
    "Deliver a notification again now (same body and event id; failed, pending or already delivered)"
  ))

const callbacksCommand = Command.make("callbacks").pipe(
  Command.withDescription("Wallet callbacks sent to partners"),
  Command.withSubcommands([callbacksList, callbacksRetry]),
  Command.provide(AdminLayers.callbacks)
)

const walletShow = Command.make("show", {
  txn: Argument.String("transaction-id").pipe(Argument.withDescription("The aggregator's transaction id")),
  kind: Flag.Literals("kind", ["bet", "refund"]).pipe(Flag.withDescription("Only the bet or only the refund"), Flag.optional)
}, ({ kind, txn }) =>
  Effect.gen(function*() {
    const ledger = yield* WalletLedger
    const entries = yield* ledger.transaction({}, txn, Option.getOrUndefined(kind))
    if (entries.length === 0) {
      return yield* new CliError.UserError({ cause: txn, userMessage: `No wallet transaction with id "${txn}".` })
    }
    yield* printJson(entries.map((entry) => ({ partner_id: entry.partnerId, ...encodeEntry(entry) })))
  })).pipe(Command.withDescription("A transaction (the bet and/or refund with this id), its answer and its callbacks"))

const walletPending = Command.make("pending", {
  limit: Flag.Int("limit").pipe(Flag.withDescription("How many, oldest first (default 100)"), Flag.withDefault(100))
}, ({ limit }) =>
  Effect.gen(function*() {
    const ledger = yield* WalletLedger
    const entries = yield* ledger.pending(Math.max(1, Math.min(limit, 1000)))
    yield* printJson(entries.map((entry) => ({
      partner_id: entry.partnerId,
      pending_seconds: Math.round(entry.ageMillis / 1000),
      ...encodeEntry(entry)
    })))
  })).pipe(Command.withDescription(
    "Bets waiting for a partner's answer; past WALLET_PENDING_TIMEOUT they are settled as refused, with a rollback"
  ))

const walletCommand = Command.make("wallet").pipe(
  Command.withDescription("The wallet's ledger: transactions, their answers and callbacks"),
  Command.withSubcommands([walletShow, walletPending]),
  Command.provide(AdminLayers.wallet)
)

export const admin = Command.make("admin").pipe(
  Command.withDescription("Partner Aggregator API administration"),
  Command.withSubcommands([partnersCommand, casinoCommand, callbacksCommand, walletCommand, adminsCommand, auditCommand])
)

// Logs go to stderr so stdout stays a clean JSON result.
const StderrLogger = Layer.mergeAll(
  Logger.layer([Logger.withConsoleError(Logger.formatJson)]),
  Layer.succeed(References.MinimumLogLevel, "Warn")
)

/**
 * The CLI on these arguments. It needs the database and the configuration (`AdminBaseLive` for the
 * operator's; a test gives its own database) and prints through the Console service.
 */
export const runAdmin = (argv: ReadonlyArray<string>) =>
  Command.runWith(admin, { version: "1.0.0" })(argv).pipe(Effect.provide(StderrLogger))

/**
 * The service's own configuration and database (the embedded one, shared with a running service,
 * when DATABASE_URL is unset). Each command group builds its own services (AdminLayers) over it.
 */
export const AdminBaseLive = Database.layer.pipe(Layer.provideMerge(ConfigLive))

/** What `node scripts/admin.ts` runs: the process's arguments over AdminBaseLive; a bad setting is one line and exit 1. */
export const main = Stdio.Stdio.use(({ args }) => Effect.flatMap(args, runAdmin)).pipe(
  Effect.provide(AdminBaseLive),
  Effect.provide(StderrLogger),
  Effect.catchTag("ConfigError", (error) =>
    Effect.andThen(Console.error(`Invalid configuration: ${error.message}`), Effect.sync(() => process.exit(1))))
)
