// Mailed tokens used where they were not meant: a verification token at the password reset, a reset
// token at verification, a token cut short or lengthened. Each is refused (400) and spends nothing:
// the real token still works afterwards, and the password is unchanged.
import { describe, expect, it } from 'vitest'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from '~/features/auth/testing.server'
import { action as login } from '~/routes/api.auth.login'
import { action as resetConfirm } from '~/routes/api.auth.password-reset.confirm'
import { action as resetRequest } from '~/routes/api.auth.password-reset'
import { action as register } from '~/routes/api.auth.register'
import { action as verify } from '~/routes/api.auth.verify-email'
import { jsonRequest, readResult, routeArgs } from '../../../tests/support/requests'

type Handler = (args: ReturnType<typeof routeArgs>) => Promise<unknown> | unknown
const post = async (handler: Handler, path: string, body: unknown) =>
  readResult(await handler(routeArgs(jsonRequest(path, body, { headers: { 'x-facet-client-ip': uniqueAddress() } }))))

describe('mailed tokens out of place', () => {
  it('a verification token does not reset a password, and still verifies afterwards', async () => {
    const email = uniqueEmail()
    expect((await post(register, '/api/auth/register/', { email, password: 'first-password' })).status).toBe(201)
    const token = (await linkMailedTo(email)).searchParams.get('token')!
    const misused = await post(resetConfirm, '/api/auth/password-reset/confirm/', { token, password: 'attacker-password' })
    expect(misused.status).toBe(400)
    for (const forged of [token.slice(0, -1), `${token}x`, token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase()]) {
      expect((await post(verify, '/api/auth/verify-email/', { token: forged })).status).toBe(400)
    }
    expect((await post(verify, '/api/auth/verify-email/', { token })).status).toBe(200)
    expect((await post(login, '/api/auth/login/', { email, password: 'attacker-password' })).status).toBe(400)
    expect((await post(login, '/api/auth/login/', { email, password: 'first-password' })).status).toBe(200)
  })

  it('a reset token does not verify anything and still resets afterwards', async () => {
    const { user, password } = await createVerifiedUser()
    expect((await post(resetRequest, '/api/auth/password-reset/', { email: user.email })).status).toBe(200)
    const link = await linkMailedTo(user.email)
    const token = link.searchParams.get('token') ?? link.pathname.split('/').pop()!
    expect((await post(verify, '/api/auth/verify-email/', { token })).status).toBe(400)
    expect((await post(login, '/api/auth/login/', { email: user.email, password })).status).toBe(200)
    expect((await post(resetConfirm, '/api/auth/password-reset/confirm/', { token, password: 'a-brand-new-password' })).status).toBe(200)
    expect((await post(login, '/api/auth/login/', { email: user.email, password: 'a-brand-new-password' })).status).toBe(200)
  })
})
