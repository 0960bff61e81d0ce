import { Schema } from "effect"
import type { SqlClient, Statement } from "effect/sql"
import type { Minor } from "../domain/Money.ts"
import type { PlayerState } from "../domain/Partner.ts"
import { MinorFromNumeric } from "../platform/SqlCodecs.ts"

/**
 * The player's side of the ledger's atomic write: what its statements read of the player (partner_players) and how
 * they move the balance mirror, as parts of one statement. They are the ledger's (WalletRepoSql), not the players'
 * repository's: a decision, its round, its callbacks and the mirror are written together, and the SQL of that write
 * is in one place. PartnerPlayers keeps every other read and write of the table.
 */

/**
 * A CTE named `mirror` that writes the player's row, only when the CTE named `guard` produced a row: the balance set
 * (a shadow player, with no mirror, is never given one: its balance stays the partner's alone), and the count of
 * callbacks written for the player raised by the decision's (sql/0046: what a shadow player's next decision compares
 * with the count its partner was asked at).
 */
export const mirrorWriting = (
  sql: SqlClient.SqlClient,
  change: {
    readonly playerId: number
    readonly balance: Minor | null
    readonly callbacks: ReadonlyArray<{ readonly playerId: number }>
  },
  guard: string
): Statement.Fragment => {
  const setsBalance = change.balance !== null
  const written = change.callbacks.filter((callback) => callback.playerId === change.playerId).length
  return sql`mirror AS (
    UPDATE partner_players
    SET balance = CASE WHEN ${setsBalance} AND balance IS NOT NULL THEN ${
    setsBalance ? String(change.balance) : null
  }::numeric ELSE balance END,
        callbacks_written = callbacks_written + ${written}, updated_at = now()
    WHERE id = ${change.playerId} AND ((${setsBalance} AND balance IS NOT NULL) OR ${written} > 0)
      AND EXISTS (SELECT 1 FROM ${sql(guard)})
    RETURNING id
  )`
}

/**
 * A CTE named `player` with the player's state (mirror, name, e-mail) as the statement starts, and no row when the
 * player is gone (a statement that selects from it then writes nothing). Read back from the statement's columns
 * `player_balance`, `player_name` and `player_email` with PlayerStateColumns.
 */
export const playerReading = (sql: SqlClient.SqlClient, playerId: number): Statement.Fragment =>
  sql`player AS (
    SELECT balance AS player_balance, name AS player_name, email AS player_email FROM partner_players WHERE id = ${playerId}
  )`

/** The columns `playerReading` gives. */
export const PlayerStateColumns = Schema.Struct({
  player_balance: Schema.NullOr(MinorFromNumeric),
  player_name: Schema.NullOr(Schema.String),
  player_email: Schema.NullOr(Schema.String)
})

/** The player's state from those columns. */
export const playerStateOf = (row: typeof PlayerStateColumns.Type): PlayerState => ({
  balance: row.player_balance,
  name: row.player_name,
  email: row.player_email
})
