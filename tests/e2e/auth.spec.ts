// Account journeys, with JavaScript (project js) and without (project no-js): register, open the
// mailed link, verify, see the 50 credits, sign out, sign back in from a protected page; reset a
// forgotten password; the sign-in rate limit; cross-site posts refused.
import { type Page, type TestInfo } from '@playwright/test'
import { MAIL_DIR, waitForMail } from './support/mail'
import { expect, test } from './support/test'
import { picture, TAKE_PICTURES } from './support/tools'

const PASSWORD = 'a-long-enough-password'

const isNoJs = (info: TestInfo) => info.project.name === 'no-js'
const uniqueEmail = (label: string, info: TestInfo) =>
  `${label}-${info.project.name}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.test`

/** The link in the newest mail to `to` whose subject matches, from the server's outbox folder. */
async function mailedLink(to: string, subject: RegExp): Promise<string> {
  const mail = await waitForMail(MAIL_DIR, (m) => (m.to === to && subject.test(m.subject) && m.link ? m : undefined))
  expect(mail.text).toContain(mail.link)
  expect(mail.html).toContain('<a href=')
  return mail.link!
}

/** Usable on a phone: nothing scrolls sideways at 360 px. Pictures at both widths when asked (TAKE_PICTURES). */
async function fitsPhone(page: Page, info: TestInfo, name: string) {
  const original = page.viewportSize() ?? { width: 1280, height: 800 }
  for (const width of TAKE_PICTURES ? [360, 1280] : [360]) {
    await page.setViewportSize({ width, height: 800 })
    if (width === 360) {
      const { scrollWidth, culprits } = await page.evaluate(() => ({
        scrollWidth: document.scrollingElement?.scrollWidth ?? 0,
        culprits: [...document.querySelectorAll('body *')]
          .filter((el) => el.getBoundingClientRect().right > 361)
          .slice(-3)
          .map((el) => `${el.tagName.toLowerCase()}.${el.className}`.slice(0, 120)),
      }))
      expect(scrollWidth, `${name} scrolls sideways at 360 px: ${culprits.join(' | ')}`).toBeLessThanOrEqual(360)
    }
    await picture(page, `auth-${name}-${info.project.name}-${width}`, { fullPage: true })
  }
  await page.setViewportSize(original)
}


async function register(page: Page, info: TestInfo, email: string) {
  await page.goto('/login')
  await expect(page.getByRole('heading', { level: 1, name: 'Welcome Back' })).toBeVisible()
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/)
  // No buttons that do nothing (issue 35): no social sign-in is offered while none is backed by OAuth.
  for (const name of ['GitHub', 'Google', 'Facebook', 'Twitter']) await expect(page.getByRole('button', { name })).toHaveCount(0)
  await expect(page.getByText(/coming soon/i)).toHaveCount(0)
  await expect(page.getByRole('main').getByRole('link', { name: 'Terms of Service' })).toHaveAttribute('href', '/terms')
  await expect(page.getByRole('main').getByRole('link', { name: 'Privacy Policy' })).toHaveAttribute('href', '/privacy')

  await page.getByTestId('mode-toggle').click()
  await expect(page).toHaveURL(/mode=register/)
  await expect(page.getByRole('heading', { level: 1, name: 'Create your account' })).toBeVisible()
  await expect(page.getByText('At least 8 characters.')).toBeVisible()

  await page.getByLabel('First name (optional)', { exact: true }).fill('  Ada ')
  await page.getByLabel('Last name (optional)', { exact: true }).fill('Tester')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Confirm password', { exact: true }).fill(PASSWORD + 'x')
  await page.getByRole('button', { name: 'Create account' }).click()
  // Mismatch: the browser (JS) or the server (no JS) stops it with the spec's words.
  await expect(page.getByText('Passwords do not match.')).toBeVisible()

  if (isNoJs(info)) await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByLabel('Confirm password', { exact: true }).fill(PASSWORD)
  if (!isNoJs(info)) {
    // Show/hide toggles exist once JavaScript runs.
    await page.getByRole('button', { name: 'Show password' }).click()
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'text')
    await page.getByRole('button', { name: 'Hide password' }).click()
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'password')
  }
  await page.getByRole('button', { name: 'Create account' }).click()

  const check = page.getByTestId('check-email')
  await expect(check).toContainText('Check your email')
  await expect(check).toContainText(email)
  await expect(check).toContainText('expires in 24 hours')
  // The filled form gives way to the panel: nothing left to submit twice, a resend at hand.
  await expect(page.getByLabel('Confirm password', { exact: true })).toHaveCount(0)
  await expect(page.getByRole('button', { name: 'Create account' })).toHaveCount(0)
  await expect(check.getByRole('button', { name: 'Send a new verification email' })).toBeVisible()
  await expect(page.getByRole('heading', { name: 'Welcome Back' })).toHaveCount(0)
  if (!isNoJs(info)) {
    await expect(page.getByText('Verify your email', { exact: true })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Check your email' })).toBeFocused()
  }
  await check.getByRole('button', { name: 'Send a new verification email' }).click()
  await expect(page.getByText("If that account still needs verifying", { exact: false }).first()).toBeVisible()
  await fitsPhone(page, info, 'register')
}

