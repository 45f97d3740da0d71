// Multi-step account and credit changes commit or fail as one. Each test makes a later statement
// fail (a trigger that raises for this test's rows only), checks that nothing of the change was
// written, then removes the failure and shows the same change now goes through whole.
import { describe, expect, it } from 'vitest'
import { config } from '~/config.server'
import { getDb } from '~/db/db.server'
import { applyDailyRefresh, ensureUserAccount, getBalance } from '~/features/credits/ledger.server'
import { createVisitor, GUEST_CREDITS_DESCRIPTION } from '~/features/credits/visitor.server'
import { waitForPendingMail } from '~/features/mail/mailer.server'
import { readOutbox } from '~/features/mail/outbox.server'
import { failStatement } from '../../../tests/support/fail-statement'
import { confirmPasswordReset, registerUser, requestPasswordReset, verifyEmail } from './accounts.server'
import { verifyPassword } from './password.server'
import { createVerifiedUser, linkMailedTo, uniqueAddress, uniqueEmail } from './testing.server'

const db = () => getDb()

async function registeredUser() {
  const email = uniqueEmail('atomic')
  await registerUser({ email, password: 'long-enough-password', first_name: 'Ada', last_name: null })
  const user = await db().selectFrom('users').select(['id', 'email_verified_at']).where('email', '=', email).executeTakeFirstOrThrow()
  const token = (await linkMailedTo(email)).searchParams.get('token')!
  return { email, userId: user.id, token }
}

async function userState(userId: string) {
  const user = await db().selectFrom('users').select(['email_verified_at', 'password_hash']).where('id', '=', userId).executeTakeFirstOrThrow()
  const tokens = await db().selectFrom('user_tokens').select(['purpose', 'used_at']).where('user_id', '=', userId).execute()
  const sessions = await db().selectFrom('sessions').select(['id', 'revoked_at']).where('user_id', '=', userId).execute()
  const account = await db().selectFrom('credit_accounts').select(['id', 'balance']).where('user_id', '=', userId).executeTakeFirst()
  const entries = account
    ? await db().selectFrom('credit_transactions').select(['kind', 'delta']).where('account_id', '=', account.id).execute()
    : []
  return { user, tokens, sessions, account, entries }
}

describe('email verification is one transaction', () => {
  const lastSteps = {
    'granting the bonus': (userId: string) => ['credit_transactions', 'INSERT', `EXISTS (SELECT 1 FROM credit_accounts a WHERE a.id = NEW.account_id AND a.user_id = '${userId}')`] as const,
    'creating the session': (userId: string) => ['sessions', 'INSERT', `NEW.user_id = '${userId}'`] as const,
  }
  for (const [step, failure] of Object.entries(lastSteps)) {
    it(`a failure while ${step} leaves the link unspent, the account unverified and no bonus`, async () => {
      const { userId, token } = await registeredUser()
      const before = await userState(userId)
      const [table, event, condition] = failure(userId)
      const injected = await failStatement(db(), table, event, condition)
      try {
        await expect(verifyEmail(token, { confirmed: true })).rejects.toThrow(/injected failure/)
      } finally {
        await injected.remove()
      }
      const after = await userState(userId)
      expect(after.user.email_verified_at).toBeNull()
      expect(after.tokens.every((t) => t.used_at === null)).toBe(true)
      expect(after.sessions).toEqual(before.sessions)
      expect(after.entries).toEqual([])
      expect(after.account?.balance ?? 0).toBe(0)

      // The same link works once the failure is gone: nothing was spent by the failed try.
      const outcome = await verifyEmail(token, { confirmed: true })
      expect(outcome).toMatchObject({ ok: true, bonusGranted: true, balance: config().SIGNUP_BONUS })
      const done = await userState(userId)
      expect(done.user.email_verified_at).not.toBeNull()
      expect(done.sessions).toHaveLength(1)
      expect(done.entries).toEqual([{ kind: 'bonus', delta: config().SIGNUP_BONUS }])
    })
  }
})

describe('registration is one transaction', () => {
  it('an account is never left without its verification link (and no mail goes out)', async () => {
    const email = uniqueEmail('atomic-register')
    const injected = await failStatement(db(), 'user_tokens', 'INSERT', `EXISTS (SELECT 1 FROM users u WHERE u.id = NEW.user_id AND u.email = '${email}')`)
    try {
      await expect(registerUser({ email, password: 'long-enough-password', first_name: null, last_name: null })).rejects.toThrow(/injected failure/)
    } finally {
      await injected.remove()
    }
    expect(await db().selectFrom('users').select('id').where('email', '=', email).execute()).toEqual([])
    await waitForPendingMail()
    expect(await readOutbox(email)).toEqual([])

    await registerUser({ email, password: 'long-enough-password', first_name: null, last_name: null })
    expect((await linkMailedTo(email)).pathname).toBe('/verify-email')
  })
})

