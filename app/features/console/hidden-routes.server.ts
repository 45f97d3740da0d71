// The console does not exist for anyone but an operator (decision 162, after decision 115). Its loaders
// already answer a stranger with a 404, but Remix would still render that 404 inside the console's
// routes: their modules, ids and paths ride in the page, and /__manifest hands the console's route
// tree to anyone who asks for /console. So the server answers every request that concerns the console
// from one of two builds: the whole build for an operator's session, and for anyone else the same
// build with the console's routes taken out, where /console is an unknown path like any other and gets
// the site's own 404, byte for byte (its nonce aside).
import type { ServerBuild } from '@remix-run/node'
import type { ConsoleGate } from '~/http/studio-app.server'
import { getAuthentication } from '~/features/account/authentication.server'
import { isOperatorEmail } from '~/features/account/guards.server'

export const CONSOLE_PATH = '/console'

/** A path of the console: /console, /console/… and its single-fetch data (/console.data, /console/x.data). */
export function isConsolePath(pathname: string): boolean {
  return pathname === CONSOLE_PATH || pathname.startsWith(`${CONSOLE_PATH}/`) || pathname.startsWith(`${CONSOLE_PATH}.`)
}

/** Does the answer to this request depend on the console's routes (a page, its data, or the route manifest for it)? */
export function concernsConsole(url: URL): boolean {
  if (isConsolePath(url.pathname)) return true
  return url.pathname === '/__manifest' && url.searchParams.getAll('p').some(isConsolePath)
}

type BuildRoute = ServerBuild['routes'][string]

function fullPath(id: string, routes: Record<string, { parentId?: string; path?: string }>): string {
  const parts: string[] = []
  for (let route: { parentId?: string; path?: string } | undefined = routes[id]; route; route = route.parentId ? routes[route.parentId] : undefined) {
    if (route.path) parts.unshift(route.path)
  }
  return `/${parts.join('/')}`.replace(/\/+/g, '/')
}

/** The build without the console's routes (those whose full path is a console path), server side and in the browser's manifest. */
export function withoutConsoleRoutes(build: ServerBuild): ServerBuild {
  const hidden = new Set(Object.keys(build.routes).filter((id) => isConsolePath(fullPath(id, build.routes))))
  const keep = <T>(record: Record<string, T>) => Object.fromEntries(Object.entries(record).filter(([id]) => !hidden.has(id)))
  return {
    ...build,
    routes: keep<BuildRoute>(build.routes),
    assets: { ...build.assets, routes: keep(build.assets.routes) },
  }
}

/** The same, for the development server's build, which is a function loaded afresh on each request. */
export function publicBuild(build: ServerBuild | (() => Promise<ServerBuild>)): ServerBuild | (() => Promise<ServerBuild>) {
  return typeof build === 'function' ? async () => withoutConsoleRoutes(await build()) : withoutConsoleRoutes(build)
}

/** An operator's session (cookie or Token), decided as requireOperator decides, only for requests that concern the console. */
export async function answersWithConsole(url: URL, headers: { cookie?: string; authorization?: string }): Promise<boolean> {
  if (!concernsConsole(url)) return false
  const request = new Request(url, { headers: Object.fromEntries(Object.entries(headers).filter((entry): entry is [string, string] => typeof entry[1] === 'string')) })
  const auth = await getAuthentication(request)
  return auth.kind === 'user' && isOperatorEmail(auth.user.email)
}

/** What the studio's Express app asks of the console (server.ts hands it to createStudioApp). */
export const consoleGate: ConsoleGate = { publicBuild, answersWithConsole }
