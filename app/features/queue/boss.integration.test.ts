// pg-boss on the app's database (PGlite or PostgreSQL, as the test run chooses): it starts in its own
// schema, and a job sent inside one of our transactions exists only if that transaction commits.
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import { fromKysely } from 'pg-boss'
import { afterAll, describe, expect, it } from 'vitest'
import { databaseHandle, executeTx, getDb } from '~/db/db.server'
import { getBoss, stopBoss } from './boss.server'

afterAll(async () => {
  await stopBoss({ timeoutMs: 1_000 })
})

describe('pg-boss on the app database', () => {
  it('keeps its tables in a schema of its own', async () => {
    await getBoss()
    const schema = databaseHandle().bossSchema
    const rows = await sql<{ n: number }>`select count(*)::int as n from information_schema.tables where table_schema = ${schema} and table_name = 'job'`.execute(getDb())
    expect(rows.rows[0].n).toBe(1)
  })

  it('sends a job inside our transaction: committed it exists, rolled back it never did', async () => {
    const boss = await getBoss()
    const queue = `test-${randomUUID()}`
    await boss.createQueue(queue)
    const kept = await executeTx(getDb(), (trx) => boss.send(queue, { n: 1 }, { db: fromKysely(trx) }))
    let dropped: string | null = null
    await expect(
      executeTx(getDb(), async (trx) => {
        dropped = await boss.send(queue, { n: 2 }, { db: fromKysely(trx) })
        throw new Error('roll back')
      }),
    ).rejects.toThrow('roll back')
    expect(kept).toBeTruthy()
    expect(dropped).toBeTruthy()
    expect(await boss.getJobById(queue, kept!)).toMatchObject({ id: kept, data: { n: 1 } })
    expect(await boss.getJobById(queue, dropped!)).toBeNull()
    const [job] = await boss.fetch(queue)
    expect(job.id).toBe(kept)
    await boss.complete(queue, job.id)
  })
})
