// The console's routes exist only for an operator's requests (decision 162): which requests concern
// the console, who is answered by the whole build, and the build everyone else gets, where nothing of
// the console is left (server routes and the browser's manifest alike).
import type { ServerBuild } from '@remix-run/node'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resetConfigForTests } from '~/config.server'
import { sessionCookieHeader } from '~/features/auth/session.server'
import { createVerifiedUser } from '~/features/auth/testing.server'
import { BASE } from '../../../tests/support/requests'
import { answersWithConsole, concernsConsole, withoutConsoleRoutes } from './hidden-routes.server'

describe('which requests concern the console', () => {
  it('its pages, their data and a route manifest asked for them; nothing else', () => {
    for (const path of ['/console', '/console/users/1', '/console.data', '/console/audit.csv', '/__manifest?p=%2Fpricing&p=%2Fconsole&version=1']) {
      expect(concernsConsole(new URL(path, BASE)), path).toBe(true)
    }
    for (const path of ['/consoles', '/console-x', '/pricing', '/__manifest?p=%2Fpricing&version=1', '/api/console']) {
      expect(concernsConsole(new URL(path, BASE)), path).toBe(false)
    }
  })
})

describe('the build without the console', () => {
  it('drops every route under /console, nested or not, from the server and the manifest, and keeps the rest', () => {
    const route = (id: string, path: string | undefined, parentId?: string, index?: boolean) => ({ id, path, parentId, index, module: {} })
    const routes = {
      root: route('root', ''),
      'routes/console': route('routes/console', 'console', 'root'),
      'routes/console._index': route('routes/console._index', undefined, 'routes/console', true),
      'routes/console.users.$id': route('routes/console.users.$id', 'users/:id', 'routes/console'),
      'routes/console.audit[.]csv': route('routes/console.audit[.]csv', 'console/audit.csv', 'root'),
      'routes/consoles': route('routes/consoles', 'consoles', 'root'),
      'routes/$': route('routes/$', '*', 'root'),
    }
    const build = { routes, assets: { version: 'v1', routes: Object.fromEntries(Object.keys(routes).map((id) => [id, { id }])) } } as unknown as ServerBuild
    const hidden = withoutConsoleRoutes(build)
    expect(Object.keys(hidden.routes).sort()).toEqual(['root', 'routes/$', 'routes/consoles'])
    expect(Object.keys(hidden.assets.routes).sort()).toEqual(['root', 'routes/$', 'routes/consoles'])
    expect(hidden.assets.version).toBe('v1')
    // The whole build is left as it was, for operators.
    expect(Object.keys(build.routes)).toHaveLength(7)
  })
})

describe('who is answered with the console', () => {
  let operator: Awaited<ReturnType<typeof createVerifiedUser>>
  beforeAll(async () => {
    operator = await createVerifiedUser()
    process.env.OPERATOR_EMAILS = operator.user.email
    resetConfigForTests()
  })
  afterAll(() => {
    delete process.env.OPERATOR_EMAILS
    resetConfigForTests()
  })

  it("an operator's session (cookie or Token), on the console's requests only", async () => {
    const consoleUrl = new URL('/console', BASE)
    const cookie = (await sessionCookieHeader(operator.token)).split(';')[0]!
    expect(await answersWithConsole(consoleUrl, { cookie })).toBe(true)
    expect(await answersWithConsole(consoleUrl, { authorization: `Token ${operator.token}` })).toBe(true)
    expect(await answersWithConsole(new URL('/pricing', BASE), { cookie })).toBe(false)
  })

  it('nobody else: a guest, another user, a forged cookie', async () => {
    const consoleUrl = new URL('/console', BASE)
    const customer = await createVerifiedUser()
    expect(await answersWithConsole(consoleUrl, {})).toBe(false)
    expect(await answersWithConsole(consoleUrl, { authorization: `Token ${customer.token}` })).toBe(false)
    expect(await answersWithConsole(consoleUrl, { cookie: 'fs_session=forged' })).toBe(false)
  })
})
