// A console form that worked redirects (303) to its page with a notice shown once, carried in a
// signed flash cookie (decision 075's way: never in the address, gone on reload).
import { redirect } from '@remix-run/node'
import { createFlash } from '~/utils/flash.server'
import { CONSOLE_NOTICES, type ConsoleNotice } from './forms'

const consoleFlash = createFlash<{ to: string; notice: ConsoleNotice }>('fs_console_notice', { maxAgeSeconds: 60 })

export async function redirectWithConsoleNotice(path: string, notice: ConsoleNotice) {
  return redirect(path, { status: 303, headers: { 'Set-Cookie': await consoleFlash.set({ to: path, notice }) } })
}

/** The notice left for this page, if any, and the headers that clear it (and keep the page out of caches). */
export async function takeConsoleNotice(request: Request): Promise<{ notice: string | null; headers: Headers }> {
  const headers = new Headers({ 'Cache-Control': 'private, no-store' })
  const { value, clear } = await consoleFlash.take(request)
  if (clear) headers.append('Set-Cookie', clear)
  const forHere = value !== null && value.to === new URL(request.url).pathname && Object.hasOwn(CONSOLE_NOTICES, value.notice)
  return { notice: forHere ? CONSOLE_NOTICES[value.notice] : null, headers }
}
