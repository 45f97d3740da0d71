// Who may read a stored result, in one place: the result itself (GET /api/results/<id>) and its preview
// (GET /api/results/<id>/preview) answer the same callers, so a preview never opens what its result would not.
// The account that produced it (its cookie, session token or API key), or the holder of a signed link until
// the link expires (decision 174); anyone else, and everyone after 24 hours, gets 404 (410 for a link that
// ran out).
import { resolveCaller } from '~/features/account/caller.server'
import { checkResultLink } from '../jobs/result-links.server'
import { readResult, readResultForSignedLink, type StoredResult } from '../jobs/results.server'

const RESULT_NOT_FOUND = 'This result does not exist or has expired.'
export const RESULT_LINK_EXPIRED =
  'This link has expired. Ask for the result again with the key or session that ran it (GET /api/jobs/<id>/ gives a fresh link).'

const refusal = (status: 404 | 410, message: string) =>
  Response.json({ error: message, detail: message }, { status, headers: { 'Cache-Control': 'no-store' } })

async function ownersResult(request: Request, id: string) {
  const resolution = await resolveCaller(request, { create: false })
  return readResult(id, resolution.kind === 'caller' ? resolution.caller.accountId : null)
}

/** The result `request` may read, or the refusal to answer with. */
export async function authorisedResult(request: Request, id: string): Promise<StoredResult | Response> {
  const query = new URL(request.url).searchParams
  const link = checkResultLink(id, query)
  // The caller's own credentials still open the result when the link it holds has run out.
  const result = link === 'valid' ? await readResultForSignedLink(id) : await ownersResult(request, id)
  if (!result) return link === 'expired' ? refusal(410, RESULT_LINK_EXPIRED) : refusal(404, RESULT_NOT_FOUND)
  return result
}
