// The contact form, validated the same way in the browser and on the server (zod/mini: decision 148).
import { z } from 'zod/mini'

export const CONTACT_LIMITS = { name: 120, email: 254, company: 120, message: 5000 } as const

const email = z.pipe(
  z
    .string({ error: 'Enter your work email.' })
    .check(z.trim(), z.maxLength(CONTACT_LIMITS.email, `Email must be at most ${CONTACT_LIMITS.email} characters.`)),
  z.email({ error: 'Enter a valid email address.' }),
)

export const contactSchema = z.object({
  name: z
    .string({ error: 'Enter your full name.' })
    .check(
      z.trim(),
      z.minLength(1, 'Enter your full name.'),
      z.maxLength(CONTACT_LIMITS.name, `Name must be at most ${CONTACT_LIMITS.name} characters.`),
    ),
  email,
  company: z.optional(
    z.string().check(z.trim(), z.maxLength(CONTACT_LIMITS.company, `Company must be at most ${CONTACT_LIMITS.company} characters.`)),
  ),
  message: z
    .string({ error: 'Tell us how we can help.' })
    .check(
      z.trim(),
      z.minLength(1, 'Tell us how we can help.'),
      z.maxLength(CONTACT_LIMITS.message, `Message must be at most ${CONTACT_LIMITS.message} characters.`),
    ),
})

export type ContactInput = z.output<typeof contactSchema>
