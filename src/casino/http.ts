import { Effect } from "effect"
import { HttpApiBuilder } from "effect/http-api"
import { PartnerApi } from "../api/Api.ts"
import { servedApi } from "../platform/QueryOnce.ts"
import {
  gameQueryOf,
  gamesAnswer,
  gamesFailures,
  launchAnswer,
  launchFailures,
  playerLaunchOf,
  providersAnswer
} from "../api/Casino.ts"
import { respond } from "../api/Respond.ts"
import { AppConfig, publicBaseUrl } from "../platform/AppConfig.ts"
import { Casino } from "./Casino.ts"
import { CasinoCatalog } from "./CasinoCatalog.ts"

/** The casino group: the catalog and launches of the casino the token reaches (PartnerUpstreams). */
export const CasinoHandlers = HttpApiBuilder.group(
  servedApi(PartnerApi),
  "casino",
  Effect.fn(function*(handlers) {
    const games = gamesAnswer(publicBaseUrl(yield* AppConfig))
    return handlers
      .handle(
        "providers",
        () => respond(() => CasinoCatalog.use((catalog) => catalog.enabledProviders), providersAnswer)
      )
      .handle(
        "games",
        ({ query }) =>
          respond(() => CasinoCatalog.use((catalog) => catalog.games(gameQueryOf(query))), games).pipe(
            Effect.catchTags(gamesFailures)
          )
      )
      .handle(
        "launch",
        ({ payload }) =>
          respond((partner) => Casino.use((casino) => casino.launch(partner, playerLaunchOf(payload))), launchAnswer)
            .pipe(
              Effect.catchTags(launchFailures)
            )
      )
  })
)
