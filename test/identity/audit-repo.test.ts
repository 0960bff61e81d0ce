/**
 * AuditRepo's two forms answer alike: the same spec (AuditRepoSpec.ts) over PostgreSQL and over memory.
 */
import { layer } from "@effect/vitest"
import { Layer } from "effect"
import { AuditRepo } from "../../src/identity/AuditRepo.ts"
import { TestDatabase } from "../support/TestDatabase.ts"
import { auditRepoSpec } from "./AuditRepoSpec.ts"

layer(AuditRepo.layerSql.pipe(Layer.provide(TestDatabase)))("AuditRepo over PostgreSQL", auditRepoSpec)

layer(AuditRepo.layerMemory)("AuditRepo over memory", auditRepoSpec)
