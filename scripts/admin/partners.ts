/** The admin CLI's `partners` commands: partners, their tokens, settings and test data, their certification and portal users. */
import { Console, Effect, Option } from "effect"
import { CliError, Command, Flag } from "effect/cli"
import { PartnerAdmin } from "../../src/changes/PartnerAdmin.ts"
import { CertificationAdmin } from "../../src/changes/CertificationAdmin.ts"
import { partnerViews, viewPartner } from "../../src/admin/PartnerView.ts"
import { encodePartnerView } from "../../src/api/admin/AdminPartners.ts"
import type { Partner } from "../../src/domain/Partner.ts"
import { parseRtpPolicy } from "../../src/domain/RtpPolicy.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Partners } from "../../src/partners/Partners.ts"
import { AdminLayers } from "./layers.ts"
import { cliActor } from "./accounts.ts"
import { explainCallbackRefusal, noteIfPrivate } from "./callbackUrls.ts"
import { certifications, certify } from "./certification.ts"
import { printJson, slug, userFacing } from "./output.ts"
import { partnerUserCommands } from "./partnerUsers.ts"

const commission = Flag.Finite("commission").pipe(
  Flag.withDescription("Commission percent, 0 to 100"),
  Flag.optional
)
const callbackUrl = Flag.String("callback-url").pipe(
  Flag.withDescription(
    "Where wallet callbacks for this partner's players go (http:// or https://); \"none\" clears it"
  ),
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
    yield* printJson(encodePartnerView(yield* viewPartner(yield* Partners, yield* PartnerPlayers, partner)))
  })
const rateLimit = Flag.String("rate-limit").pipe(
  Flag.withDescription(
    "Requests a minute this partner may send to the partner API; \"default\" follows PARTNER_RATE_LIMIT"
  ),
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
            userMessage:
              `Invalid RTP policy: "${text}". Use pass, clamp:MIN-MAX (like clamp:85-96, MIN not above MAX) or ` +
              "fixed:VALUE (like fixed:94), with whole percents from 0 to 100."
          })
        )
    }
  })

/** `--currency`: a code, or `default` (back to the deployment's DEFAULT_CURRENCY); checked by the service. */
const toDefaultCurrency = (value: Option.Option<string>) =>
  Option.map(value, (text) => text.trim().toLowerCase() === "default" ? null : text.trim()).pipe(Option.getOrUndefined)

/** `--currencies`: codes separated by commas, or `all` (every currency the deployment enables); checked by the service. */
const toCurrencies = (value: Option.Option<string>) =>
  Option.map(value, (text) =>
    text.trim().toLowerCase() === "all"
      ? null
      : text.split(",").map((code) => code.trim()).filter((code) => code !== "")).pipe(Option.getOrUndefined)

const toCallbackUrl = (value: Option.Option<string>) =>
  Option.map(value, (url) => url === "none" ? null : url).pipe(Option.getOrUndefined)

const create = Command.make("create", {
  name,
  slug: Flag.String("slug").pipe(
    Flag.withDescription("URL-safe id; derived from the name when omitted"),
    Flag.optional
  ),
  status: Flag.Literals("status", ["active", "inactive"]).pipe(Flag.withDefault("active" as const)),
  commission,
  callbackUrl,
  testCallbackUrl: Flag.String("test-callback-url").pipe(
    Flag.withDescription(
      "Where the test environment's wallet callbacks go; omitted: the sandbox's partner wallet answers"
    ),
    Flag.optional
  ),
  rateLimit
}, (input) =>
  Effect.gen(function*() {
    const partners = yield* PartnerAdmin
    const { partner, test, token, webhookSecret } = yield* userFacing(explainCallbackRefusal(partners.create(cliActor, {
      name: input.name,
      slug: Option.getOrUndefined(input.slug),
      status: input.status,
      commissionPercent: Option.getOrUndefined(input.commission),
      callbackUrl: toCallbackUrl(input.callbackUrl),
      testCallbackUrl: toCallbackUrl(input.testCallbackUrl),
      rateLimitPerMinute: yield* toRateLimit(input.rateLimit)
    })))
    yield* noteIfPrivate(input.callbackUrl)
    yield* noteIfPrivate(input.testCallbackUrl)
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
    yield* printJson(
      (yield* partnerViews(partners, yield* PartnerPlayers, yield* partners.list)).map((view) =>
        encodePartnerView(view)
      )
    )
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
      const partner = yield* userFacing(
        partners.setStatus(cliActor, slug, command === "activate" ? "active" : "inactive")
      )
      yield* printPartner(partner)
    })).pipe(Command.withDescription(
      command === "activate"
        ? "Let the partner's token in again"
        : "Refuse the partner's token (within AUTH_CACHE_TTL on running services)"
    ))

