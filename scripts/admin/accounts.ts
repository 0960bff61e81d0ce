/** The admin CLI's `admins` and `audit` commands, and who the CLI's changes are recorded as. */
import { Console, Effect, Option } from "effect"
import { Argument, Command, Flag } from "effect/cli"
import { hostname, userInfo } from "node:os"
import { AdminAccounts } from "../../src/identity/AdminAccounts.ts"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import type { Actor, AdminAccount } from "../../src/domain/Admin.ts"
import { AdminLayers } from "./layers.ts"
import { printJson, userFacing } from "./output.ts"

/** The CLI's changes are the machine user's: the audit trail names them and says `cli`. */
export const cliActor: Actor = { name: `${userInfo().username}@${hostname()}`, via: "cli" }

const accountView = (account: AdminAccount) => ({
  email: account.email,
  role: account.role,
  disabled: account.disabled,
  created_at: account.createdAt.toISOString()
})

const email = Argument.String("email").pipe(Argument.withDescription("The admin's e-mail"))
const role = Flag.Literals("role", ["viewer", "operator"])

const create = Command.make("create", {
  email: Flag.String("email").pipe(Flag.withDescription("The admin's e-mail (their log-in)")),
  role: role.pipe(
    Flag.withDescription("operator (changes things) or viewer (reads only)"),
    Flag.withDefault("operator" as const)
  )
}, (input) =>
  Effect.gen(function*() {
    const accounts = yield* AdminAccounts
    const { account, password } = yield* userFacing(accounts.create(cliActor, { email: input.email, role: input.role }))
    // The only time this password is shown; the console asks for a new one at the first log-in.
    yield* Console.log(JSON.stringify({ email: account.email, role: account.role, one_time_password: password }))
  })).pipe(
    Command.withDescription(
      "Create an admin and print a one-time password (good for ADMIN_ONE_TIME_PASSWORD_TTL; replaced at the first log-in at /admin)"
    )
  )

const list = Command.make(
  "list",
  {},
  () =>
    Effect.flatMap(
      Effect.service(AdminAccounts),
      (accounts) => Effect.flatMap(accounts.list, (all) => printJson(all.map(accountView)))
    )
)
  .pipe(Command.withDescription("List admin accounts"))

const resetPassword = Command.make("reset-password", { email }, ({ email }) =>
  Effect.gen(function*() {
    const { account, password } = yield* userFacing((yield* AdminAccounts).resetPassword(cliActor, email))
    yield* Console.log(JSON.stringify({ email: account.email, one_time_password: password }))
  })).pipe(
    Command.withDescription(
      "Issue a new one-time password (good for ADMIN_ONE_TIME_PASSWORD_TTL); the admin's sessions end and lock-outs lift"
    )
  )

const setRole = Command.make(
  "set-role",
  { email, role: role.pipe(Flag.withDescription("The new role")) },
  (input) =>
    Effect.gen(function*() {
      yield* printJson(
        accountView(yield* userFacing((yield* AdminAccounts).setRole(cliActor, input.email, input.role)))
      )
    })
).pipe(Command.withDescription("Change an admin's role; their sessions end"))

const setDisabled = (command: "disable" | "enable") =>
  Command.make(command, { email }, ({ email }) =>
    Effect.gen(function*() {
      yield* printJson(
        accountView(yield* userFacing((yield* AdminAccounts).setDisabled(cliActor, email, command === "disable")))
      )
    })).pipe(
      Command.withDescription(
        command === "disable" ? "Refuse an admin's log-ins; their sessions end" : "Let an admin log in again"
      )
    )

export const adminsCommand = Command.make("admins").pipe(
  Command.withDescription("Accounts of the operator console (/admin)"),
  Command.withSubcommands([create, list, resetPassword, setRole, setDisabled("disable"), setDisabled("enable")]),
  Command.provide(AdminLayers.admins)
)

const auditList = Command.make("list", {
  target: Flag.String("target").pipe(
    Flag.withDescription("Only changes of this (partner:acme, admin:ana@example.com, ...)"),
    Flag.optional
  ),
  limit: Flag.Int("limit").pipe(Flag.withDescription("How many, newest first (default 50)"), Flag.withDefault(50))
}, (input) =>
  Effect.gen(function*() {
    const audit = yield* AuditRepo
    const entries = yield* audit.list({
      target: Option.getOrUndefined(input.target),
      limit: Math.max(1, Math.min(input.limit, 1000))
    })
    yield* printJson(entries.map((entry) => ({ ...entry, at: entry.at.toISOString() })))
  })).pipe(Command.withDescription("Changes made through the console or the CLI: who, what, when, before and after"))

export const auditCommand = Command.make("audit").pipe(
  Command.withDescription("The audit trail"),
  Command.withSubcommands([auditList]),
  Command.provide(AdminLayers.audit)
)
