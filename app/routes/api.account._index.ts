// DELETE /api/account/ {password} → 200 {detail, deleted: {...what was removed}} (decision 171): the
// account is deleted in one transaction; its sessions and keys stop working at once. The password is
// required whatever the credential: a leaked key or token alone must not be able to erase an account.
// 403 wrong password (or a team key), 409 the last owner of a team with other members, or runs still
// in progress; 429 too many tries.
import type { ActionFunctionArgs } from '@remix-run/node'
import { deleteAccount } from '~/features/rights/deletion.server'
import { requirePersonalApiUser } from '~/features/account/guards.server'
import { limitDeletion } from '~/features/rights/limits.server'
import { ACCOUNT_DELETED, DELETE_LIMITED } from '~/features/rights/messages'
import { deleteAccountSchema } from '~/features/rights/schemas'
import { tooManyRequests } from '~/features/security/rate-limit.server'
import { parseBody } from '~/http/body.server'
import { errorResponse, methodNotAllowed } from '~/http/errors.server'
import { NO_STORE } from '~/http/headers'

export function loader() {
  return methodNotAllowed('DELETE')
}

export async function action({ request }: ActionFunctionArgs) {
  if (request.method !== 'DELETE') return methodNotAllowed('DELETE')
  const { user } = await requirePersonalApiUser(request)
  const parsed = await parseBody(request, deleteAccountSchema)
  if ('response' in parsed) return parsed.response
  const limited = await limitDeletion(user.id)
  if (!limited.ok) return tooManyRequests(limited, DELETE_LIMITED)
  const outcome = await deleteAccount(user.id, { password: parsed.data.password, via: 'api' })
  if (!outcome.ok) return errorResponse(outcome.status, outcome.message, {}, NO_STORE)
  return Response.json({ detail: ACCOUNT_DELETED, deleted: outcome.summary }, { headers: NO_STORE })
}
