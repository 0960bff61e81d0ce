import { Effect } from "effect"
import { CurrentPartnerUser } from "../../api/portal/PortalSecurity.ts"
import type { Actor } from "../../domain/Admin.ts"

/** The partner of the current session: every portal handler reads and changes this one's data only. */
export const partnerOfSession = Effect.map(Effect.service(CurrentPartnerUser), (session) => session.partner)

/** The partner user making the current request, as the audit trail names them: the change is the partner's own. */
export const portalActor = Effect.map(
  Effect.service(CurrentPartnerUser),
  (session): Actor => ({ name: session.user.email, via: "portal", role: session.user.role })
)
