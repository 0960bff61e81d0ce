/**
 * LoginAttemptRepo's two forms count alike: the same spec (LoginAttemptRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { LoginAttemptRepo } from "../../src/identity/LoginAttemptRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { loginAttemptRepoSpec } from "./LoginAttemptRepoSpec.ts"

layer(LoginAttemptRepo.layerSql.pipe(Layer.provide(TestDatabase)))(
  "LoginAttemptRepo over PostgreSQL",
  loginAttemptRepoSpec
)

layer(LoginAttemptRepo.layerMemory)("LoginAttemptRepo over memory", loginAttemptRepoSpec)