test('register, verify from the mailed link, see 50 credits, sign out, sign back in where you were', async ({ page }, info) => {
  const email = uniqueEmail('journey', info)
  await register(page, info, email)

  // Registration does not sign in.
  await expect(page.getByTestId('site-header').getByRole('link', { name: 'Sign in', exact: true })).toBeVisible()

  const link = await mailedLink(email, /Confirm your email/)
  const url = new URL(link)
  expect(url.pathname).toBe('/verify-email')
  await page.goto(url.pathname + url.search)
  if (isNoJs(info)) {
    // Without JavaScript nothing is spent until the button is pressed.
    await page.getByRole('button', { name: 'Confirm my email' }).click()
  }
  const welcome = page.getByTestId('welcome-dialog')
  await expect(welcome).toBeVisible()
  for (const item of ['50 Free Credits', 'Access to all 5 AI tools', 'No credit card required']) {
    await expect(welcome.getByText(item)).toBeVisible()
  }
  await expect(page.getByTestId('verify-email')).toContainText('Your email is confirmed and your credits are ready to use.')
  if (isNoJs(info)) {
    // Without JavaScript the welcome is a panel of the page, under the verified card, never over it (issue 35).
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 800 })
      const [card, panel] = await Promise.all([page.getByTestId('verify-email').boundingBox(), welcome.boundingBox()])
      expect(panel!.y, `the welcome panel starts under the card at ${width} px`).toBeGreaterThanOrEqual(card!.y + card!.height)
      expect(await welcome.evaluate((el) => getComputedStyle(el).position)).toBe('relative')
    }
    await page.setViewportSize({ width: 1280, height: 720 })
  } else {
    // With it, a modal over the page (focus kept inside, Escape closes).
    expect(await welcome.evaluate((el) => el.matches(':modal') && getComputedStyle(el).position === 'fixed')).toBe(true)
  }
  // Signed in at once: the header already names the user.
  await expect(page.getByTestId('dashboard-button')).toHaveText('Ada Tester')
  await fitsPhone(page, info, 'verified')
  await welcome.getByRole('link', { name: 'Start creating' }).click()

  await expect(page).toHaveURL(/\/dashboard$/)
  await expect(page.locator('meta[name="robots"]')).toHaveAttribute('content', /noindex/)
  await expect(page.getByTestId('card-balance')).toContainText('50 credits')
  await expect(page.getByTestId('card-balance')).toContainText('100% remaining')
  await expect(page.getByTestId('card-transactions')).toContainText('1 grant or purchase')
  await expect(page.getByTestId('card-last-activity')).toContainText('Bonus')
  await expect(page.getByTestId('account-overview')).toContainText('Ada Tester')
  await expect(page.getByTestId('account-overview')).toContainText(email)
  await expect(page.getByTestId('credit-activity')).toContainText('Welcome bonus')
  await expect(page.getByRole('link', { name: 'Manage credits' })).toHaveAttribute('href', '/credits')
  await expect(page.getByRole('link', { name: 'Start a tool' })).toHaveAttribute('href', '/tools/background-remover')
  // The header names the user.
  await expect(page.getByTestId('dashboard-button')).toHaveText('Ada Tester')
  await fitsPhone(page, info, 'dashboard')

  // Using the link again fails, clearly.
  await page.goto(url.pathname + url.search)
  if (isNoJs(info)) await page.getByRole('button', { name: 'Confirm my email' }).click()
  await expect(page.getByRole('heading', { name: 'Verification failed' })).toBeVisible()
  await expect(page.getByTestId('verify-error')).toHaveText('This verification link has already been used. Sign in to continue.')
  await expect(page.getByRole('link', { name: 'Back to login' })).toHaveAttribute('href', '/login')

  await page.getByTestId('site-header').getByRole('button', { name: 'Sign out' }).click()
  await expect(page).toHaveURL(/\/$/)
  await expect(page.getByTestId('site-header').getByRole('link', { name: 'Sign in', exact: true })).toBeVisible()

  // A protected page sends a signed-out visitor to sign in, then back to where they were going.
  await page.goto('/dashboard?tab=activity')
  await expect(page).toHaveURL(/\/login\?from=%2Fdashboard%3Ftab%3Dactivity$/)
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  const alert = page.getByTestId('auth-error')
  await expect(alert).toContainText('Unable to continue')
  await expect(alert).toContainText('Invalid email or password.')
  await fitsPhone(page, info, 'login-error')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/dashboard\?tab=activity$/)
  await expect(page.getByTestId('card-balance')).toContainText('50 credits')
  if (!isNoJs(info)) await expect(page.getByText('Signed in', { exact: true })).toBeVisible()

  // Signed in, /login goes straight to the dashboard.
  await page.goto('/login')
  await expect(page).toHaveURL(/\/dashboard$/)
})

