// Buying a package. There is no payment provider, so no request ever adds credits here: an
// unknown package is a 400, and a known one is refused with 503 (paused by configuration, or, when
// not paused, unavailable). Credits are granted by the operator command instead.
import { z } from 'zod'
import { config } from '~/config.server'
import { getDb, type DB } from '~/db/db.server'

export const PURCHASING_PAUSED_MESSAGE = 'Purchasing is temporarily paused.'
export const NO_PAYMENT_PROVIDER_MESSAGE =
  'Purchasing is not available: no payment provider is configured. Please contact support to add credits.'
export const UNKNOWN_PACKAGE_MESSAGE = 'Unknown credit package.'

const purchaseSchema = z.object({
  package_id: z.union([z.string(), z.number()], { error: 'package_id is required.' }).transform(String).pipe(
    z.string().trim().min(1, 'package_id is required.').max(64, UNKNOWN_PACKAGE_MESSAGE),
  ),
})

export async function purchaseAttempt(
  body: Record<string, unknown>,
  db: DB = getDb(),
): Promise<{ status: 400 | 503; message: string }> {
  const parsed = purchaseSchema.safeParse(body)
  if (!parsed.success) return { status: 400, message: parsed.error.issues[0]?.message ?? 'package_id is required.' }
  const pkg = await db
    .selectFrom('credit_packages')
    .select('id')
    .where('id', '=', parsed.data.package_id)
    .where('active', '=', true)
    .executeTakeFirst()
  if (!pkg) return { status: 400, message: UNKNOWN_PACKAGE_MESSAGE }
  return { status: 503, message: config().PURCHASING_PAUSED ? PURCHASING_PAUSED_MESSAGE : NO_PAYMENT_PROVIDER_MESSAGE }
}
