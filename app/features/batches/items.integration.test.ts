// A batch item's charge when a worker starts it, for a team: the refusal the batch screen and
// errors.json then show must make sense to whoever reads the batch.
import { randomUUID } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { getDb } from '~/db/db.server'
import { createVerifiedUser, linkMailedTo, uniqueEmail } from '~/features/auth/testing.server'
import { grant } from '~/features/credits/ledger.server'
import { teamAccount } from '~/features/teams/membership.server'
import { ITEM_SENDER_LEFT } from '~/features/teams/messages'
import { acceptInvite, createTeam, inviteMember, removeMember } from '~/features/teams/teams.server'
import type { ToolJobInfo } from '~/features/jobs/jobs.server'
import { chargeItemOnStart } from './items.server'

describe('chargeItemOnStart on a team account', () => {
  it('an item that starts after its sender left fails unpaid (403) with words for the team, not "you"', async () => {
    const owner = await createVerifiedUser()
    const team = await createTeam(owner.user.id, `Acme ${randomUUID().slice(0, 6)}`)
    const member = await createVerifiedUser({ email: uniqueEmail('sender') })
    await inviteMember(owner.user.id, team.id, { email: member.user.email, role: 'member' })
    await acceptInvite(member.user.id, (await linkMailedTo(member.user.email)).pathname.split('/').pop()!)
    const account = (await teamAccount(team.id))!
    await grant({ accountId: account.accountId, amount: 5, kind: 'adjustment', description: 'Budget' })
    await removeMember(owner.user.id, team.id, member.user.id)

    // Only the fields the charge reads: the job the member queued before they were removed.
    const item = {
      id: randomUUID(),
      batch_id: randomUUID(),
      test_mode: false,
      charge_transaction_id: null,
      tool: 'background-remover',
      account_id: account.accountId,
      api_key_id: null,
      user_id: member.user.id,
    } as unknown as ToolJobInfo
    expect(await chargeItemOnStart(item)).toEqual({ refused: { status: 403, message: ITEM_SENDER_LEFT } })
    const rows = await getDb().selectFrom('credit_transactions').select('delta').where('account_id', '=', account.accountId).execute()
    expect(rows.map((r) => r.delta)).toEqual([5])
  })
})
