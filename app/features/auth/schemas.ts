// What the account forms and endpoints accept. Client-safe: the same schemas validate in the browser
// (conform) and on the server. Written with zod/mini, which the browser bundle can tree-shake
// (decision 148).
import { z } from 'zod/mini'

export const PASSWORD_RULE = 'At least 8 characters.'
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match.'

export const emailSchema = z.pipe(
  z
    .string({ error: 'Email is required.' })
    .check(z.trim(), z.toLowerCase(), z.minLength(1, 'Email is required.'), z.maxLength(254, 'That email address is too long.')),
  z.email('Enter a valid email address.'),
)

const newPasswordSchema = z
  .string({ error: 'Password is required.' })
  .check(z.minLength(8, 'Password must be at least 8 characters.'), z.maxLength(200, 'Password must be at most 200 characters.'))

/** Sign-in checks only presence: rules belong to setting a password, not to trying one. */
const givenPasswordSchema = z
  .string({ error: 'Password is required.' })
  .check(z.minLength(1, 'Password is required.'), z.maxLength(200, 'Password must be at most 200 characters.'))

/** Trimmed; empty (or absent, or null from a JSON client) becomes null. */
const optionalName = z.pipe(
  z.nullish(z.string().check(z.trim(), z.maxLength(100, 'Names are at most 100 characters.'))),
  z.transform((value) => (value ? value : null)),
)

export const loginSchema = z.object({
  email: emailSchema,
  password: givenPasswordSchema,
})

export const registerPayloadSchema = z.object({
  email: emailSchema,
  password: newPasswordSchema,
  first_name: optionalName,
  last_name: optionalName,
})

const passwordsMatch = z.refine<{ password: string; confirm_password: string }>((v) => v.password === v.confirm_password, {
  message: PASSWORDS_DO_NOT_MATCH,
  path: ['confirm_password'],
})

export const registerFormSchema = z
  .extend(registerPayloadSchema, { confirm_password: z.string({ error: 'Confirm your password.' }) })
  .check(passwordsMatch)

export const emailOnlySchema = z.object({ email: emailSchema })

export const tokenSchema = z.object({
  token: z
    .string({ error: 'Verification token missing. Please use the link from your email.' })
    .check(z.trim(), z.minLength(1), z.maxLength(200)),
})

export const resetConfirmPayloadSchema = z.object({
  token: z
    .string({ error: 'The reset link is missing its token. Please use the link from your email.' })
    .check(z.trim(), z.minLength(1), z.maxLength(200)),
  password: newPasswordSchema,
})

export const resetFormSchema = z
  .extend(resetConfirmPayloadSchema, { confirm_password: z.string({ error: 'Confirm your password.' }) })
  .check(passwordsMatch)