test('an unverified account is told how to get a new verification mail', async ({ page }, info) => {
  const email = uniqueEmail('unverified', info)
  const res = await page.request.post('/api/auth/register/', { data: { email, password: PASSWORD } })
  expect(res.status()).toBe(201)
  await page.goto('/login')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill(PASSWORD)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('auth-error')).toContainText('Please verify your email before signing in.')
  await page.getByRole('button', { name: 'Send a new verification email' }).click()
  await expect(page.getByText('If that account still needs verifying, a new verification link is on its way.')).toBeVisible()

  // Switching between sign-in and create-account clears the messages.
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('auth-error')).toBeVisible()
  await page.getByTestId('mode-toggle').click()
  await expect(page.getByRole('heading', { level: 1, name: 'Create your account' })).toBeVisible()
  await expect(page.getByTestId('auth-error')).toHaveCount(0)
  await page.getByTestId('mode-toggle').click()
  await expect(page.getByRole('heading', { level: 1, name: 'Welcome Back' })).toBeVisible()
  await expect(page.getByTestId('auth-error')).toHaveCount(0)
})

test('reset a forgotten password from the mailed link', async ({ page }, info) => {
  const email = uniqueEmail('reset', info)
  await page.request.post('/api/auth/register/', { data: { email, password: PASSWORD } })
  const verifyLink = new URL(await mailedLink(email, /Confirm your email/))
  const verified = await page.request.post('/api/auth/verify-email/', { data: { token: verifyLink.searchParams.get('token') } })
  expect(verified.status()).toBe(200)
  await page.request.post('/api/auth/logout/')
  await page.context().clearCookies()

  // With JavaScript the link opens the dialog; `goto` returns once the page is hydrated, as it must be for
  // that (a click before hydration follows the link to ?forgot=1, as without JavaScript).
  await page.goto('/login')
  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  if (isNoJs(info)) {
    await expect(page).toHaveURL(/forgot=1/)
  } else {
    await expect(page.getByRole('dialog', { name: 'Reset Password' })).toBeVisible()
  }
  const container = isNoJs(info) ? page.locator('#forgot') : page.getByRole('dialog', { name: 'Reset Password' })
  const send = container.getByRole('button', { name: 'Send reset link' })
  if (!isNoJs(info)) await expect(send).toBeDisabled()
  await container.getByLabel('Email', { exact: true }).fill(email)
  await send.click()
  await expect(container.getByText("If an account exists, you'll receive reset instructions shortly.")).toBeVisible()
  await fitsPhone(page, info, 'forgot')
  if (!isNoJs(info)) await expect(page.getByText('Password reset sent', { exact: true }).last()).toBeVisible()

  const resetLink = new URL(await mailedLink(email, /Reset your/))
  expect(resetLink.pathname).toBe('/reset-password')
  await page.goto(resetLink.pathname + resetLink.search)
  await page.getByLabel('New password', { exact: true }).fill('a-brand-new-password')
  await page.getByLabel('Confirm new password', { exact: true }).fill('a-brand-new-password')
  await page.getByRole('button', { name: 'Set new password' }).click()
  await expect(page).toHaveURL(/\/login\?reset=done$/)
  await expect(page.getByTestId('reset-done')).toContainText('Your password has been reset.')

  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill('a-brand-new-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/dashboard$/)

  // The link works once.
  await page.goto(resetLink.pathname + resetLink.search)
  await page.getByLabel('New password', { exact: true }).fill('yet-another-password')
  await page.getByLabel('Confirm new password', { exact: true }).fill('yet-another-password')
  await page.getByRole('button', { name: 'Set new password' }).click()
  await expect(page.getByTestId('auth-error')).toContainText('already been used')
})

test('the forgot-password dialog starts clean each time it opens', { tag: '@js-only' }, async ({ page }, info) => {
  // Only with JavaScript: the dialog is the JavaScript path; without it ?forgot=1 is a section of the page.
  const dialog = page.getByRole('dialog', { name: 'Reset Password' })
  const forgotLink = page.getByRole('link', { name: 'Forgot your password?' })
  async function sendAndReopen(label: string, close: () => Promise<void>) {
    await forgotLink.click()
    await expect(dialog).toBeVisible()
    await dialog.getByLabel('Email', { exact: true }).fill(uniqueEmail(label, info))
    await dialog.getByRole('button', { name: 'Send reset link' }).click()
    await expect(dialog.getByTestId('reset-sent')).toBeVisible()
    await close()
    await expect(dialog).toBeHidden()
    await forgotLink.click()
    await expect(dialog).toBeVisible()
    await expect(dialog.getByTestId('reset-sent')).toHaveCount(0)
    await expect(dialog.getByLabel('Email', { exact: true })).toHaveValue('')
    await expect(dialog.getByRole('button', { name: 'Send reset link' })).toBeDisabled()
  }

  await page.goto('/login')
  await sendAndReopen('reopen', () => dialog.getByRole('button', { name: 'Close' }).click())

  // /login?forgot=1 (where an expired reset link sends people) also renders the page's own reset
  // form: the dialog must not share its answer with it, in either direction.
  await page.goto('/login?forgot=1')
  const section = page.locator('#forgot')
  await expect(section).toBeVisible()
  await sendAndReopen('reopen-section', () => page.keyboard.press('Escape'))
  await expect(section.getByTestId('reset-sent')).toHaveCount(0)
  await expect(section.getByLabel('Email', { exact: true })).toHaveValue('')
})

test('too many sign-in attempts answer 429 with Retry-After, and the page says so', async ({ page }, info) => {
  const email = uniqueEmail('limit', info)
  let last
  for (let i = 0; i < 10; i++) {
    last = await page.request.post('/api/auth/login/', { data: { email, password: 'wrong-password' } })
    expect(last.status()).toBe(400)
  }
  last = await page.request.post('/api/auth/login/', { data: { email, password: 'wrong-password' } })
  expect(last.status()).toBe(429)
  expect(Number(last.headers()['retry-after'])).toBeGreaterThan(0)
  expect((await last.json()).error).toBe('Too many sign-in attempts. Please wait a few minutes and try again.')

  await page.goto('/login')
  await page.getByLabel('Email', { exact: true }).fill(email)
  await page.getByLabel('Password', { exact: true }).fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByTestId('auth-error')).toContainText('Too many sign-in attempts.')
})