describe('password reset is one transaction', () => {
  it('a failure while revoking sessions keeps the old password, the sessions and the link', async () => {
    const { user, password, sessionId } = await createVerifiedUser()
    await requestPasswordReset(user.email)
    const token = (await linkMailedTo(user.email)).searchParams.get('token')!
    const injected = await failStatement(db(), 'sessions', 'UPDATE', `NEW.user_id = '${user.id}'`)
    try {
      await expect(confirmPasswordReset(token, 'a-brand-new-password')).rejects.toThrow(/injected failure/)
    } finally {
      await injected.remove()
    }
    const after = await userState(user.id)
    expect(await verifyPassword(password, after.user.password_hash)).toBe(true)
    expect(after.sessions).toEqual([{ id: sessionId, revoked_at: null }])
    expect(after.tokens.filter((t) => t.purpose === 'reset_password').every((t) => t.used_at === null)).toBe(true)

    expect(await confirmPasswordReset(token, 'a-brand-new-password')).toEqual({ ok: true, userId: user.id, sessionsEnded: 1, keysRevoked: 0 })
    const done = await userState(user.id)
    expect(await verifyPassword('a-brand-new-password', done.user.password_hash)).toBe(true)
    expect(done.sessions[0].revoked_at).not.toBeNull()
  })

  it('an unverified account reset: a failing welcome bonus undoes the whole reset', async () => {
    const { userId, email } = await registeredUser()
    await requestPasswordReset(email)
    const token = (await linkMailedTo(email)).searchParams.get('token')!
    const injected = await failStatement(
      db(),
      'credit_transactions',
      'INSERT',
      `EXISTS (SELECT 1 FROM credit_accounts a WHERE a.id = NEW.account_id AND a.user_id = '${userId}')`,
    )
    try {
      await expect(confirmPasswordReset(token, 'a-brand-new-password')).rejects.toThrow(/injected failure/)
    } finally {
      await injected.remove()
    }
    const after = await userState(userId)
    expect(after.user.email_verified_at).toBeNull()
    expect(after.tokens.every((t) => t.used_at === null)).toBe(true)
    expect(after.entries).toEqual([])
  })
})

describe('the daily refresh is one transaction', () => {
  it('a failing ledger row leaves the day unmarked and the balance as it was', async () => {
    const { user } = await createVerifiedUser()
    const accountId = await ensureUserAccount(user.id)
    const injected = await failStatement(db(), 'credit_transactions', 'INSERT', `NEW.account_id = '${accountId}'`)
    try {
      await expect(applyDailyRefresh(accountId, 'user')).rejects.toThrow(/injected failure/)
    } finally {
      await injected.remove()
    }
    const row = await db().selectFrom('credit_accounts').select(['balance', 'last_refresh_day']).where('id', '=', accountId).executeTakeFirstOrThrow()
    expect(row).toEqual({ balance: 0, last_refresh_day: null })
    // Not marked as done for today, so the next request refreshes.
    expect(await applyDailyRefresh(accountId, 'user')).toEqual({ refreshed: true, balance: config().USER_DAILY_FLOOR })
    expect(await getBalance(accountId)).toBe(config().USER_DAILY_FLOOR)
  })
})

describe('visitor creation is one transaction', () => {
  it('a failing guest grant leaves no visitor and no account behind', async () => {
    const count = async () => ({
      visitors: Number((await db().selectFrom('visitors').select((eb) => eb.fn.countAll().as('n')).executeTakeFirstOrThrow()).n),
      accounts: Number(
        (await db().selectFrom('credit_accounts').select((eb) => eb.fn.countAll().as('n')).where('visitor_id', 'is not', null).executeTakeFirstOrThrow()).n,
      ),
    })
    const before = await count()
    const injected = await failStatement(
      db(),
      'credit_transactions',
      'INSERT',
      `NEW.description = '${GUEST_CREDITS_DESCRIPTION}'`,
    )
    try {
      await expect(createVisitor(uniqueAddress(), new Date())).rejects.toThrow(/injected failure/)
    } finally {
      await injected.remove()
    }
    expect(await count()).toEqual(before)
    const created = await createVisitor(uniqueAddress(), new Date())
    expect(created).toMatchObject({ shared: false, account: { balance: config().GUEST_DAILY_CREDITS } })
    expect(await count()).toEqual({ visitors: before.visitors + 1, accounts: before.accounts + 1 })
  })
})