const rotateToken = Command.make(
  "rotate-token",
  { slug, environment },
  ({ environment, slug }) =>
    Effect.gen(function*() {
      const partners = yield* PartnerAdmin
      const { partner, token } = yield* userFacing(partners.rotateToken(cliActor, slug, environment))
      yield* Console.log(JSON.stringify({ id: partner.id, slug: partner.slug, environment, token }))
    })
).pipe(Command.withDescription(
  "Issue a new token for the environment (--env, live by default; shown only this once); its old one stops working, " +
    "the other environment's is untouched. A partner created before environments gets its first test token this way."
))

const rotateWebhookSecret = Command.make(
  "rotate-webhook-secret",
  { slug, environment },
  ({ environment, slug }) =>
    Effect.gen(function*() {
      const partners = yield* PartnerAdmin
      const { partner, webhookSecret } = yield* userFacing(partners.rotateWebhookSecret(cliActor, slug, environment))
      yield* Console.log(
        JSON.stringify({ id: partner.id, slug: partner.slug, environment, webhook_secret: webhookSecret })
      )
    })
).pipe(Command.withDescription(
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
  ),
  currency: Flag.String("currency").pipe(
    Flag.withDescription(
      "The currency of a launch that names none (a code such as BRL, EUR or mBTC); \"default\" follows the " +
        "deployment's DEFAULT_CURRENCY"
    ),
    Flag.optional
  ),
  currencies: Flag.String("currencies").pipe(
    Flag.withDescription(
      "The only currencies its launches may be in, separated by commas (e.g. BRL,USD,USDT; 1 to 64, the default " +
        "among them); \"all\" allows every currency the deployment enables"
    ),
    Flag.optional
  )
}, (input) =>
  Effect.gen(function*() {
    const settings: ReadonlyArray<Option.Option<unknown>> = [
      input.commission,
      input.callbackUrl,
      input.name,
      input.rateLimit
    ]
    const others = [input.playerMode, input.rtpPolicy, input.currency, input.currencies, input.requireCertification]
    if ([...settings, ...others].every(Option.isNone)) {
      return yield* new CliError.UserError({
        cause: "nothing to change",
        userMessage: "Nothing to change: pass --commission, --callback-url, --rate-limit, --name, --player-mode, " +
          "--rtp-policy, --currency, --currencies or --require-certification."
      })
    }
    const rtpPolicy = yield* toRtpPolicy(input.rtpPolicy)
    const partners = yield* PartnerAdmin
    // The player mode is a change of its own in the audit trail; only it given, no empty partner.update is recorded.
    const partner = settings.every(Option.isNone)
      ? yield* userFacing((yield* Partners).show(input.slug))
      : yield* userFacing(explainCallbackRefusal(partners.update(cliActor, input.slug, {
        name: Option.getOrUndefined(input.name),
        commissionPercent: Option.getOrUndefined(input.commission),
        // --callback-url is the environment's (--env); the rest are the partner's, the same in both.
        [input.environment === "live" ? "callbackUrl" : "testCallbackUrl"]: toCallbackUrl(input.callbackUrl),
        rateLimitPerMinute: yield* toRateLimit(input.rateLimit)
      })))
    yield* noteIfPrivate(input.callbackUrl)
    if (Option.isSome(input.playerMode)) {
      yield* userFacing(partners.setPlayerMode(cliActor, partner.slug, input.playerMode.value))
    }
    // Audited on its own (partner.set-rtp-policy), as the player mode.
    const withRtp = rtpPolicy === undefined
      ? partner
      : yield* userFacing(partners.setRtpPolicy(cliActor, partner.slug, rtpPolicy))
    // Both currency settings in one change (partner.set-currencies), judged together: the default among the list.
    const saved = Option.isNone(input.currency) && Option.isNone(input.currencies)
      ? withRtp
      : yield* userFacing(partners.setCurrencies(cliActor, partner.slug, {
        defaultCurrency: toDefaultCurrency(input.currency),
        currencies: toCurrencies(input.currencies)
      }))
    if (Option.isNone(input.requireCertification)) return yield* printPartner(saved)
    // The setting is the wallet certification's; its answer says whether it withdrew the live token.
    const set = yield* userFacing(
      (yield* CertificationAdmin).setRequired(cliActor, saved.slug, input.requireCertification.value === "on")
    )
    yield* printJson({
      ...encodePartnerView(yield* viewPartner(yield* Partners, yield* PartnerPlayers, set.partner)),
      certification_required: set.required,
      live_token_withdrawn: set.liveTokenWithdrawn
    })
  })).pipe(Command.withDescription(
    "Change a partner's name, commission, rate limit, player mode, RTP policy, currencies, wallet certification " +
      "requirement, or the " +
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

export const partnersCommand = Command.make("partners").pipe(
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
