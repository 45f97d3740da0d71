import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseTrustProxy, publicUrlWarning, readConfig } from './config.server'

describe('TRUST_PROXY', () => {
  it('reads off, hop counts and address lists', () => {
    for (const off of ['', 'false', 'no', '0', 'FALSE']) expect(parseTrustProxy(off)).toBe(0)
    // Trusting every hop let a client pick its own address: `true` is the nearest proxy only.
    expect(parseTrustProxy('true')).toBe(1)
    expect(parseTrustProxy('yes')).toBe(1)
    expect(parseTrustProxy('1')).toBe(1)
    expect(parseTrustProxy('3')).toBe(3)
    expect(parseTrustProxy('loopback, 10.0.0.0/8,192.168.1.7,fd00::/8,172.16.0.0/255.240.0.0')).toEqual([
      'loopback',
      '10.0.0.0/8',
      '192.168.1.7',
      'fd00::/8',
      '172.16.0.0/255.240.0.0',
    ])
  })

  it('refuses what it cannot read, naming the setting', () => {
    for (const bad of ['maybe', '10.0.0.0/33', '10.0.0.300', '-1', '1.5', 'loopback,evil', '::1/129', '99']) {
      expect(() => parseTrustProxy(bad), bad).toThrow(/TRUST_PROXY/)
    }
  })

  it('defaults to trusting no proxy', () => {
    expect(readConfig({ NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) }).trustProxy).toBe(0)
  })
})

const base = { NODE_ENV: 'production', PORT: 3000, HOST: '0.0.0.0' }

describe('PUBLIC_URL unset', () => {
  it('follows PORT and HOST', () => {
    const env = { NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) } as const
    expect(readConfig(env).PUBLIC_URL).toBe('http://localhost:3000')
    expect(readConfig({ ...env, PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080')
    expect(readConfig({ ...env, HOST: '0.0.0.0', PORT: '8080' }).PUBLIC_URL).toBe('http://localhost:8080')
    expect(readConfig({ ...env, HOST: '192.0.2.7', PORT: '8080' }).PUBLIC_URL).toBe('http://192.0.2.7:8080')
    expect(readConfig({ ...env, HOST: '2001:db8::7' }).PUBLIC_URL).toBe('http://[2001:db8::7]:3000')
    expect(readConfig({ ...env, PORT: '8080', PUBLIC_URL: 'https://studio.example' }).PUBLIC_URL).toBe('https://studio.example')
  })

  it('listens on loopback unless told otherwise', () => {
    expect(readConfig({ NODE_ENV: 'test', DATA_DIR: 'tests/.tmp/data', SESSION_SECRET: 'x'.repeat(32), RESULTS_KEY: 'a'.repeat(64) }).HOST).toBe('127.0.0.1')
  })

  it('warns in production when the server listens on every interface', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, false)).toMatch(/PUBLIC_URL is not set.*localhost:8080.*every interface \(0\.0\.0\.0:8080\)/)
    expect(publicUrlWarning({ ...base, HOST: '::' }, false)).toMatch(/every interface/)
  })

  it('stays quiet when PUBLIC_URL is set, in development, or on an address of its own', () => {
    expect(publicUrlWarning({ ...base, PORT: 8080 }, true)).toBeNull()
    expect(publicUrlWarning({ ...base, PORT: 8080, NODE_ENV: 'development' }, false)).toBeNull()
    expect(publicUrlWarning({ ...base, HOST: '127.0.0.1' }, false)).toBeNull()
    expect(publicUrlWarning({ ...base, HOST: '10.0.0.5' }, false)).toBeNull()
  })
})

describe('secrets kept in DATA_DIR when the environment sets none', () => {
  // A process that loads the configuration module, says it is ready, and when told to go reads the
  // configuration of each of FOLDERS new folders in turn: started together, the processes reach each
  // folder's secret files at about the same moment, as a studio's web and worker processes do.
  const FOLDERS = 20
  const readerScript = `
    const { readConfig } = await import(${JSON.stringify(path.resolve('app/config.server.ts'))})
    process.stdout.write('ready\\n')
    process.stdin.once('data', () => {
      const seen = []
      for (let i = 0; i < ${FOLDERS}; i++) {
        const c = readConfig({ NODE_ENV: 'test', DATA_DIR: process.env.SECRET_DIR + '/' + i })
        seen.push({ key: c.resultsKey.toString('hex'), session: c.sessionSecret })
      }
      process.stdout.write(JSON.stringify(seen) + '\\n')
      process.exit(0)
    })`

  function startReader(dataDir: string) {
    const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', readerScript], {
      env: { NODE_ENV: 'test', PATH: process.env.PATH, SECRET_DIR: dataDir },
      stdio: ['pipe', 'pipe', 'inherit'],
    })
    let out = ''
    const ready = new Promise<void>((resolve, reject) => {
      child.stdout.on('data', (chunk: Buffer) => {
        out += chunk
        if (out.startsWith('ready\n')) resolve()
      })
      child.on('exit', (code) => reject(new Error(`reader exited with ${code} before it was ready`)))
    })
    const answer = new Promise<{ key: string; session: string }[]>((resolve, reject) =>
      child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.split('\n')[1]!)) : reject(new Error(`reader exited with ${code}`)))),
    )
    return { ready, go: () => child.stdin.end('go\n'), answer }
  }

  it('are the same whole value for every process that starts at once on a new folder', async () => {
    const root = mkdtempSync(path.join(os.tmpdir(), 'facet-secrets-'))
    try {
      const readers = Array.from({ length: 6 }, () => startReader(root))
      await Promise.all(readers.map((r) => r.ready))
      for (const r of readers) r.go()
      const answers = await Promise.all(readers.map((r) => r.answer))
      for (let folder = 0; folder < FOLDERS; folder++) {
        const kept = readConfig({ NODE_ENV: 'test', DATA_DIR: path.join(root, String(folder)) })
        expect(kept.resultsKey.toString('hex')).toMatch(/^[0-9a-f]{64}$/)
        expect(kept.sessionSecret.length).toBeGreaterThanOrEqual(32)
        for (const seen of answers) expect(seen[folder]).toEqual({ key: kept.resultsKey.toString('hex'), session: kept.sessionSecret })
      }
    } finally {
      rmSync(root, { recursive: true, force: true })
    }
  })

  it('refuses a kept secret that is not whole, naming the file, rather than run with a short key', () => {
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'facet-secrets-'))
    try {
      writeFileSync(path.join(dataDir, 'session-secret'), 'x'.repeat(64))
      writeFileSync(path.join(dataDir, 'results-key'), '\n')
      expect(() => readConfig({ NODE_ENV: 'test', DATA_DIR: dataDir })).toThrow(
        `Invalid configuration: ${path.join(dataDir, 'results-key')}: RESULTS_KEY must be 64 hex characters (32 bytes) (remove the file to have a new one made)`,
      )
    } finally {
      rmSync(dataDir, { recursive: true, force: true })
    }
  })
})
