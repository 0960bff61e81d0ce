import { Clock, Effect, Layer } from "effect"
import { answer } from "./SportsSandbox.ts"
import { makeSportsProvider, SportsProvider } from "./SportsProvider.ts"

/** The sandbox: the simulated world, answered in-process through the same adapter as BetsAPI. */
export const SandboxProviderLive = Layer.effect(
  SportsProvider,
  makeSportsProvider({
    name: "sandbox",
    configured: true,
    transport: {
      call: (path, params) => Effect.map(Clock.currentTimeMillis, (now) => answer(path, params, now))
    }
  })
)
