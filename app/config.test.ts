import { describe, expect, it } from 'vitest'
import { publicUrlWarning } from './config.server'

const base = { NODE_ENV: 'production', PORT: 3000, HOST: '0.0.0.0', PUBLIC_URL: 'http://localhost:3000' }

describe('PUBLIC_URL left at its default', () => {
  it('warns in production when the server listens on another port or host', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, false)).toMatch(/PUBLIC_URL is not set.*listens on 0\.0\.0\.0:8080/)
    expect(publicUrlWarning({ ...base, HOST: '10.0.0.5' }, false)).toMatch(/10\.0\.0\.5:3000/)
  })

  it('stays quiet when PUBLIC_URL is set, in development, or on the default address', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, true)).toBeNull()
    expect(publicUrlWarning({ ...base, PORT: 8080, NODE_ENV: 'development' }, false)).toBeNull()
    expect(publicUrlWarning(base, false)).toBeNull()
    expect(publicUrlWarning({ ...base, HOST: '127.0.0.1' }, false)).toBeNull()
  })
})