test('a cookie-carrying post from another site is refused', { tag: '@js-only' }, async ({ page }, info) => {
  // Only with JavaScript: a server check: one project is enough.
  const email = uniqueEmail('csrf', info)
  await page.request.post('/api/auth/register/', { data: { email, password: PASSWORD } })
  const token = new URL(await mailedLink(email, /Confirm your email/)).searchParams.get('token')
  await page.request.post('/api/auth/verify-email/', { data: { token } })
  const forged = await page.request.post('/logout', { headers: { origin: 'https://evil.example' }, form: { x: '1' } })
  expect(forged.status()).toBe(403)
  // Still signed in.
  const profile = await page.request.get('/api/auth/profile/')
  expect(profile.status()).toBe(200)
})

test('/verify-email without a token explains what to do', async ({ page }) => {
  await page.goto('/verify-email')
  await expect(page.getByRole('heading', { name: 'Verification failed' })).toBeVisible()
  await expect(page.getByText('Verification token missing. Please use the link from your email.')).toBeVisible()
  await expect(page.getByRole('button', { name: 'Try again' })).toBeDisabled()
})

test('the guard keeps the protected page out of history: Back returns to where the visitor was', async ({ page }, info) => {
  await page.goto('/about')
  await page.goto('/credits')
  if (isNoJs(info)) {
    await page.goto('/dashboard')
  } else {
    // A client-side navigation, as a link click makes it (`goto` returned once the page was hydrated).
    await page.evaluate(() => (window as unknown as { __remixRouter: { navigate: (to: string) => void } }).__remixRouter.navigate('/dashboard'))
  }
  await expect(page).toHaveURL(/\/login\?from=%2Fdashboard$/)
  await page.goBack()
  await expect(page).toHaveURL(/\/credits$/)
})

