/**
 * The operator's admin CLI, as a program: `scripts/admin.ts` runs it on the process's arguments
 * (`npm run -s admin -- <command>`), tests run it in-process on theirs. Results are JSON on stdout;
 * logs and errors go to stderr; failures exit non-zero.
 */
import { Console, Effect, Layer, Logger, Option, References, Schema, Stdio } from "effect"
import { Argument, CliError, Command, Flag } from "effect/cli"
import { CallbackDetail } from "../../src/api/Callbacks.ts"
import { entryOnWire, WalletTransactionEntryCodec } from "../../src/api/Wallet.ts"
import type { LedgerEntry } from "../../src/domain/Wallet.ts"
import type { CallbackView } from "../../src/domain/Callbacks.ts"
import { CallbackOutbox } from "../../src/wallet/outbox/CallbackOutbox.ts"
import { WalletLedger } from "../../src/wallet/WalletLedger.ts"
import { CasinoCatalog } from "../../src/casino/CasinoCatalog.ts"
import { CallbackAdmin } from "../../src/changes/CallbackAdmin.ts"
import { CasinoAdmin } from "../../src/changes/CasinoAdmin.ts"
import { CasinoSyncAdmin } from "../../src/changes/CasinoSyncAdmin.ts"
import { CasinoGame, CasinoProvider } from "../../src/domain/Casino.ts"
import { Partners } from "../../src/partners/Partners.ts"
import * as Database from "../../src/platform/Database.ts"
import { ConfigLive } from "../../src/processLayers.ts"
import { AdminLayers } from "./layers.ts"
import { adminsCommand, auditCommand, cliActor } from "./accounts.ts"
import { partnersCommand } from "./partners.ts"
import { printJson, userFacing } from "./output.ts"

const providerRef = Argument.String("provider").pipe(Argument.withDescription("The provider's id or slug"))
const gameCode = Argument.String("game-code").pipe(Argument.withDescription("The game's code"))

// The catalog as the CLI prints it: the domain's fields in its order, under their snake_case names.
const encodeProvider = Schema.encodeSync(
  Schema.Struct(CasinoProvider.fields).pipe(Schema.encodeKeys({ upstreamCode: "upstream_code" }))
)
const encodeGame = Schema.encodeSync(
  Schema.Struct(CasinoGame.fields).pipe(Schema.encodeKeys({
    gameCode: "game_code",
    providerId: "provider_id",
    providerSlug: "provider_slug",
    providerUpstreamCode: "provider_upstream_code",
    imageUrl: "image_url"
  }))
)

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
    yield* printJson((yield* catalog.allProviders).map((provider) => encodeProvider(provider)))
  })).pipe(
    Command.withDescription("List every provider in the local catalog, enabled or not"),
    Command.provide(AdminLayers.casinoCatalog)
  )

const setProviderEnabled = (command: "enable-provider" | "disable-provider") =>
  Command.make(command, { provider: providerRef }, ({ provider }) =>
    Effect.gen(function*() {
      const catalog = yield* CasinoAdmin
      const changed = yield* userFacing(catalog.setProviderEnabled(cliActor, provider, command === "enable-provider"))
      yield* printJson(encodeProvider(changed))
    })).pipe(
      Command.withDescription(
        command === "enable-provider"
          ? "Offer a provider's games again (when the aggregator lists them)"
          : "Stop offering a provider and its games; syncs do not undo this"
      ),
      Command.provide(AdminLayers.casinoCatalog)
    )

const setGameEnabled = (command: "enable-game" | "disable-game") =>
  Command.make(command, { provider: providerRef, gameCode }, ({ gameCode, provider }) =>
    Effect.gen(function*() {
      const catalog = yield* CasinoAdmin
      yield* printJson(
        encodeGame(yield* userFacing(catalog.setGameEnabled(cliActor, provider, gameCode, command === "enable-game")))
      )
    })).pipe(
      Command.withDescription(
        command === "enable-game"
          ? "Offer a game again (when the aggregator lists it)"
          : "Stop offering a game; syncs do not undo this"
      ),
      Command.provide(AdminLayers.casinoCatalog)
    )

const aliasName = Argument.String("alias").pipe(
  Argument.withDescription("The provider name taken as another studio's, as typed (\"PG Soft Games\") or its key")
)

const aliasList = Command.make("list", {}, () =>
  Effect.gen(function*() {
    const catalog = yield* CasinoCatalog
    const aliases = [...(yield* catalog.studioAliases)].map(([alias, studio]) => ({ alias, studio }))
    yield* printJson(aliases.sort((a, b) => a.alias.localeCompare(b.alias)))
  })).pipe(Command.withDescription("The studio aliases kept (alias key -> studio key)"))

const aliasSet = Command.make("set", {
  alias: aliasName,
  studio: Argument.String("studio").pipe(Argument.withDescription("The studio's name, as typed, or its key"))
}, ({ alias, studio }) =>
  Effect.gen(function*() {
    const catalog = yield* CasinoAdmin
    yield* printJson(yield* userFacing(catalog.setStudioAlias(cliActor, alias, studio)))
  })).pipe(Command.withDescription("Take a provider name as another studio's (no chains); audited"))

const aliasRemove = Command.make("remove", { alias: aliasName }, ({ alias }) =>
  Effect.gen(function*() {
    const catalog = yield* CasinoAdmin
    yield* printJson(yield* userFacing(catalog.removeStudioAlias(cliActor, alias)))
  })).pipe(Command.withDescription("Remove a studio alias; audited"))

const casinoAlias = Command.make("alias").pipe(
  Command.withDescription("The studio aliases: names the matching across aggregators misses, joined"),
  Command.withSubcommands([aliasList, aliasSet, aliasRemove]),
  Command.provide(AdminLayers.casinoCatalog)
)

const casinoCommand = Command.make("casino").pipe(
  Command.withDescription("The local casino catalog"),
  Command.withSubcommands([
    casinoSync,
    casinoProviders,
    setProviderEnabled("enable-provider"),
    setProviderEnabled("disable-provider"),
    setGameEnabled("enable-game"),
    setGameEnabled("disable-game"),
    casinoAlias
  ])
)

// Results are printed in the admin API's wire form (snake_case, amounts in units, ISO dates): the contract's codecs.
const encodeWire = Schema.encodeSync(WalletTransactionEntryCodec)
const encodeEntry = (entry: LedgerEntry) => encodeWire(entryOnWire(entry))
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
  })).pipe(
    Command.withDescription("Show callbacks sent to partners: bets answered at once, notifications and their delivery")
  )

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
  kind: Flag.Literals("kind", ["bet", "refund"]).pipe(
    Flag.withDescription("Only the bet or only the refund"),
    Flag.optional
  )
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
  Command.withSubcommands([
    partnersCommand,
    casinoCommand,
    callbacksCommand,
    walletCommand,
    adminsCommand,
    auditCommand
  ])
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
  Effect.catchTag(
    "ConfigError",
    (error) =>
      Effect.andThen(Console.error(`Invalid configuration: ${error.message}`), Effect.sync(() => process.exit(1)))
  )
)
