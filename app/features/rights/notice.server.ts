// The dashboard's one-time notice about the user's data (decision 075's flash cookie): an export the
// rate limit refused is answered with a redirect back to the dashboard, which says why.
import { createFlash } from '~/utils/flash.server'
import { EXPORT_LIMITED } from './messages'

type RightsNotice = 'export-limited'

const MESSAGES: Record<RightsNotice, string> = { 'export-limited': EXPORT_LIMITED }

const notice = createFlash<RightsNotice>('fs_rights_notice')

export function exportLimitedNotice(): Promise<string> {
  return notice.set('export-limited')
}

/** The notice to show (checked against the fixed list), and the Set-Cookie that clears it. */
export async function takeRightsNotice(request: Request): Promise<{ message: string | null; clear: string | null }> {
  const { value, clear } = await notice.take(request)
  return { message: value && Object.hasOwn(MESSAGES, value) ? MESSAGES[value] : null, clear }
}
