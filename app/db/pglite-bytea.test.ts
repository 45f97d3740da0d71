import { randomBytes } from 'node:crypto'
import { PGlite } from '@electric-sql/pglite'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { pgliteOptions } from './db.server'

// pgliteOptions() sends bytea as binary parameters and reads it back with Buffer's hex codec: the bytes
// must come back exactly, as a Buffer (as pg hands them back), whatever view they were sent as.
describe('bytea on PGlite', () => {
  let pglite: PGlite

  // A fresh PGlite takes seconds to create, far longer on a loaded machine.
  beforeAll(async () => {
    pglite = new PGlite(pgliteOptions())
    await pglite.exec('create table blobs (id int primary key, bytes bytea)')
  }, 120_000)
  afterAll(async () => {
    await pglite.close()
  })

  it('stores and reads back bytes exactly, as a Buffer', async () => {
    const large = randomBytes(300_000)
    // A view into a larger buffer: only its own bytes may travel.
    const window = new Uint8Array(large.buffer, large.byteOffset + 10, 1_000)
    const cases: [number, Uint8Array][] = [
      [1, large],
      [2, window],
      [3, Buffer.alloc(0)],
      [4, Uint8Array.from([0, 1, 92, 120, 255])],
    ]
    for (const [id, bytes] of cases) await pglite.query('insert into blobs values ($1, $2)', [id, bytes])
    const rows = (await pglite.query<{ id: number; bytes: Buffer }>('select id, bytes from blobs order by id')).rows
    expect(rows.map((row) => Buffer.isBuffer(row.bytes))).toEqual([true, true, true, true])
    for (const [id, bytes] of cases) {
      expect(Buffer.compare(rows[id - 1]!.bytes, Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))).toBe(0)
    }
    // What PostgreSQL itself stored, not only what our codec reads back.
    const lengths = (await pglite.query<{ n: number }>('select length(bytes) as n from blobs order by id')).rows
    expect(lengths.map((row) => row.n)).toEqual([300_000, 1_000, 0, 5])
    const small = (await pglite.query<{ hex: string }>("select encode(bytes, 'hex') as hex from blobs where id = 4")).rows[0]
    expect(small?.hex).toBe('00015c78ff')
  })
})
