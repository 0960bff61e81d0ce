import { Effect } from "effect"
import type { Minor } from "../../src/domain/Money.ts"
import { PartnerPlayers } from "../../src/partners/PartnerPlayers.ts"
import { Wallet } from "../../src/wallet/Wallet.ts"

/**
 * A test player of BRL 1,000.00 and one sandbox bet of theirs settled through the wallet, for the handler specs that
 * read a ledger (the console's and the portal's wallet groups) over memory. The stake and win are in BRL cents.
 */
export const givenTestBet = (
  partnerId: number,
  txnId: string,
  amounts: { readonly bet: Minor | number; readonly win: Minor | number },
  currency = "BRL"
) =>
  Effect.gen(function*() {
    const player = yield* PartnerPlayers.use((players) =>
      players.arrive({
        partnerId,
        environment: "test",
        externalPlayerId: "p-1",
        currency,
        name: null,
        email: null,
        balance: 100_000n
      })
    )
    yield* Wallet.use((wallet) =>
      wallet.handle({
        _tag: "DebitAndCredit",
        aggregator: "sandbox",
        userCode: player.internalUserId,
        txnId,
        roundId: "r-1",
        bet: BigInt(amounts.bet),
        win: BigInt(amounts.win),
        gameCode: "g",
        providerCode: "p"
      }, "test")
    )
    return player
  })
