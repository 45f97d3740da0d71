// How an operator command names the database it acted on: never a password or another secret.
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { describeEmbedded, describePostgres, operatorTarget } from './studio.server'

describe('naming the database a command acts on', () => {
  it.each([
    ['postgres://facet:s3cret@db.internal:5432/facet', 'PostgreSQL postgres://facet@db.internal:5432/facet (password hidden)'],
    ['postgresql://facet@db.internal/facet', 'PostgreSQL postgresql://facet@db.internal/facet'],
    ['postgres://postgres@127.0.0.1:5432/test?sslmode=require&sslpassword=k3y', 'PostgreSQL postgres://postgres@127.0.0.1:5432/test'],
    ['postgres://u@h/db?password=s3cret', 'PostgreSQL postgres://u@h/db (password hidden)'],
    ['postgres:///facet?host=/var/run/postgresql', 'PostgreSQL postgres:///facet?host=/var/run/postgresql'],
    ['host=db dbname=facet password=s3cret', 'PostgreSQL (DATABASE_URL is not a URL, so it is not shown)'],
  ])('%s', (url, shown) => {
    expect(describePostgres(url)).toBe(shown)
    expect(describePostgres(url)).not.toMatch(/s3cret|k3y/)
  })

  it('names the embedded database by its folder, relative when under the working directory', () => {
    expect(describeEmbedded(path.resolve('data'))).toBe('the embedded database in ./data')
    expect(describeEmbedded('/srv/facet/data')).toBe('the embedded database in /srv/facet/data')
  })

  it('DATABASE_URL decides: PostgreSQL when set, else the embedded database in DATA_DIR', () => {
    expect(operatorTarget({ DATABASE_URL: 'postgres://u@h/db', dataDir: '/d' })).toEqual({ kind: 'postgres', connectionString: 'postgres://u@h/db' })
    expect(operatorTarget({ DATABASE_URL: undefined, dataDir: '/d' })).toEqual({ kind: 'embedded', dataDir: '/d' })
    expect(operatorTarget({ DATABASE_URL: '', dataDir: '/d' })).toEqual({ kind: 'embedded', dataDir: '/d' })
  })
})
