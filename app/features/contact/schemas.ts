// The contact form, validated the same way in the browser and on the server.
import { z } from 'zod'

export const CONTACT_LIMITS = { name: 120, email: 254, company: 120, message: 5000 } as const

const email = z
  .string({ error: 'Enter your work email.' })
  .trim()
  .max(CONTACT_LIMITS.email, `Email must be at most ${CONTACT_LIMITS.email} characters.`)
  .pipe(z.email({ error: 'Enter a valid email address.' }))

export const contactSchema = z.object({
  name: z
    .string({ error: 'Enter your full name.' })
    .trim()
    .min(1, 'Enter your full name.')
    .max(CONTACT_LIMITS.name, `Name must be at most ${CONTACT_LIMITS.name} characters.`),
  email,
  company: z
    .string()
    .trim()
    .max(CONTACT_LIMITS.company, `Company must be at most ${CONTACT_LIMITS.company} characters.`)
    .optional(),
  message: z
    .string({ error: 'Tell us how we can help.' })
    .trim()
    .min(1, 'Tell us how we can help.')
    .max(CONTACT_LIMITS.message, `Message must be at most ${CONTACT_LIMITS.message} characters.`),
})

export type ContactInput = z.output<typeof contactSchema>
