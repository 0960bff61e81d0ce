import { Layer } from "effect"
import { RateLimiter } from "effect/persistence"

/**
 * The service's one RateLimiter, over one store: the sports provider's
 * hourly quota and each partner's allowance on the partner API are counted
 * there. In this process's memory; effect's Redis store
 * (`RateLimiter.layerStoreRedis`) in its place makes every instance share
 * the same counters, a change of this one layer.
 */
export const RateLimiterLive = RateLimiter.layer.pipe(Layer.provide(RateLimiter.layerStoreMemory))
