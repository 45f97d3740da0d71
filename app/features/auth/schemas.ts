// What the account forms and endpoints accept. Client-safe: the same schemas validate in the browser
// (conform) and on the server.
import { z } from 'zod'

export const PASSWORD_RULE = 'At least 8 characters.'
export const PASSWORDS_DO_NOT_MATCH = 'Passwords do not match.'

export const emailSchema = z
  .string({ error: 'Email is required.' })
  .trim()
  .toLowerCase()
  .min(1, 'Email is required.')
  .max(254, 'That email address is too long.')
  .pipe(z.email('Enter a valid email address.'))

const newPasswordSchema = z
  .string({ error: 'Password is required.' })
  .min(8, 'Password must be at least 8 characters.')
  .max(200, 'Password must be at most 200 characters.')

/** Sign-in checks only presence: rules belong to setting a password, not to trying one. */
const givenPasswordSchema = z.string({ error: 'Password is required.' }).min(1, 'Password is required.').max(200, 'Password must be at most 200 characters.')

/** Trimmed; empty (or absent, or null from a JSON client) becomes null. */
const optionalName = z
  .string()
  .trim()
  .max(100, 'Names are at most 100 characters.')
  .nullish()
  .transform((value) => (value ? value : null))

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

export const registerFormSchema = registerPayloadSchema
  .extend({ confirm_password: z.string({ error: 'Confirm your password.' }) })
  .refine((v) => v.password === v.confirm_password, { message: PASSWORDS_DO_NOT_MATCH, path: ['confirm_password'] })

export const emailOnlySchema = z.object({ email: emailSchema })

export const tokenSchema = z.object({
  token: z.string({ error: 'Verification token missing. Please use the link from your email.' }).trim().min(1).max(200),
})

export const resetConfirmPayloadSchema = z.object({
  token: z.string({ error: 'The reset link is missing its token. Please use the link from your email.' }).trim().min(1).max(200),
  password: newPasswordSchema,
})

export const resetFormSchema = resetConfirmPayloadSchema
  .extend({ confirm_password: z.string({ error: 'Confirm your password.' }) })
  .refine((v) => v.password === v.confirm_password, { message: PASSWORDS_DO_NOT_MATCH, path: ['confirm_password'] })
