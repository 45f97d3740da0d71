// A one-time message carried across a redirect (Post/Redirect/Get): a short-lived, signed, httpOnly
// cookie that the page it leads to reads and clears at once, so a reload, the history or a shared
// address never shows it again, and nothing of it is in a URL. Signed with the session secret: a
// client can drop the cookie but cannot write one. Callers still check what they read against their
// own fixed list before showing it.
import { signedCookie } from './signed-cookie.server'

export interface Flash<T> {
  /** The Set-Cookie header that carries `value` to the next page. */
  set(value: T): Promise<string>
  /** What the cookie held (null when nothing, or a bad signature), and the Set-Cookie that clears it. */
  take(request: Request): Promise<{ value: T | null; clear: string | null }>
}

export interface FlashOptions {
  /**
   * Where the browser sends it. With JavaScript, Remix loads a page's data from `<page>.data`
   * (`/teams.data` for /teams), which a cookie scoped to `/teams` would miss: keep '/' unless the
   * page's forms reload the document.
   */
  path?: string
  /** Long enough for the redirect to be followed, short enough that an unread one soon expires. */
  maxAgeSeconds?: number
}

export function createFlash<T>(name: string, options: FlashOptions = {}): Flash<T> {
  const cookie = () => signedCookie(name, { path: options.path, maxAgeSeconds: options.maxAgeSeconds ?? 120 })
  return {
    set: (value) => cookie().serialize(value),
    async take(request) {
      const parsed = (await cookie().parse(request.headers.get('cookie'))) as T | '' | null
      // Cleared only when there was one: most pages never carry it and need no Set-Cookie.
      if (parsed === null || parsed === undefined || parsed === '') return { value: null, clear: null }
      return { value: parsed, clear: await cookie().serialize('', { maxAge: 0 }) }
    },
  }
}
