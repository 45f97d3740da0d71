// The console's forms: their zod schemas (the actions validate with them) and the notices a form
// that worked leaves for the page. Client-safe (zod/mini: decision 148).
import { z } from 'zod/mini'

/** The amount's own rules (whole number, not 0, within the limit) are the operator channel's: parseAmount. */
export const grantFormSchema = z.object({
  amount: z.string({ error: 'Enter an amount of credits.' }).check(z.trim(), z.minLength(1, 'Enter an amount of credits.')),
  reason: z
    .string({ error: 'A reason is required (it is shown in the ledger).' })
    .check(
      z.trim(),
      z.minLength(1, 'A reason is required (it is shown in the ledger).'),
      z.maxLength(200, 'A reason is at most 200 characters.'),
    ),
})

export const seatsFormSchema = z.object({
  seats: z.string({ error: 'Enter a number of seats.' }).check(z.trim(), z.minLength(1, 'Enter a number of seats.')),
})

export const CONSOLE_NOTICES = {
  granted: 'Credits granted. The ledger and the audit log have the entry.',
  adjusted: 'Credits taken back. The ledger and the audit log have the entry.',
  seats: 'Seats changed. The audit log has the entry.',
} as const

export type ConsoleNotice = keyof typeof CONSOLE_NOTICES
