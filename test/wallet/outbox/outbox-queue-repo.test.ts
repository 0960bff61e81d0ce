/**
 * The players' delivery queues in their two forms answer alike: the same spec (OutboxQueueSpec.ts) over PostgreSQL
 * and over memory, the notifications written by the wallet's repository of the same form.
 */
import { outboxQueueSpec } from "./OutboxQueueSpec.ts"
import { overBothForms } from "./OutboxRepoForms.ts"

overBothForms("the delivery queues", outboxQueueSpec)
