import { Schema } from "effect"

/** What a session endpoint answers when there is nothing else to say (logged out, password changed). */
export const Done = Schema.Struct({ success: Schema.Literal(true), message: Schema.String })