test('a verification link opened in another browser shows whose account it is and waits for "Continue as"', async ({ page, request }, info) => {
  // Signed up from a script (another cookie jar): this browser is not the sign-up's.
  const email = uniqueEmail('forwarded', info)
  expect((await request.post('/api/auth/register/', { data: { email, password: PASSWORD } })).status()).toBe(201)
  const url = new URL(await mailedLink(email, /Confirm your email/))
  await page.goto(url.pathname + url.search)
  if (isNoJs(info)) await page.getByRole('button', { name: 'Confirm my email' }).click()

  const card = page.getByTestId('verify-email')
  await expect(card.getByRole('heading', { name: 'Whose account is this?' })).toBeVisible()
  await expect(card).toContainText(`This link confirms the account of ${email}.`)
  await expect(card.getByRole('link', { name: 'Not my account' })).toHaveAttribute('href', '/')
  // Nothing happened yet: still signed out.
  await expect(page.getByTestId('site-header').getByRole('link', { name: 'Sign in', exact: true })).toBeVisible()
  await fitsPhone(page, info, 'continue-as')

  await card.getByRole('button', { name: `Continue as ${email}` }).click()
  await expect(card).toContainText('Your email is confirmed and your credits are ready to use.')
  await expect(page.getByTestId('dashboard-button')).toBeVisible()
})
