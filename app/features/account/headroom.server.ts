// What is left of the monthly cap of the team member a request works as: read for every page while
// working as a team (the header and the tool pages show it, and the tools refuse a run past it before
// uploading). The charge checks the cap again under the member's lock (chargeRun), so this is only
// what the screens say, never what lets a run through.
import { getDb, type DbOrTx } from '~/db/db.server'
import { memberCap } from './charge.server'
import { headroomOf, type CapHeadroom } from '~/features/teams/headroom'

export async function capHeadroom(
  caller: { accountId: string; teamId: string | null; userId: string | null },
  db: DbOrTx = getDb(),
  now: Date = new Date(),
): Promise<CapHeadroom | null> {
  if (!caller.teamId || !caller.userId) return null
  const cap = await memberCap(caller.accountId, caller.userId, db, now)
  return cap ? headroomOf(cap.cap, cap.used) : null
}
