import { Clock, Effect, Layer } from "effect"
import { makeSportsProvider, SportsProvider } from "../../sports/SportsProvider.ts"
import { answer } from "./SandboxSportsAnswers.ts"

/** The sandbox sports provider: the sandbox's simulated sports data, answered in-process through the same adapter as BetsAPI. */
export const SandboxSportsProviderLive = Layer.effect(
  SportsProvider,
  makeSportsProvider({
    name: "sandbox",
    configured: true,
    transport: {
      call: (path, params) => Effect.map(Clock.currentTimeMillis, (now) => answer(path, params, now))
    }
  })
)
