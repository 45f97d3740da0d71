import { PGlite } from '@electric-sql/pglite'
import { Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PGliteDialect } from './pglite-dialect.server'

interface Tables {
  items: { id: number; name: string }
}

describe('PGliteDialect', () => {
  let pglite: PGlite
  let db: Kysely<Tables>

  // A fresh PGlite takes seconds to create, far longer on a loaded machine.
  beforeAll(async () => {
    pglite = new PGlite()
    db = new Kysely<Tables>({ dialect: new PGliteDialect(pglite) })
    await sql`create table items (id int primary key, name text not null)`.execute(db)
  }, 120_000)
  afterAll(async () => {
    await db.destroy()
  })

  it('keeps a direct PGlite query (pg-boss) out of an open Kysely transaction', async () => {
    const order: string[] = []
    let direct: Promise<unknown> | undefined
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('items').values({ id: 1, name: 'inside' }).execute()
      // Issued while the transaction is open: it must neither see the uncommitted row nor join the transaction.
      direct = pglite.query<{ n: number }>('select count(*)::int as n from items').then((r) => {
        order.push(`direct saw ${r.rows[0].n}`)
      })
      await new Promise((resolve) => setTimeout(resolve, 50))
      await trx.insertInto('items').values({ id: 2, name: 'inside too' }).execute()
      order.push('committing')
    })
    await direct
    expect(order).toEqual(['committing', 'direct saw 2'])
  })

  it('rolls back on error, and a direct query after it sees nothing of it', async () => {
    await expect(
      db.transaction().execute(async (trx) => {
        await trx.insertInto('items').values({ id: 3, name: 'doomed' }).execute()
        await trx.insertInto('items').values({ id: 3, name: 'duplicate key' }).execute()
      }),
    ).rejects.toThrow(/duplicate key/)
    const rows = await pglite.query<{ id: number }>('select id from items where id = 3')
    expect(rows.rows).toEqual([])
    // The connection is usable again, inside and outside transactions.
    await db.transaction().execute((trx) => trx.insertInto('items').values({ id: 4, name: 'after' }).execute())
    expect((await db.selectFrom('items').select('id').orderBy('id').execute()).map((r) => r.id)).toEqual([1, 2, 4])
  })
})
