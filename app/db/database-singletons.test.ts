import { describe, expect, it } from 'vitest'
import { databaseSingleton, singleton } from '~/utils/singleton.server'
import { useDatabaseHandle, type DatabaseHandle } from './db.server'

// pg-boss and its queues belong to the database they were started on: a bench that installs a second
// scratch database must get them again there (it sent jobs into a database without pg-boss's tables).
describe('singletons bound to the installed database', () => {
  const first = { kind: 'pglite' } as DatabaseHandle
  const second = { kind: 'pglite' } as DatabaseHandle

  it('are made again after another database is installed, and kept while the same one is', () => {
    let made = 0
    const bound = () => databaseSingleton('test:bound', () => ++made)
    const plain = () => singleton('test:plain', () => 'made once')
    useDatabaseHandle(first)
    expect(bound()).toBe(1)
    expect(plain()).toBe('made once')
    useDatabaseHandle(first)
    expect(bound()).toBe(1)
    useDatabaseHandle(second)
    expect(bound()).toBe(2)
    expect(bound()).toBe(2)
    expect(plain()).toBe('made once')
  })
})
