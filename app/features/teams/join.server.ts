// Accepting an invite from its page, optionally working as the team at once ("Use the team's credits
// now"): the acceptance and the browser session's working team in one transaction, so the session
// never works as a team it did not join, and a refused acceptance changes nothing.
import { executeTx, getDb, type DbOrTx } from '~/db/db.server'
import { acceptInvite, setWorkingTeam } from './teams.server'

export async function joinTeam(
  user: { userId: string; sessionId: string },
  token: string,
  options: { workAsTeam: boolean },
  dbOrTx: DbOrTx = getDb(),
): Promise<{ teamId: string; workingAsTeam: boolean }> {
  return executeTx(dbOrTx, async (trx) => {
    const { teamId } = await acceptInvite(user.userId, token, trx)
    if (options.workAsTeam) await setWorkingTeam(user.sessionId, user.userId, teamId, trx)
    return { teamId, workingAsTeam: options.workAsTeam }
  })
}
