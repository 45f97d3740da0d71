import { getDb, type DB } from '~/db/db.server'

/** A credit package as the API and screens show it: price in dollars. */
export interface CreditPackage {
  id: string
  credits: number
  price: number
  label: string | null
}

export async function listPackages(db: DB = getDb()): Promise<CreditPackage[]> {
  const rows = await db
    .selectFrom('credit_packages')
    .select(['id', 'credits', 'price_cents', 'label'])
    .where('active', '=', true)
    .orderBy('sort_order')
    .execute()
  return rows.map((r) => ({ id: r.id, credits: r.credits, price: r.price_cents / 100, label: r.label }))
}
