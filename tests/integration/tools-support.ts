// Shared by the tool endpoint tests: callers with known balances and real multipart requests.
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { getDb } from '~/db/db.server'
import { createSession } from '~/features/auth/session.server'
import { resolveCaller } from '~/features/credits/caller.server'
import { BASE, formRequest } from '../support/requests'

export const fixture = (path: string) => readFileSync(`tests/fixtures/${path}`)

export function randomIp(): string {
  const n = () => Math.floor(Math.random() * 250) + 1
  return `10.${n()}.${n()}.${n()}`
}

export interface TestCaller {
  headers: Record<string, string>
  accountId: string
}

export async function newVisitor(): Promise<TestCaller> {
  const ip = randomIp()
  const resolved = await resolveCaller(new Request(BASE + '/', { headers: { 'x-facet-client-ip': ip } }))
  if (resolved.kind !== 'caller' || !resolved.setCookie) throw new Error(`no visitor: ${resolved.kind}`)
  return { headers: { cookie: resolved.setCookie.split(';')[0]!, 'x-facet-client-ip': ip }, accountId: resolved.caller.accountId }
}

export async function newUser(): Promise<TestCaller & { token: string }> {
  const user = await getDb()
    .insertInto('users')
    .values({ email: `tools-${randomUUID()}@example.test`, password_hash: 'x', first_name: 'Tess', last_name: 'Ter' })
    .returning('id')
    .executeTakeFirstOrThrow()
  const { token } = await createSession(user.id)
  const headers = { authorization: `Token ${token}`, 'x-facet-client-ip': randomIp() }
  const resolved = await resolveCaller(new Request(BASE + '/', { headers }))
  if (resolved.kind !== 'caller') throw new Error(resolved.kind)
  return { headers, accountId: resolved.caller.accountId, token }
}

export async function balanceOf(caller: TestCaller): Promise<number> {
  const resolved = await resolveCaller(new Request(BASE + '/', { headers: caller.headers }), { create: false })
  if (resolved.kind !== 'caller') throw new Error(resolved.kind)
  return resolved.balance
}

export function fileOf(bytes: Buffer | Uint8Array, name: string, type = 'application/octet-stream'): File {
  return new File([new Uint8Array(bytes)], name, { type })
}

export function toolRequest(
  path: string,
  fields: Record<string, string | Blob>,
  headers: Record<string, string> = { 'x-facet-client-ip': randomIp() },
): Request {
  return formRequest(path, fields, { headers })
}
