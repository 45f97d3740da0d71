// The audit log's vocabulary: every action it records, with the label the console shows. One place,
// so the writers, the console's filter and the CSV agree on the names.
export const AUDIT_ACTIONS = {
  'credits.grant': 'Credits granted to a user',
  'team.credits.grant': 'Credits granted to a team',
  'team.credits.transfer': 'Credits moved into a team by a member',
  'team.seats.set': 'Team seats changed',
  'team.invite.send': 'Invite sent',
  'team.invite.revoke': 'Invite withdrawn',
  'team.member.join': 'Invite accepted',
  'team.member.remove': 'Member removed',
  'team.member.leave': 'Member left',
  'team.member.role': 'Member role changed',
  'team.member.cap': 'Member cap changed',
  'team.webhook.create': 'Team webhook added',
  'team.webhook.delete': 'Team webhook removed',
  'api_key.create': 'API key created',
  'api_key.revoke': 'API key revoked',
  'account.delete': 'Account deleted by its owner',
} as const

export type AuditAction = keyof typeof AUDIT_ACTIONS

export type AuditTargetType = 'user' | 'team' | 'api_key'

export function isAuditAction(value: string): value is AuditAction {
  return Object.hasOwn(AUDIT_ACTIONS, value)
}

/** The actor of the operator channel (`npm run credits`): a process on the server, not a user. */
export const CLI_ACTOR = 'cli'
