import { Console, Effect } from "effect"
import { Argument, CliError } from "effect/cli"

/** What a command prints on stdout: JSON, indented for a person and parsed as it is by a script. */
export const printJson = (value: unknown) => Console.log(JSON.stringify(value, null, 2))

/** Domain failures become a one-line message for the operator and exit code 1. */
export const userFacing = <A, R>(effect: Effect.Effect<A, { readonly message: string }, R>) =>
  Effect.mapError(effect, (error) => new CliError.UserError({ cause: error, userMessage: error.message }))

/** The partner a command is about, by its slug. */
export const slug = Argument.String("slug").pipe(Argument.withDescription("The partner's slug"))
