// The studio's batch screen (/tools/batch), server side: the form posts to the same acceptBatch as
// POST /api/batches/, then redirects to ?batch=<id> (Post/Redirect/Get), which draws the batch for
// its owner and refreshes itself until every file has run: no JavaScript needed.
import { data, redirect } from '@remix-run/node'
import { resolveCaller } from '~/features/credits/caller.server'
import { acceptBatch } from './api.server'
import { findOwnedBatch, type BatchView } from './batches.server'

export interface BatchPageData {
  batch: BatchView | null
  /** A ?batch= that names nothing of this caller's. */
  notFound: boolean
}

export async function loadBatchPage(request: Request): Promise<BatchPageData> {
  const id = new URL(request.url).searchParams.get('batch')
  if (!id) return { batch: null, notFound: false }
  const caller = await resolveCaller(request, { create: false, invalidAsGuest: true })
  const batch = await findOwnedBatch(id, caller.kind === 'caller' ? caller.caller.accountId : null)
  return { batch, notFound: !batch }
}

export async function batchPageAction(request: Request) {
  const accepted = await acceptBatch(request)
  if (!accepted.ok) return data({ error: accepted.error }, { status: accepted.status })
  const headers = new Headers()
  if (accepted.setCookie) headers.append('Set-Cookie', accepted.setCookie)
  return redirect(`/tools/batch?batch=${accepted.batch.id}`, { status: 303, headers })
}
