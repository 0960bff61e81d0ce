import { Clock, Effect, Layer } from "effect"
import { makeSportsProvider, SportsProvider } from "../../sports/SportsProvider.ts"
import { protocol } from "../betsapi/BetsApiAnswers.ts"
import { answer } from "./SandboxSportsAnswers.ts"

/** The sandbox sports provider: the sandbox's simulated sports data, answered in-process in BetsAPI's protocol. */
export const SandboxSportsProviderLive = Layer.effect(
  SportsProvider,
  makeSportsProvider({
    name: "sandbox",
    configured: true,
    transport: {
      call: (path, params) => Effect.map(Clock.currentTimeMillis, (now) => answer(path, params, now))
    },
    protocol
  })
)
